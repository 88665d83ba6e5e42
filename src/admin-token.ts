// The administrator secret: ADMIN_TOKEN when set, else one generated once and kept (mode 0600) in
// `admin-token` beside the SQLite file, so that restarts keep it. The secret itself is never logged.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config';
import { newSecret } from './domain/tokens';

export interface AdminTokenSource {
  token: string;
  /** Where the generated token lives; undefined when it came from ADMIN_TOKEN. */
  file?: string;
  generated: boolean;
}

export function adminTokenFile(config: Pick<Config, 'sqlitePath'>): string {
  const dir = config.sqlitePath === ':memory:' ? path.resolve('data') : path.dirname(path.resolve(config.sqlitePath));
  return path.join(dir, 'admin-token');
}

export function resolveAdminToken(config: Pick<Config, 'adminToken' | 'sqlitePath'>): AdminTokenSource {
  if (config.adminToken) return { token: config.adminToken, generated: false };
  const file = adminTokenFile(config);
  if (fs.existsSync(file)) return { token: fs.readFileSync(file, 'utf8').trim(), file, generated: false };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const token = newSecret('admin');
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, file, generated: true };
}

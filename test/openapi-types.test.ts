// src/generated/openapi.ts is what `npm run generate:types` makes of openapi.yaml now: never edited by hand, and
// never left behind when the contract changes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const GENERATED = path.join(ROOT, 'src', 'generated', 'openapi.ts');

test('when the types are generated again from openapi.yaml, then they equal src/generated/openapi.ts', () => {
  const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'generate-types.mjs'), '--stdout'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  const committed = fs.readFileSync(GENERATED, 'utf8');
  if (run.stdout !== committed) {
    throw new Error('src/generated/openapi.ts differs from what openapi.yaml generates: run `npm run generate:types` and commit the file.');
  }
});

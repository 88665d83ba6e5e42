// A client generated from openapi.yaml by someone else works untouched: openapi-typescript, run as a new user
// runs it (its CLI, no options, in a folder of its own), types every request body of the walkthroughs in README.md and docs/
// without an error. The bodies are also checked against the contract itself, so each is a valid request.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { contractAjv, detach, loadContract, operations } from '../src/http/openapi';
import { tempDir } from './helpers/app';

const ROOT = path.resolve(__dirname, '..');
const GENERATOR = path.join(path.dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js');

const user = { type: 'member_id', id: 'ann' };
const welcome = {
  name: 'Welcome',
  priority: 1,
  condition: {
    trigger: { event_name: ['app_open'], period: [{ start: '2026-12-01T00:00:00+09:00', end: '2026-12-31T23:59:59Z' }] },
    target: { segmentation_id: 3 },
    max_delivery_count: 1000,
    max_total_count: 3,
    max_total_count_per_day: 1,
    category: 'onboarding',
    is_active: true,
  },
  message: [
    {
      template_id: 7,
      title: 'Hi',
      body: 'Welcome aboard',
      image_url: 'https://cdn.example.com/a.png',
      buttons: [{ id: 'ok', name: 'OK', url: 'https://example.com/ok', event_name: 'tap_ok' }],
    },
  ],
};

/** One body per operation with a JSON request body, as the walkthroughs in README.md and docs/ send it (defaults left out). */
const WALKTHROUGH: Record<string, unknown> = {
  search: { match: { from: { schema: 'member', key: user }, step: 'ONE' } },
  graph: { match: { from: { schema: 'member', key: user } }, max_nodes: 3 },
  why: { from: { schema: 'member', key: user }, to: { where: { type: 'device', id: 'd-1' } }, max_hops: 3 },
  createNode: { schema: 'member', key: user, ids: [{ type: 'device', id: 'ann-phone' }] },
  insertIds: { schema: 'member', key: user, ids: [{ type: 'email', id: 'ann@example.com' }] },
  updateId: { schema: 'member', key: user, where: { type: 'device', id: 'ann-phone' }, set: { type: 'device', id: 'ann-phone-2' } },
  upsertId: { schema: 'member', key: user, where: { type: 'device', id: 'ann-phone' }, set: { type: 'device', id: 'ann-phone-2' } },
  rekeyNode: { schema: 'member', key: user, set: { id: 'ann-2' } },
  deleteNode: { schema: 'member', key: user },
  putSchema: { id_types: [{ type: 'member_id' }, { type: 'device', links: false, max_holders: 2 }, { type: 'email', secure: true }] },
  createToken: { kind: 'bearer', label: 'backend' },
  putBlocklist: {
    rules: [
      { type: 'email', values: ['test@test.com'], ignore_case: true },
      { type: 'device', pattern: '0+|unknown' },
    ],
  },
  putSettings: { timezone: 'Asia/Tokyo' },
  eraseId: { id: { type: 'email', id: 'ann@example.com' } },
  separateNodes: {
    nodes: [
      { schema: 'member', key: user },
      { schema: 'member', key: { type: 'member_id', id: 'bob' } },
    ],
    remove_shared_from: 'B',
  },
  unseparateNodes: {
    nodes: [
      { schema: 'member', key: user },
      { schema: 'member', key: { type: 'member_id', id: 'bob' } },
    ],
  },
  createDelivery: welcome,
  replaceDelivery: { ...welcome, condition: { ...welcome.condition, is_active: false } },
  deliveryEligibility: { user: { type: 'device', id: 'ann-phone' }, event_name: 'app_open' },
  recordImpression: { user: { type: 'device', id: 'ann-phone' }, platform: 'ios', at: '2026-12-01T21:00:00+09:00' },
};

/** Operations whose request body is JSON (`_bulk` takes NDJSON lines, which a generated client types as a string). */
function jsonBodyOperations() {
  return [...operations(loadContract())]
    .filter(({ operation }) => operation.requestBody?.content['application/json'] !== undefined)
    .map(({ path: p, method, operation }) => ({
      path: p,
      method,
      operationId: operation.operationId,
      schema: operation.requestBody?.content['application/json']?.schema,
    }));
}

/** Generates a client as a new user would, then type-checks one typed constant per walkthrough body against it. */
function typeErrorsOfWalkthrough(contractFile: string): string[] {
  const dir = tempDir('idlink-client-');
  fs.copyFileSync(contractFile, path.join(dir, 'openapi.yaml'));
  const run = spawnSync(process.execPath, [GENERATOR, 'openapi.yaml', '-o', 'schema.ts'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`openapi-typescript failed:\n${run.stdout}${run.stderr}`);
  const calls = jsonBodyOperations().map(
    ({ path: p, method, operationId }) =>
      `export const ${operationId}: paths[${JSON.stringify(p)}][${JSON.stringify(method)}]['requestBody']['content']['application/json'] = ${JSON.stringify(WALKTHROUGH[operationId])};`,
  );
  fs.writeFileSync(path.join(dir, 'calls.ts'), [`import type { paths } from './schema';`, ...calls, ''].join('\n'));
  const program = ts.createProgram([path.join(dir, 'calls.ts')], { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, types: [] });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('a client generated from openapi.yaml with the generator’s defaults', () => {
  test('when an operation takes a JSON body, then the walkthrough has a body for it', () => {
    expect(Object.keys(WALKTHROUGH).sort()).toEqual(
      jsonBodyOperations()
        .map((o) => o.operationId)
        .sort(),
    );
  });

  test('when the walkthrough’s bodies are checked against the contract, then each is a valid request', () => {
    const ajv = contractAjv(loadContract());
    const invalid = jsonBodyOperations().flatMap(({ operationId, schema }) => {
      const validate = ajv.compile(detach(schema) as object);
      return validate(structuredClone(WALKTHROUGH[operationId])) ? [] : [{ operationId, errors: validate.errors }];
    });
    expect(invalid).toEqual([]);
  });

  test('when openapi-typescript generates types with its default options, then every walkthrough body type-checks', () => {
    expect(typeErrorsOfWalkthrough(path.join(ROOT, 'openapi.yaml'))).toEqual([]);
  }, 120_000);
});

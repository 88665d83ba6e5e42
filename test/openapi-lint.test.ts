// openapi.yaml passes Redocly's OpenAPI lint (the recommended ruleset, redocly.yaml) with no error; and the
// check does fail on a contract that breaks a rule. The CLI runs offline: telemetry and the update check off.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadContract } from '../src/http/openapi';
import { tempDir } from './helpers/app';

const ROOT = path.resolve(__dirname, '..');
const REDOCLY = path.join(path.dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

/** Runs `redocly lint` on `file` with the project's redocly.yaml; its whole output, for a failure message. */
function lint(file: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [REDOCLY, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format=stylish'], {
    cwd: ROOT,
    encoding: 'utf8',
    // Only this child's environment: Redocly's documented opt-outs of usage data and of the new-version check,
    // both of which would reach the network.
    env: { PATH: process.env.PATH ?? '', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    timeout: 60_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}${run.error ? String(run.error) : ''}` };
}

describe('the OpenAPI lint', () => {
  test('when openapi.yaml is linted with the recommended rules, then it has no error', () => {
    const { status, output } = lint('openapi.yaml');
    // On failure the comparison prints Redocly's own list of problems.
    expect({ status, problems: status === 0 ? '' : output }).toEqual({ status: 0, problems: '' });
    expect(output).toMatch(/Your API description is valid/);
  });

  test('when a contract has an operation that declares no security, then the lint fails and names the rule', () => {
    const dir = tempDir('idlink-lint-');
    const file = path.join(dir, 'broken.yaml');
    fs.writeFileSync(
      file,
      [
        'openapi: 3.1.0',
        'info: { title: Broken, version: 1.0.0, description: A contract with one mistake., license: { name: MIT, identifier: MIT } }',
        'servers: [{ url: / }]',
        'tags: [{ name: health, description: Health. }]',
        'paths:',
        '  /healthz:',
        '    get:',
        '      operationId: healthz',
        '      tags: [health]',
        '      summary: Alive',
        '      responses:',
        "        '200': { description: Alive. }",
        "        '400': { description: Never. }",
        '',
      ].join('\n'),
    );
    const { status, output } = lint(file);
    fs.rmSync(dir, { recursive: true, force: true });
    expect(status).not.toBe(0);
    expect(output).toMatch(/error\s+security-defined/);
  });
});

describe('the version', () => {
  test("when openapi.yaml and package.json are read, then the contract's info.version is the service's version", () => {
    const info = loadContract().document.info as { version: string };
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(info.version).toBe(pkg.version);
  });
});

// `npm run test:neo4j` itself: pointed at a NEO4J_TEST_URI where nothing answers, or asked to share its one database
// between jest workers, it stops before any test runs, with one line saying why (rather than every test failing on
// its own). Runs the real jest with the Neo4j config.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../neo4j-local/neo4j-local';

const ROOT = path.resolve(__dirname, '..', '..');
const JEST = require.resolve('jest/bin/jest');

describe('npm run test:neo4j', () => {
  test('when NEO4J_TEST_URI names a server that does not answer, then it exits 1 at once with one line naming the URI, and runs no test; NEO4J_URI is ignored', async () => {
    const uri = `bolt://127.0.0.1:${await freePort()}`;
    const production = `bolt://127.0.0.1:${await freePort()}`;
    const run = spawnSync(process.execPath, [JEST, '-c', 'jest.neo4j.config.js'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NEO4J_TEST_URI: uri, NEO4J_URI: production },
      encoding: 'utf8',
      timeout: 25_000,
    });
    expect(run.status).toBe(1);
    const reasons = run.stderr.split('\n').filter((line) => line.startsWith('Neo4j suites cannot run'));
    expect(reasons).toEqual([expect.stringContaining(`NEO4J_TEST_URI=${uri} does not answer`)]);
    expect(run.stdout).toContain('ignoring NEO4J_URI');
    expect(run.stdout + run.stderr).not.toContain(production);
    expect(run.stdout + run.stderr).not.toMatch(/^Tests:/m);
  });

  test('when NEO4J_TEST_URI names one database and more than one jest worker is asked for, then it exits 1 at once saying the files share it, and runs no test', async () => {
    const uri = `bolt://127.0.0.1:${await freePort()}`;
    const run = spawnSync(process.execPath, [JEST, '-c', 'jest.neo4j.config.js', '--maxWorkers=2'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NEO4J_TEST_URI: uri },
      encoding: 'utf8',
      timeout: 25_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.split('\n').filter((line) => line.startsWith('Neo4j suites cannot run'))).toEqual([
      'Neo4j suites cannot run: NEO4J_TEST_URI names one database, which the test files share: run them in one worker (--runInBand), not 2.',
    ]);
    expect(run.stdout + run.stderr).not.toMatch(/^Tests:/m);
  });
});

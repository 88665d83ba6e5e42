// The configuration module: defaults, validation that names the variable, and the configuration table of docs/operations.md.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, describeSettings, loadConfig } from '../src/config';

describe('configuration', () => {
  test('when nothing is set, then the documented defaults apply', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      store: 'sqlite',
      sqlitePath: './data/idlink.sqlite',
      logLevel: 'info',
      bodyLimit: '1mb',
      searchMaxLimit: 100000,
      traversalMaxNodes: 10000,
      traversalMaxIds: 50000,
      nodeMaxIds: 10000,
      rateLimitRequests: 0,
    });
    expect(config.adminToken).toBeUndefined();
  });

  test('when values are bad, then one error names every bad variable', () => {
    const attempt = () => loadConfig({ PORT: 'abc', TRAVERSAL_MAX_NODES: '0', BODY_LIMIT: 'lots', ADMIN_TOKEN: 'short' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/PORT/);
    expect(attempt).toThrow(/TRAVERSAL_MAX_NODES/);
    expect(attempt).toThrow(/BODY_LIMIT/);
    expect(attempt).toThrow(/ADMIN_TOKEN/);
  });

  test('when STORE=neo4j without NEO4J_URI, then start-up is refused naming NEO4J_URI', () => {
    expect(() => loadConfig({ STORE: 'neo4j' })).toThrow(/NEO4J_URI/);
    expect(loadConfig({ STORE: 'neo4j', NEO4J_URI: 'bolt://localhost:7687' }).neo4j.uri).toBe('bolt://localhost:7687');
  });

  test('when the Neo4j pool and call settings are set, then they reach the Neo4j connection; unset, the defaults; zero is refused', () => {
    expect(loadConfig({}).neo4j).toMatchObject({ maxConnectionPoolSize: 100, connectionAcquisitionTimeoutMs: 10000, callTimeoutMs: 30000 });
    const set = loadConfig({ NEO4J_MAX_CONNECTION_POOL_SIZE: '5', NEO4J_CONNECTION_ACQUISITION_TIMEOUT_MS: '250', NEO4J_CALL_TIMEOUT_MS: '3000' });
    expect(set.neo4j).toMatchObject({ maxConnectionPoolSize: 5, connectionAcquisitionTimeoutMs: 250, callTimeoutMs: 3000 });
    expect(() => loadConfig({ NEO4J_MAX_CONNECTION_POOL_SIZE: '0' })).toThrow(/NEO4J_MAX_CONNECTION_POOL_SIZE/);
    expect(() => loadConfig({ NEO4J_CONNECTION_ACQUISITION_TIMEOUT_MS: '0' })).toThrow(/NEO4J_CONNECTION_ACQUISITION_TIMEOUT_MS/);
    expect(() => loadConfig({ NEO4J_CALL_TIMEOUT_MS: '0' })).toThrow(/NEO4J_CALL_TIMEOUT_MS/);
  });

  test('when BENCH_FLOOR_ROUTE is unset, then the floor route is off; true turns it on; anything but a boolean is refused naming it', () => {
    expect(loadConfig({}).benchFloorRoute).toBe(false);
    expect(loadConfig({ BENCH_FLOOR_ROUTE: 'true' }).benchFloorRoute).toBe(true);
    expect(loadConfig({ BENCH_FLOOR_ROUTE: 'false' }).benchFloorRoute).toBe(false);
    expect(() => loadConfig({ BENCH_FLOOR_ROUTE: 'yes' })).toThrow(/BENCH_FLOOR_ROUTE/);
  });

  test('when the connection settings are set, then they reach the server settings; unset, the documented defaults; zero is refused', () => {
    expect(loadConfig({}).connections).toEqual({
      maxConnections: 1024,
      headersTimeoutMs: 10000,
      bodyTimeoutMs: 30000,
      bodyMinBytes: 1024,
      bodyRateWindowMs: 10000,
      idleTimeoutMs: 60000,
      keepAliveTimeoutMs: 5000,
    });
    const set = loadConfig({
      MAX_CONNECTIONS: '20',
      HEADERS_TIMEOUT_MS: '500',
      BODY_TIMEOUT_MS: '700',
      BODY_MIN_BYTES: '10',
      BODY_RATE_WINDOW_MS: '800',
      IDLE_TIMEOUT_MS: '900',
      KEEP_ALIVE_TIMEOUT_MS: '300',
    });
    expect(set.connections).toEqual({
      maxConnections: 20,
      headersTimeoutMs: 500,
      bodyTimeoutMs: 700,
      bodyMinBytes: 10,
      bodyRateWindowMs: 800,
      idleTimeoutMs: 900,
      keepAliveTimeoutMs: 300,
    });
    for (const variable of [
      'MAX_CONNECTIONS',
      'HEADERS_TIMEOUT_MS',
      'BODY_TIMEOUT_MS',
      'BODY_MIN_BYTES',
      'BODY_RATE_WINDOW_MS',
      'IDLE_TIMEOUT_MS',
      'KEEP_ALIVE_TIMEOUT_MS',
    ]) {
      expect(() => loadConfig({ [variable]: '0' })).toThrow(new RegExp(variable));
    }
  });

  test('when a setting exists, then the configuration table of docs/operations.md documents it with its default', () => {
    const guide = fs.readFileSync(path.resolve(__dirname, '..', 'docs', 'operations.md'), 'utf8');
    const table = guide.slice(guide.indexOf('## Configuration'), guide.indexOf('## Running it'));
    for (const setting of describeSettings()) {
      // The row whose first cell names it (another row's text may mention it).
      const row = table.split('\n').find((line) => line.startsWith('|') && (line.split('|')[1] ?? '').includes(`\`${setting.variable}\``));
      expect({ variable: setting.variable, documented: row !== undefined }).toEqual({ variable: setting.variable, documented: true });
      if (setting.default !== undefined) expect(row).toContain(String(setting.default));
    }
  });
});

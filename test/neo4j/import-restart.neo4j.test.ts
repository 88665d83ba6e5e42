// An import on Neo4j whose service process is killed part-way, with another service process on the same database
// (NEO4J_IMPORT_STALE_MS at its least, 15 s): while the importing process lives, its import is left alone however
// long it writes nothing (its lease says it is alive), and the other process answers the customer's requests 503
// import_in_progress too (it reads the import marks every second); once it is killed, the other process undoes it by
// itself, says so in its log, and the customer is empty and takes the import again.
import http from 'node:http';
import neo4j, { type Driver } from 'neo4j-driver';
import { exportBody } from '../helpers/export-body';
import { ADMIN_TOKEN, call, serverFaults, type Service, serviceEnv, startService, stopService, untilReady } from '../helpers/neo4j-services';
import { logged } from '../helpers/server-process';
import { waitFor } from '../helpers/settling';
import { neo4jConnectionFromEnv } from '../helpers/store';

const STALE_MS = 15_000;
const CUSTOMER = 'import-killed';
const SEARCH = { match: { from: { schema: 'member', key: { type: 'member_id', id: 'm-000000' } } } };

describe('an import on Neo4j whose process is killed', () => {
  let driver: Driver;
  let importing: Service;
  let other: Service;

  /** The customer's import mark: seconds since its last batch and since its process last said it is alive, by Neo4j's clock. */
  const mark = async (): Promise<{ sinceBatchS: number; sinceAliveS: number } | undefined> => {
    const { records } = await driver.executeQuery(
      'MATCH (mark:Import {customer: $customer}) OPTIONAL MATCH (lease:ImportLease {customer: $customer}) ' +
        'RETURN duration.inSeconds(mark.touchedAt, datetime.realtime()).seconds AS sinceBatch, duration.inSeconds(lease.aliveAt, datetime.realtime()).seconds AS sinceAlive',
      { customer: CUSTOMER },
    );
    const [row] = records;
    return row ? { sinceBatchS: Number(row.get('sinceBatch')), sinceAliveS: Number(row.get('sinceAlive')) } : undefined;
  };
  const nodes = async (): Promise<number> => {
    const { records } = await driver.executeQuery('MATCH (node:IdNode {customer: $customer}) RETURN count(node) AS nodes', { customer: CUSTOMER });
    return Number(records[0]?.get('nodes'));
  };

  beforeAll(async () => {
    const connection = neo4jConnectionFromEnv();
    driver = neo4j.driver(connection.uri, connection.password === undefined ? undefined : neo4j.auth.basic(connection.username, connection.password));
    const env = serviceEnv(connection, { NEO4J_IMPORT_STALE_MS: String(STALE_MS) });
    [importing, other] = await Promise.all([startService(env), startService(env)]);
    await Promise.all([untilReady(importing, 30_000), untilReady(other, 30_000)]);
  });

  afterAll(async () => {
    expect([...serverFaults(importing), ...serverFaults(other)]).toEqual([]);
    await Promise.all([importing, other].filter(Boolean).map(stopService));
    await driver?.close();
  });

  test(
    'when its process lives, then the other process answers the customer 503 import_in_progress, and leaves the import alone past NEO4J_IMPORT_STALE_MS without a batch; once the process is killed, the other process undoes it, and the customer takes the import again',
    async () => {
      // 12,000 nodes of 2 IDs: several batches (the store's import batch weight), written while the import waits for
      // the rest, which never comes until the process is killed.
      const body = exportBody(12_000);
      const request = http.request(`${importing.base}/v1/${CUSTOMER}/_import`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/x-ndjson', 'Transfer-Encoding': 'chunked' },
      });
      request.on('error', () => undefined);
      request.write(body.text);
      await waitFor('a batch of the import to be written', async () => (await nodes()) > 0, { timeoutMs: 60_000, everyMs: 100 });
      await waitFor(
        'the other process to answer the customer 503 import_in_progress',
        async () => {
          const answer = await call(other.base, 'POST', `/v1/${CUSTOMER}/_search`, { token: ADMIN_TOKEN, body: SEARCH });
          return answer.status === 503 && (answer.json as { code?: string }).code === 'import_in_progress';
        },
        { timeoutMs: 10_000, everyMs: 200 },
      );

      // No batch for longer than the stale time, and for two of the other process's checks (every quarter of it)
      // after: the import is still there, alive.
      await waitFor(
        'the import to write nothing for the stale time and two checks more',
        async () => ((await mark())?.sinceBatchS ?? 0) > 1.5 * (STALE_MS / 1000),
        {
          timeoutMs: 4 * STALE_MS,
          everyMs: 500,
        },
      );
      const alive = await mark();
      expect(alive?.sinceAliveS).toBeLessThan(STALE_MS / 1000);
      // What the batches wrote is all there: nothing was undone. The last lines wait for the batch they start.
      const written = await nodes();
      expect(written).toBeGreaterThan(0);
      expect(written).toBeLessThan(12_000);

      importing.server.child.kill('SIGKILL');
      await importing.server.exited;
      const undone = await logged(other.server, 'undid imports a stopped process left unfinished', 4 * STALE_MS);
      expect(undone).toMatchObject({ level: 'warn', customers: 1 });
      expect(await mark()).toBeUndefined();
      expect(await nodes()).toBe(0);

      const again = await fetch(`${other.base}/v1/${CUSTOMER}/_import`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/x-ndjson' },
        body: body.whole,
      });
      expect(again.status).toBe(200);
      expect(await again.json()).toMatchObject({ nodes: 12_000, ids: 24_000 });
      // Once its import has answered, the process serves the customer at once, whatever marks it read meanwhile.
      expect(await call(other.base, 'POST', `/v1/${CUSTOMER}/_search`, { token: ADMIN_TOKEN, body: SEARCH })).toMatchObject({ status: 200 });
    },
    8 * STALE_MS,
  );
});

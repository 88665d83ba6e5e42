// An export on Neo4j whose service process is killed while it streams, with another service process on the same
// database. The export holds the customer's node writes back while it reads (docs/changes-and-export.md): when its
// process dies, Neo4j ends its transaction with the connection, and the other process's writes go on at once, not
// after NEO4J_EXPORT_TIMEOUT_MS (set here far past the call timeout, so a write that waited for it would answer 503).
// The client's body ends without its `end` line, which is how it knows the export is cut; nothing was written, so
// the other process exports the same lines as before.
import { importMadeUp } from '../helpers/export-body';
import { exportKilledMidStream } from '../helpers/killed-export';
import { ADMIN_TOKEN, call, serverFaults, type Service, serviceEnv, startService, stopService, untilReady } from '../helpers/neo4j-services';
import { neo4jConnectionFromEnv } from '../helpers/store';

const CUSTOMER = 'export-killed';

/** The export's lines but its header, which names the feed's cursor. */
async function exportLines(base: string): Promise<string[]> {
  const res = await fetch(`${base}/v1/${CUSTOMER}/_export?history=true`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.text()).trimEnd().split('\n').slice(1);
}

describe('an export on Neo4j whose process is killed', () => {
  let exporting: Service;
  let other: Service;

  beforeAll(async () => {
    // The export may hold the writes back for an hour: only the end of its process can let them go within a call.
    const env = serviceEnv(neo4jConnectionFromEnv(), { NEO4J_EXPORT_TIMEOUT_MS: '3600000', NEO4J_CALL_TIMEOUT_MS: '30000' });
    [exporting, other] = await Promise.all([startService(env), startService(env)]);
    await Promise.all([untilReady(exporting, 30_000), untilReady(other, 30_000)]);
  });

  afterAll(async () => {
    expect([...serverFaults(exporting), ...serverFaults(other)]).toEqual([]);
    await Promise.all([exporting, other].filter(Boolean).map(stopService));
  });

  test('when the process is killed while an export streams, then the client gets no end line, the other process writes to the customer at once, and exports the same lines as before', async () => {
    // 12,000 nodes whose devices have 1,000-character ids: an export of about 13 MB, more than the sockets' buffers
    // hold, which the client below stops reading after its first chunk, from few vertices to write and delete.
    await importMadeUp(other.base, CUSTOMER, 12_000, ADMIN_TOKEN, 1000);
    const before = await exportLines(other.base);
    expect(JSON.parse(before.at(-1) ?? '{}')).toMatchObject({ kind: 'end' });

    // Mid-stream the export waits on the client, holding the customer's writes back, and its process is killed there.
    const cut = await exportKilledMidStream(`${exporting.base}/v1/${CUSTOMER}/_export?history=true`, ADMIN_TOKEN, exporting.server);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut).not.toContain('"kind":"end"');

    expect(await exportLines(other.base)).toEqual(before);
    const write = await call(other.base, 'POST', `/v1/${CUSTOMER}/node/_create`, {
      token: ADMIN_TOKEN,
      body: { schema: 'member', key: { type: 'member_id', id: 'after-the-kill' } },
      timeoutMs: 60_000,
    });
    expect(write.status).toBe(201);
  }, 180_000);
});

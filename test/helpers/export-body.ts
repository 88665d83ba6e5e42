// An export as `_export` writes one, made up for the tests that import many nodes: `nodes` nodes of schema `member`,
// each keyed by a member_id and holding one device, whose id is `deviceLength` characters long when that is given
// (an export of many bytes from few nodes).
const member = (id: string) => ({ type: 'member_id', id });

export interface ExportBody {
  /** The NDJSON, without its end line: what an import reads before the rest of a body comes. */
  text: string;
  /** The line count the end line gives. */
  lines: number;
  /** The whole export, its end line included. */
  whole: string;
}

export function exportBody(nodes: number, deviceLength?: number): ExportBody {
  const device = (i: number) => (deviceLength === undefined ? `d-${i}` : `d-${i}-`.padEnd(deviceLength, 'x'));
  const lines = [
    { kind: 'export', format: 1, customer_id: 'src', cursor: 'c1-aaaaaaaaaaaaaaaa' },
    { kind: 'settings', require_token: false, timezone: 'UTC' },
    { kind: 'blocklist', rules: [] },
    {
      kind: 'schema',
      schema_id: 'member',
      id_types: [
        { type: 'member_id', secure: false, links: true },
        { type: 'device', secure: false, links: true },
      ],
    },
    ...Array.from({ length: nodes }, (_, i) => ({
      kind: 'node',
      schema: 'member',
      key: member(`m-${String(i).padStart(6, '0')}`),
      ids: [{ type: 'device', id: device(i) }],
    })),
    { kind: 'delivery_ids', delivery: 0, condition: 0, message: 0 },
  ];
  const text = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
  return { text, lines: lines.length, whole: `${text}${JSON.stringify({ kind: 'end', lines: lines.length })}\n` };
}

/** Imports exportBody(nodes, deviceLength) into `customer` of the service at `base`, as the administrator, and expects it taken. */
export async function importMadeUp(base: string, customer: string, nodes: number, adminToken: string, deviceLength?: number): Promise<void> {
  const imported = await fetch(`${base}/v1/${customer}/_import`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/x-ndjson' },
    body: exportBody(nodes, deviceLength).whole,
  });
  expect(imported.status).toBe(200);
}

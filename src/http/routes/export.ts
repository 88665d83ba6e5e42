// GET /v1/{customer_id}/_export (docs/changes-and-export.md): the customer's snapshot as NDJSON, written as the store
// reads it, a page at a time, and only as fast as the client takes it.
import type { RequestHandler, Router } from 'express';
import type { ExportService } from '../../domain/export';
import type { SnapshotPart } from '../../domain/ports/snapshots';
import type { components } from '../../generated/openapi';
import { callerOf } from '../auth';
import { deliveryBody } from '../delivery-bodies';
import { historyEntryBody, separatedNodeBody } from '../history-bodies';
import { defaulted, operation, type Validators } from '../operation';
import { blockRuleBody, idTypeBody, settingsBody } from '../protection-bodies';
import { caseSensitiveRouter } from '../router';
import { abandonment, drained } from '../streaming';

type Line = components['schemas']['ExportLine'];

/** The lines of one part of the snapshot (also what `npm run migrate` compares: src/migrate.ts). */
export function linesOf(part: SnapshotPart): Line[] {
  switch (part.kind) {
    case 'settings':
      return [{ kind: 'settings', ...settingsBody(part.settings) }];
    case 'blocklist':
      return [{ kind: 'blocklist', rules: part.rules.map(blockRuleBody) }];
    case 'schemas':
      return part.schemas.map((s) => ({ kind: 'schema', schema_id: s.schemaId, id_types: s.idTypes.map(idTypeBody) }));
    case 'nodes':
      return part.nodes.map((n) => ({ kind: 'node', schema: n.schemaId, key: n.key, ids: n.ids }));
    case 'separations':
      return part.separations.map((s) => ({ kind: 'separation', nodes: [separatedNodeBody(s.a), separatedNodeBody(s.b)] }));
    case 'deliveryIds':
      return [{ kind: 'delivery_ids', ...part.given }];
    case 'deliveries':
      return part.deliveries.map((d) => ({ kind: 'delivery', delivery: deliveryBody(d) }));
    case 'impressions':
      return part.tallies.map((t) => ({ kind: 'impressions', id: t.id, delivery_id: t.deliveryId, days: t.days }));
    case 'history':
      return part.keys.map((k) => ({ kind: 'history', schema: k.schemaId, key: k.key, entries: k.entries.map(historyEntryBody) }));
  }
}

export function exportRoutes(validators: Validators, bearer: RequestHandler, exports: ExportService): Router {
  const router = caseSensitiveRouter();
  router.get(
    '/v1/:customer_id/_export',
    bearer,
    operation(validators, 'exportCustomer', async ({ params, query }, req, res) => {
      const signal = abandonment(req, res);
      // Errors until here (a token, EXPORTS_MAX_RUNNING, the store) are problem answers; after the first line, a
      // failure cuts the answer, which then lacks its end line.
      const opened = await exports.open(callerOf(res), params.customer_id, { history: defaulted(query.history, 'history') });
      let lines = 0;
      const send = async (batch: Line[]) => {
        if (batch.length === 0) return;
        lines += batch.length;
        if (!res.write(batch.map((line) => `${JSON.stringify(line)}\n`).join(''))) await drained(res, signal);
      };
      try {
        // A client gone while the snapshot opened: nothing is written for it.
        if (signal.aborted) return;
        res.status(200).set({ 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store' });
        await send([{ kind: 'export', format: 1, customer_id: params.customer_id, cursor: opened.cursor }]);
        for await (const part of opened.parts) {
          if (signal.aborted) break;
          await send(linesOf(part));
        }
        if (signal.aborted) return;
        res.end(`${JSON.stringify({ kind: 'end', lines } satisfies Line)}\n`);
      } catch {
        // The store failed mid-way (Neo4j's transaction timed out, say): the client sees the answer end without its
        // end line, which is how it knows the export is incomplete.
        res.destroy();
      } finally {
        await opened.close();
      }
    }),
  );
  return router;
}

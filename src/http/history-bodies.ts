// History entries and separated nodes on the wire: what _history, _separate and an export's lines show.
import type { HistoryEntry, NodeRef } from '../domain/model';
import type { components } from '../generated/openapi';

export const historyEntryBody = (e: HistoryEntry): components['schemas']['HistoryEntry'] => ({
  at: e.at,
  request_id: e.requestId,
  actor: e.actor,
  op: e.op,
  schema: e.schema,
  key: e.key,
  added: e.added,
  removed: e.removed,
});

export const separatedNodeBody = (n: NodeRef): components['schemas']['SeparatedNode'] => ({ schema: n.schemaId, key: n.key });

/** An entry as a line of an export carries it (`_import`), as the domain has it. */
export const historyEntryOf = (e: components['schemas']['HistoryEntry']): HistoryEntry => ({
  at: e.at,
  requestId: e.request_id,
  actor: e.actor,
  op: e.op,
  schema: e.schema,
  key: e.key,
  added: e.added,
  removed: e.removed,
});

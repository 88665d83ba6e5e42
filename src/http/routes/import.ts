// POST /v1/{customer_id}/_import (docs/changes-and-export.md): an export's NDJSON, read a line at a time (gzip
// inflated as it comes), each line checked against the contract: a line that stands for a write by the body of that
// write's operation (a schema line as PUT …/schema/{id} takes it, a node as _create does, a delivery as POST
// /v1/delivery does), the others by their ExportLine schema. The domain (src/domain/import.ts) checks the rest and
// writes them.
import type { Readable } from 'node:stream';
import type { RequestHandler, Router } from 'express';
import type { ValidateFunction } from 'ajv';
import { assembleDelivery } from '../../domain/deliveries';
import { DomainError, isDomainError } from '../../domain/errors';
import type { ImportLine, ImportRecord, ImportService } from '../../domain/import';
import { canonicalDeclaration } from '../../domain/model';
import type { components } from '../../generated/openapi';
import { callerOf } from '../auth';
import { requireAdmin } from '../../domain/tokens';
import { contentEncoding, inflatedBody } from '../compressed-body';
import { draftOf } from '../delivery-bodies';
import { historyEntryOf } from '../history-bodies';
import { NDJSON } from '../middleware';
import { type Contract, contractAjv, detachObject, isJsonObject, type JsonObject } from '../openapi';
import { operation, type OperationId, type RequestBody, validatedBody, type Validators } from '../operation';
import { sendProblem } from '../problem';
import { toBlockRule, toDeclaration } from '../protection-bodies';
import { caseSensitiveRouter } from '../router';
import { brokenUnicode } from '../well-formed';
import { ndjsonLines } from './bulk';

type Schemas = components['schemas'];

/**
 * Checks of a line against an ExportLine schema, `lineCheck<T>(name)` a check each, compiled when first used; a line
 * that fails is invalid_import naming its first problem (a path and a message, never a value).
 */
function lineChecks(contract: Contract) {
  let ajv: ReturnType<typeof contractAjv> | undefined;
  const component = (name: keyof Schemas): JsonObject => {
    const schemas = contract.document.components.schemas;
    const schema = isJsonObject(schemas) ? schemas[name] : undefined;
    if (!isJsonObject(schema)) throw new Error(`openapi.yaml has no schema ${name}`);
    return detachObject(schema);
  };
  return <T>(name: keyof Schemas) => {
    let validate: ValidateFunction<T> | undefined;
    return (line: JsonObject): T => {
      validate ??= (ajv ??= contractAjv(contract)).compile<T>(component(name));
      if (validate(line)) return line;
      const [first] = validate.errors ?? [];
      throw lineProblem(
        `the ${String(line.kind)} line does not match ${name}: ${first ? `${first.instancePath || '/'} ${first.message ?? 'is invalid'}` : 'is invalid'}`,
      );
    };
  };
}

const lineProblem = (why: string) => new DomainError('invalid_import', why);

/** The first problem a validation found, as words: its path in the line and its message (never a value). */
function firstProblem(e: unknown): string {
  if (isDomainError(e)) {
    const [first] = e.errors ?? [];
    return first ? `${first.path.replace(/^\/body/, '') || '/'} ${first.message}` : e.message;
  }
  throw e;
}

export function importRoutes(
  validators: Validators,
  bearer: RequestHandler,
  imports: ImportService,
  contract: Contract,
  limits: { maxLineBytes: number },
): Router {
  const router = caseSensitiveRouter();
  const lineCheck = lineChecks(contract);
  const shaped = {
    header: lineCheck<Schemas['ExportHeaderLine']>('ExportHeaderLine'),
    settings: lineCheck<Schemas['ExportSettingsLine']>('ExportSettingsLine'),
    schema: lineCheck<Schemas['ExportSchemaLine']>('ExportSchemaLine'),
    node: lineCheck<Schemas['ExportNodeLine']>('ExportNodeLine'),
    separation: lineCheck<Schemas['ExportSeparationLine']>('ExportSeparationLine'),
    deliveryIds: lineCheck<Schemas['ExportDeliveryIdsLine']>('ExportDeliveryIdsLine'),
    delivery: lineCheck<Schemas['ExportDeliveryLine']>('ExportDeliveryLine'),
    impressions: lineCheck<Schemas['ExportImpressionsLine']>('ExportImpressionsLine'),
    history: lineCheck<Schemas['ExportHistoryLine']>('ExportHistoryLine'),
    end: lineCheck<Schemas['ExportEndLine']>('ExportEndLine'),
  };
  /** `body` checked as the write `operationId` would check it. */
  const asWrite = <Op extends OperationId>(kind: string, operationId: Op, params: Record<string, string>, body: unknown): RequestBody<Op> => {
    try {
      return validatedBody(validators, operationId, params, body);
    } catch (e) {
      throw lineProblem(`the ${kind} line is not what ${operationId} takes: ${firstProblem(e)}`);
    }
  };

  /** One line's record; throws invalid_import (without the line's number: the domain adds it). */
  const recordOf = (customerId: string, text: string): ImportRecord => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw lineProblem('the line is not JSON');
    }
    if (brokenUnicode(parsed, '/line').length > 0) throw lineProblem('the line holds text that is not well-formed Unicode');
    if (!isJsonObject(parsed) || typeof parsed.kind !== 'string') throw lineProblem('a line is an object with a kind');
    const params = { customer_id: customerId };
    const { kind, ...rest } = parsed;
    switch (kind) {
      case 'export':
        return { kind, format: shaped.header(parsed).format };
      case 'settings': {
        shaped.settings(parsed);
        const body = asWrite(kind, 'putSettings', params, rest);
        return { kind, settings: { requireToken: body.require_token ?? false, timezone: body.timezone ?? 'UTC' } };
      }
      case 'blocklist': {
        const body = asWrite(kind, 'putBlocklist', params, rest);
        return { kind, rules: body.rules.map(toBlockRule) };
      }
      case 'schema': {
        const line = shaped.schema(parsed);
        const body = asWrite(kind, 'putSchema', { ...params, schema_id: line.schema_id }, { id_types: line.id_types });
        return { kind, schema: { schemaId: line.schema_id, idTypes: body.id_types.map((t) => canonicalDeclaration({ secure: false, ...toDeclaration(t) })) } };
      }
      case 'node': {
        // _create's body but for its 1,000 IDs a request: a node reaches NODE_MAX_IDS (the domain's check) by several.
        const line = shaped.node(parsed);
        return { kind, node: { schemaId: line.schema, key: line.key, ids: line.ids } };
      }
      case 'separation': {
        const line = shaped.separation(parsed);
        const body = asWrite(kind, 'separateNodes', params, { nodes: line.nodes, remove_shared_from: 'none' });
        const [a, b] = body.nodes;
        if (!a || !b) throw lineProblem('a separation names two nodes');
        return { kind, separation: { a: { schemaId: a.schema, key: a.key }, b: { schemaId: b.schema, key: b.key } } };
      }
      case 'delivery_ids': {
        const line = shaped.deliveryIds(parsed);
        return { kind: 'deliveryIds', given: { delivery: line.delivery, condition: line.condition, message: line.message } };
      }
      case 'delivery': {
        const { delivery: d } = shaped.delivery(parsed);
        const input = asWrite(kind, 'createDelivery', {}, d);
        const c = d.condition;
        const delivery = assembleDelivery(draftOf(input), {
          deliveryId: d.delivery_id,
          conditionId: c.condition_id,
          messageIds: d.message.map((m) => m.message_id),
          counts: { deliveryCount: c.delivery_count, iphoneDeliveryCount: c.iphone_delivery_count, androidDeliveryCount: c.android_delivery_count },
        });
        return { kind, delivery };
      }
      case 'impressions': {
        const line = shaped.impressions(parsed);
        return { kind, tally: { deliveryId: line.delivery_id, id: line.id, days: line.days } };
      }
      case 'history': {
        const line = shaped.history(parsed);
        const entries = line.entries.map(historyEntryOf);
        return { kind, history: { schemaId: line.schema, key: line.key, entries } };
      }
      case 'end':
        return { kind, lines: shaped.end(parsed).lines };
      default:
        throw lineProblem('the line has a kind no export writes');
    }
  };

  /** The body's lines, each as a record or the refusal of its shape. */
  async function* linesOf(customerId: string, body: Readable): AsyncGenerator<ImportLine> {
    for await (const line of ndjsonLines(body, limits.maxLineBytes, { bytes: 0 }, true)) {
      if ('tooLarge' in line) {
        yield { number: line.number, refused: lineProblem(`a line may hold at most ${limits.maxLineBytes} bytes`) };
        continue;
      }
      const { text, bytes } = line;
      line.text = '';
      try {
        yield { number: line.number, record: recordOf(customerId, text), bytes };
      } catch (e) {
        if (!isDomainError(e)) throw e;
        yield { number: line.number, refused: e };
      }
    }
  }

  router.post(
    '/v1/:customer_id/_import',
    bearer,
    operation(validators, 'importCustomer', async ({ params }, req, res) => {
      // Who asks first: an import is the administrator's, whatever it sends.
      requireAdmin(callerOf(res));
      if (!req.is(NDJSON)) {
        sendProblem(res, 'unsupported_media_type', `Send the export as ${NDJSON}.`);
        return;
      }
      const encoding = contentEncoding(req);
      if (encoding !== 'identity' && encoding !== 'gzip') {
        sendProblem(res, 'unsupported_media_type', 'Send the export uncompressed, or with Content-Encoding: gzip.');
        return;
      }
      // The client gone before its answer: the import stops and is undone. (Not abandonment(): a request whose body
      // has been read whole closes, and that is no client going away.)
      const gone = new AbortController();
      res.once('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      const { signal } = gone;
      let counts;
      const body = inflatedBody(req);
      try {
        counts = await imports.import(callerOf(res), params.customer_id, linesOf(params.customer_id, body), signal);
      } catch (e) {
        // zlib's codes: the gzip is broken or cut short.
        const code = typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : '';
        if (code.startsWith('Z_')) throw new DomainError('invalid_import', 'The body is not valid gzip: the export is cut or damaged.');
        throw e;
      } finally {
        // What the import did not read stays unread: the inflater stops (the answer closes the connection).
        if (body !== req) body.destroy();
      }
      if (signal.aborted) return;
      res.json({
        schemas: counts.schemas,
        nodes: counts.nodes,
        ids: counts.ids,
        separations: counts.separations,
        deliveries: counts.deliveries,
        history_entries: counts.historyEntries,
      });
    }),
  );
  return router;
}

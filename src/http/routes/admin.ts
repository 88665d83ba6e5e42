// Administrator endpoints: schemas (which ID types nodes may hold) and customer tokens.
import { type RequestHandler, type Router } from 'express';
import type { SchemaRecord, TokenKind, TokenRecord } from '../../domain/model';
import type { SchemaService } from '../../domain/schemas';
import { type TokenService, requireAdmin } from '../../domain/tokens';
import { callerOf } from '../auth';
import { operation, type Validators } from '../operation';
import { caseSensitiveRouter } from '../router';

const schemaBody = (s: SchemaRecord) => ({ schema_id: s.schemaId, id_types: s.idTypes.map((t) => ({ type: t.type, secure: t.secure })) });
const tokenBody = (t: TokenRecord) => ({ token_id: t.tokenId, kind: t.kind, label: t.label, created_at: t.createdAt });

interface Params {
  customer_id: string;
  schema_id: string;
  token_id: string;
}

export function adminRoutes(validators: Validators, bearer: RequestHandler, schemas: SchemaService, tokens: TokenService): Router {
  const router = caseSensitiveRouter();
  const admin = (id: string, handler: Parameters<typeof operation>[2]) =>
    operation(validators, id, async (input, req, res) => {
      requireAdmin(callerOf(res));
      await handler(input, req, res);
    });

  router.get(
    '/v1/:customer_id/schema',
    bearer,
    admin('listSchemas', async ({ params }, _req, res) => {
      const list = await schemas.list((params as Params).customer_id);
      res.json(list.map(schemaBody));
    }),
  );
  router.put(
    '/v1/:customer_id/schema/:schema_id',
    bearer,
    admin('putSchema', async ({ params, body }, _req, res) => {
      const { customer_id, schema_id } = params as Params;
      const { id_types } = body as { id_types: Array<{ type: string; secure?: boolean }> };
      const { created } = await schemas.put(customer_id, schema_id, id_types);
      res.status(created ? 201 : 200).json(schemaBody(await schemas.get(customer_id, schema_id)));
    }),
  );
  router.get(
    '/v1/:customer_id/schema/:schema_id',
    bearer,
    admin('getSchema', async ({ params }, _req, res) => {
      const { customer_id, schema_id } = params as Params;
      res.json(schemaBody(await schemas.get(customer_id, schema_id)));
    }),
  );
  router.delete(
    '/v1/:customer_id/schema/:schema_id',
    bearer,
    admin('deleteSchema', async ({ params }, _req, res) => {
      const { customer_id, schema_id } = params as Params;
      await schemas.delete(customer_id, schema_id);
      res.status(204).end();
    }),
  );

  router.post(
    '/v1/:customer_id/token',
    bearer,
    admin('createToken', async ({ params, body }, _req, res) => {
      const { kind, label } = body as { kind: TokenKind; label?: string };
      const issued = await tokens.issue((params as Params).customer_id, kind, label ?? null);
      res.status(201).json({ ...tokenBody(issued), token: issued.token });
    }),
  );
  router.get(
    '/v1/:customer_id/token',
    bearer,
    admin('listTokens', async ({ params }, _req, res) => {
      res.json((await tokens.list((params as Params).customer_id)).map(tokenBody));
    }),
  );
  router.delete(
    '/v1/:customer_id/token/:token_id',
    bearer,
    admin('revokeToken', async ({ params }, _req, res) => {
      const { customer_id, token_id } = params as Params;
      await tokens.revoke(customer_id, token_id);
      res.status(204).end();
    }),
  );
  return router;
}

// Administrator endpoints: schemas (which ID types nodes may hold), customer tokens, settings and blocked values.
import { type RequestHandler, type Router } from 'express';
import type { CustomerSettingsService } from '../../domain/customer-settings';
import type { TokenRecord } from '../../domain/model';
import type { SchemaService } from '../../domain/schemas';
import { type TokenService, requireAdmin } from '../../domain/tokens';
import { callerOf } from '../auth';
import { operation, type OperationHandler, type OperationId, type Validators } from '../operation';
import { blockRuleBody, schemaBody, settingsBody, toBlockRule, toDeclaration } from '../protection-bodies';
import { caseSensitiveRouter } from '../router';

const tokenBody = (t: TokenRecord) => ({ token_id: t.tokenId, kind: t.kind, label: t.label, created_at: t.createdAt });

export function adminRoutes(
  validators: Validators,
  bearer: RequestHandler,
  schemas: SchemaService,
  tokens: TokenService,
  customers: CustomerSettingsService,
): Router {
  const router = caseSensitiveRouter();
  const admin = <Op extends OperationId>(id: Op, handler: OperationHandler<Op>) =>
    operation(validators, id, async (input, req, res) => {
      requireAdmin(callerOf(res));
      await handler(input, req, res);
    });

  router.get(
    '/v1/:customer_id/schema',
    bearer,
    admin('listSchemas', async ({ params }, _req, res) => {
      const list = await schemas.list(params.customer_id);
      res.json(list.map(schemaBody));
    }),
  );
  router.put(
    '/v1/:customer_id/schema/:schema_id',
    bearer,
    admin('putSchema', async ({ params, body }, _req, res) => {
      const { customer_id, schema_id } = params;
      const { id_types } = body;
      const { created } = await schemas.put(customer_id, schema_id, id_types.map(toDeclaration));
      res.status(created ? 201 : 200).json(schemaBody(await schemas.get(customer_id, schema_id)));
    }),
  );
  router.get(
    '/v1/:customer_id/schema/:schema_id',
    bearer,
    admin('getSchema', async ({ params }, _req, res) => {
      const { customer_id, schema_id } = params;
      res.json(schemaBody(await schemas.get(customer_id, schema_id)));
    }),
  );
  router.delete(
    '/v1/:customer_id/schema/:schema_id',
    bearer,
    admin('deleteSchema', async ({ params }, _req, res) => {
      const { customer_id, schema_id } = params;
      await schemas.delete(customer_id, schema_id);
      res.status(204).end();
    }),
  );

  router.post(
    '/v1/:customer_id/token',
    bearer,
    admin('createToken', async ({ params, body }, _req, res) => {
      const { kind, label } = body;
      const issued = await tokens.issue(params.customer_id, kind, label ?? null);
      res.status(201).json({ ...tokenBody(issued), token: issued.token });
    }),
  );
  router.get(
    '/v1/:customer_id/token',
    bearer,
    admin('listTokens', async ({ params }, _req, res) => {
      res.json((await tokens.list(params.customer_id)).map(tokenBody));
    }),
  );
  router.delete(
    '/v1/:customer_id/token/:token_id',
    bearer,
    admin('revokeToken', async ({ params }, _req, res) => {
      const { customer_id, token_id } = params;
      await tokens.revoke(customer_id, token_id);
      res.status(204).end();
    }),
  );

  router.get(
    '/v1/:customer_id/settings',
    bearer,
    admin('getSettings', async ({ params }, _req, res) => {
      res.json(settingsBody(await customers.settings(params.customer_id)));
    }),
  );
  router.put(
    '/v1/:customer_id/settings',
    bearer,
    admin('putSettings', async ({ params, body }, _req, res) => {
      const { require_token, timezone } = body;
      const stored = await customers.putSettings(params.customer_id, {
        ...(require_token !== undefined ? { requireToken: require_token } : {}),
        ...(timezone !== undefined ? { timezone } : {}),
      });
      res.json(settingsBody(stored));
    }),
  );

  router.get(
    '/v1/:customer_id/blocklist',
    bearer,
    admin('getBlocklist', async ({ params }, _req, res) => {
      res.json({ rules: (await customers.blocklist(params.customer_id)).map(blockRuleBody) });
    }),
  );
  router.put(
    '/v1/:customer_id/blocklist',
    bearer,
    admin('putBlocklist', async ({ params, body }, _req, res) => {
      const { rules } = body;
      const stored = await customers.putBlocklist(params.customer_id, rules.map(toBlockRule));
      res.json({ rules: stored.map(blockRuleBody) });
    }),
  );
  return router;
}

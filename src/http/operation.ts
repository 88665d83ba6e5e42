// Binds a route to its operation in openapi.yaml: the request is validated against the contract before the
// handler runs, and the customer is recorded for the access log. The handler gets the request's parts typed by
// src/generated/openapi.ts, the types generated from the same operation.
import type { Request, RequestHandler, Response } from 'express';
import type { operations } from '../generated/openapi';
import { isJsonObject, type RequestParts, type RequestValidator } from './openapi';

export type Validators = Map<string, RequestValidator>;

export type OperationId = keyof operations;

/** The JSON body of an operation as the contract types it; undefined for an operation without one. */
export type RequestBody<Op extends OperationId> = operations[Op] extends { requestBody: { content: { 'application/json': infer B } } } ? B : undefined;

/** A request's path parameters, query and body once the contract's validator has accepted them. */
export interface OperationInput<Op extends OperationId> {
  params: NonNullable<operations[Op]['parameters']['path']>;
  query: NonNullable<operations[Op]['parameters']['query']>;
  body: RequestBody<Op>;
}

export type OperationHandler<Op extends OperationId> = (input: OperationInput<Op>, req: Request, res: Response) => Promise<void> | void;

/** The one place validated parts take their operation's types: Ajv has just checked them against its schemas. */
const typed = <Op extends OperationId>(parts: RequestParts): OperationInput<Op> => parts as OperationInput<Op>;

export function operation<Op extends OperationId>(validators: Validators, operationId: Op, handler: OperationHandler<Op>): RequestHandler {
  const validate = validators.get(operationId);
  if (!validate) throw new Error(`openapi.yaml has no operation '${operationId}'`);
  return async (req, res) => {
    const input = validate({ params: { ...req.params }, query: { ...req.query }, body: req.body });
    res.locals.operationId = operationId;
    const customerId = isJsonObject(input.params) ? input.params.customer_id : undefined;
    if (typeof customerId === 'string') res.locals.customerId = customerId;
    await handler(typed<Op>(input), req, res);
  };
}

/** Checks a body against operation `operationId` of the contract (a `_bulk` line), and returns it typed. */
export function validatedBody<Op extends OperationId>(validators: Validators, operationId: Op, params: Record<string, string>, body: unknown): RequestBody<Op> {
  const validate = validators.get(operationId);
  if (!validate) throw new Error(`openapi.yaml has no operation '${operationId}'`);
  return typed<Op>(validate({ params, query: {}, body })).body;
}

/**
 * A query value the contract gives a `default:`: the validator fills it in (Ajv's useDefaults), though the
 * generated types, made for clients, leave it optional.
 */
export function defaulted<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`openapi.yaml gives ${name} no default`);
  return value;
}

// Loads openapi.yaml once and compiles its schemas with Ajv: the contract is the only copy of every schema.
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { load } from 'js-yaml';
import { DomainError, type FieldProblem } from '../domain/errors';
import { brokenUnicode } from './well-formed';

// src/http and dist/http are both two levels below the project root.
export const CONTRACT_PATH = path.resolve(__dirname, '..', '..', 'openapi.yaml');
const CONTRACT_ID = 'urn:idlink:openapi';
/** A schema's message for a value that does not match its `pattern` (an OpenAPI extension keyword). */
const PATTERN_MESSAGE = 'x-pattern-message';

export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: JsonObject;
}

const PARAMETER_PLACES: ReadonlyArray<unknown> = ['path', 'query', 'header', 'cookie'];

const isParameterObject = (value: unknown): value is ParameterObject =>
  isJsonObject(value) &&
  typeof value.name === 'string' &&
  PARAMETER_PLACES.includes(value.in) &&
  (value.required === undefined || typeof value.required === 'boolean') &&
  isJsonObject(value.schema);

interface OperationObject {
  operationId: string;
  parameters?: Array<ParameterObject | { $ref: string }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonObject }> };
  responses: Record<string, unknown>;
}

export interface Contract {
  document: JsonObject & { paths: Record<string, Record<string, OperationObject>>; components: JsonObject };
  text: string;
}

const loaded = new Map<string, Contract>();

/**
 * The contract in `file`, parsed once per process (js-yaml, YAML 1.2's core schema, about 70 ms for openapi.yaml on
 * a fresh process): every caller shares it, and none changes it.
 */
export function loadContract(file = CONTRACT_PATH): Contract {
  const known = loaded.get(file);
  if (known) return known;
  const text = fs.readFileSync(file, 'utf8');
  // openapi.yaml ships with the service, and test/openapi-lint.test.ts holds it to OpenAPI 3.1 (Redocly): the shape
  // is the file's, checked before release, not a client's input.
  const contract: Contract = { document: load(text) as Contract['document'], text };
  loaded.set(file, contract);
  return contract;
}

/** The value a JSON pointer (`#/components/…`, split at its slashes) names in the contract, if any. */
function pointed(contract: Contract, pointer: string[]): unknown {
  return pointer.reduce<unknown>((at, key) => (isJsonObject(at) ? at[key] : undefined), contract.document);
}

/** An Ajv that knows every component schema under `urn:idlink:openapi#/components/schemas/…`. */
export function contractAjv(contract: Contract, options: { coerceTypes?: boolean; useDefaults?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, ...options });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'components' });
  ajv.addKeyword({ keyword: PATTERN_MESSAGE, schemaType: 'string' });
  ajv.addSchema({ $id: CONTRACT_ID, components: { schemas: contract.document.components.schemas } });
  return ajv;
}

/** Rewrites local refs (`#/components/…`) so a schema taken out of the document still resolves them. */
export function detach(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(detach);
  return isJsonObject(schema) ? detachObject(schema) : schema;
}

export function detachObject(schema: JsonObject): JsonObject {
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? CONTRACT_ID + v : detach(v)]),
  );
}

/** A parameter, or the one its `$ref` names; a ref to anything else is a broken contract. */
function resolveParameter(contract: Contract, node: ParameterObject | { $ref: string }): ParameterObject {
  if (!('$ref' in node)) return node;
  const found = pointed(contract, node.$ref.replace(/^#\//, '').split('/'));
  if (!isParameterObject(found)) throw new Error(`openapi.yaml: ${node.$ref} is not a parameter.`);
  return found;
}

export function* operations(contract: Contract): Generator<{ path: string; method: string; operation: OperationObject }> {
  for (const [p, item] of Object.entries(contract.document.paths)) {
    for (const [method, operation] of Object.entries(item)) yield { path: p, method, operation };
  }
}

export interface RequestParts {
  params: unknown;
  query: unknown;
  body: unknown;
}

/** Checks the parts and returns them with defaults applied and query/path values coerced to their types. */
export type RequestValidator = (parts: RequestParts) => RequestParts;

/** The `x-pattern-message` of the component schema whose `pattern` failed, if it has one. */
function patternMessage(contract: Contract, error: ErrorObject): string | undefined {
  // Ajv names a component's keywords relative to the document that holds it: `#/components/schemas/…`.
  const inComponent = /^(?:urn:idlink:openapi)?#\/(components\/.*)\/pattern$/.exec(error.schemaPath)?.[1];
  if (inComponent === undefined) return undefined;
  const schema = pointed(contract, inComponent.split('/'));
  const message = isJsonObject(schema) ? schema[PATTERN_MESSAGE] : undefined;
  return typeof message === 'string' ? message : undefined;
}

/** A parameter of an Ajv error (`additionalProperty`, `missingProperty`), as text. */
function errorParam(error: ErrorObject, name: string): string {
  const value: unknown = error.params[name];
  return String(value);
}

function toProblems(contract: Contract, location: string, errors: ErrorObject[] | null | undefined): FieldProblem[] {
  return (errors ?? []).map((e) => {
    const at = `/${location}${e.instancePath}`;
    if (e.keyword === 'additionalProperties') {
      return { path: `${at}/${errorParam(e, 'additionalProperty')}`, message: 'is not an allowed field' };
    }
    if (e.keyword === 'required') return { path: `${at}/${errorParam(e, 'missingProperty')}`, message: 'is required' };
    // The contract uses `not` for reserved values only (the customer id `delivery`, which names /v1/delivery).
    if (e.keyword === 'not') return { path: at, message: 'is a reserved name; choose another' };
    if (e.keyword === 'pattern') return { path: at, message: patternMessage(contract, e) ?? e.message ?? 'is invalid' };
    return { path: at, message: e.message ?? 'is invalid' };
  });
}

// Ajv's coercion would take ' 5', '1e1' or '0x10' for 5, 10 and 16; integers in a URL must be plain digits.
// Too many digits coerce to Infinity, which Ajv's minimum and maximum then let through: refused here too.
const PLAIN_INTEGER = /^(0|-?[1-9][0-9]*)$/;
const plainFiniteInteger = (text: string): boolean => PLAIN_INTEGER.test(text) && Number.isFinite(Number(text));

function nonDecimalIntegers(location: string, parameters: ParameterObject[], values: unknown): FieldProblem[] {
  const given = isJsonObject(values) ? values : {};
  return parameters.flatMap((p) => {
    const text = given[p.name];
    if (p.schema.type !== 'integer' || typeof text !== 'string' || plainFiniteInteger(text)) return [];
    return [{ path: `/${location}/${p.name}`, message: PLAIN_INTEGER.test(text) ? 'is out of range' : 'must be an integer written in decimal digits' }];
  });
}

function objectSchema(parameters: ParameterObject[]): object {
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(parameters.map((p) => [p.name, detach(p.schema)])),
    required: parameters.filter((p) => p.required).map((p) => p.name),
  };
}

/**
 * One validator per operationId, checking path parameters, query string and body together. Each compiles its schemas
 * with Ajv when it is first called: compiling all of them took about half a second at every start, most of it for
 * operations a process may never serve. test/http/request-validators.test.ts compiles every one, so a schema Ajv
 * refuses fails there, not at a first request.
 */
export function buildRequestValidators(contract: Contract): Map<string, RequestValidator> {
  let ajvs: { bodies: Ajv2020; strings: Ajv2020 } | undefined;
  const ajv = () =>
    (ajvs ??= {
      bodies: contractAjv(contract, { useDefaults: true }),
      // Query strings and path segments arrive as text: coerce them to the declared types, never clamp.
      strings: contractAjv(contract, { coerceTypes: true, useDefaults: true }),
    });
  const validators = new Map<string, RequestValidator>();
  for (const { operation } of operations(contract)) {
    const parameters = (operation.parameters ?? []).map((p) => resolveParameter(contract, p));
    const pathParameters = parameters.filter((p) => p.in === 'path');
    const queryParameters = parameters.filter((p) => p.in === 'query');
    const bodySchema = operation.requestBody?.content['application/json']?.schema;
    let compiled: { checkParams: ValidateFunction; checkQuery: ValidateFunction; checkBody: ValidateFunction | undefined } | undefined;
    const checks = () =>
      (compiled ??= {
        checkParams: ajv().strings.compile(objectSchema(pathParameters)),
        checkQuery: ajv().strings.compile(objectSchema(queryParameters)),
        checkBody: bodySchema ? ajv().bodies.compile(detachObject(bodySchema)) : undefined,
      });
    validators.set(operation.operationId, (parts) => {
      const { checkParams, checkQuery, checkBody } = checks();
      // First and alone: the contract's own messages could repeat a broken field name.
      const broken = [...brokenUnicode(parts.params, '/path'), ...brokenUnicode(parts.query, '/query'), ...brokenUnicode(parts.body, '/body')];
      if (broken.length > 0) throw new DomainError('validation_failed', 'Text must be well-formed Unicode; see errors.', broken);
      const problems: FieldProblem[] = [
        ...nonDecimalIntegers('path', pathParameters, parts.params),
        ...nonDecimalIntegers('query', queryParameters, parts.query),
      ];
      if (problems.length === 0) {
        if (!checkParams(parts.params)) problems.push(...toProblems(contract, 'path', checkParams.errors));
        if (!checkQuery(parts.query)) problems.push(...toProblems(contract, 'query', checkQuery.errors));
      }
      if (checkBody) {
        if (parts.body === undefined) problems.push({ path: '/body', message: 'a JSON body is required' });
        else if (!checkBody(parts.body)) problems.push(...toProblems(contract, 'body', checkBody.errors));
      }
      if (problems.length > 0) throw new DomainError('validation_failed', 'The request does not match the contract; see errors.', problems);
      return parts;
    });
  }
  return validators;
}

// Checks an actual response against the response schema openapi.yaml documents for its operation and status.
import type { Response } from 'supertest';
import type { ValidateFunction } from 'ajv';
import { contractAjv, detach, loadContract, operations } from '../../src/http/openapi';

const contract = loadContract();
const ajv = contractAjv(contract);
const compiled = new Map<string, ValidateFunction>();

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema: object }>;
}

function resolveResponse(r: ResponseObject): ResponseObject {
  if (!r.$ref) return r;
  const name = r.$ref.split('/').pop() as string;
  return (contract.document.components as { responses: Record<string, ResponseObject> }).responses[name] as ResponseObject;
}

const templates = [...operations(contract)].map(({ path, method, operation }) => ({
  method: method.toUpperCase(),
  pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  path,
  operation,
}));

let validateProblem: ValidateFunction | undefined;

/** Whether `body` is a Problem as openapi.yaml documents it (for answers outside any operation). */
export function isDocumentedProblem(body: unknown): boolean {
  if (!validateProblem) {
    const problem = contract.document.components as { schemas: Record<string, object> };
    validateProblem = ajv.compile(detach(problem.schemas.Problem) as object);
  }
  return validateProblem(body);
}

/** The problems with `res` as a response to `method path`; empty when it matches the contract. */
export function contractProblems(method: string, url: string, res: Response): string[] {
  const pathOnly = url.split('?')[0] as string;
  const found = templates.find((t) => t.method === method.toUpperCase() && t.pattern.test(pathOnly));
  const contentType = String(res.headers['content-type'] ?? '').split(';')[0] as string;
  if (!found) {
    // Unknown endpoints answer with a 404 problem.
    return res.status === 404 && contentType === 'application/problem+json' && isDocumentedProblem(res.body) ? [] : [`${method} ${url}: not in the contract`];
  }
  const documented = found.operation.responses[String(res.status)] as ResponseObject | undefined;
  if (!documented) return [`${method} ${found.path}: status ${res.status} is not documented`];
  const response = resolveResponse(documented);
  if (!response.content) return res.text ? [`${method} ${found.path} ${res.status}: documented without a body, got one`] : [];
  const media = response.content[contentType];
  if (!media) return [`${method} ${found.path} ${res.status}: content type '${contentType}' is not documented`];
  const key = `${found.operation.operationId} ${res.status} ${contentType}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(detach(media.schema) as object);
    compiled.set(key, validate);
  }
  // Non-JSON media (text/plain, application/yaml, text/html) are documented as strings: check the raw text.
  const payload: unknown = /[/+]json$/.test(contentType) ? res.body : res.text;
  return validate(payload) ? [] : [`${method} ${found.path} ${res.status}: ${ajv.errorsText(validate.errors)}`];
}

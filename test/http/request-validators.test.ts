// The request validators compile their schemas when first called (src/http/openapi.ts): a schema Ajv refuses in
// strict mode must fail here, for every operation, and not at a client's first request.
import { DomainError } from '../../src/domain/errors';
import { buildRequestValidators, loadContract, operations } from '../../src/http/openapi';

describe('the request validators', () => {
  const contract = loadContract();
  const validators = buildRequestValidators(contract);

  test('when the contract is loaded again, then it is the one already parsed', () => {
    expect(loadContract()).toBe(contract);
  });

  test("when every operation's validator is first called, then Ajv compiles its schemas, and an empty request is taken or refused as validation_failed", () => {
    const operationIds = [...operations(contract)].map(({ operation }) => operation.operationId);
    expect(operationIds.length).toBeGreaterThan(30);
    expect([...validators.keys()].sort()).toEqual([...operationIds].sort());
    const outcomes = operationIds.map((operationId) => {
      try {
        validators.get(operationId)?.({ params: {}, query: {}, body: undefined });
        return 'taken';
      } catch (e) {
        return e instanceof DomainError ? e.code : `${operationId}: ${e instanceof Error ? e.message : String(e)}`;
      }
    });
    expect(outcomes.filter((outcome) => outcome !== 'taken' && outcome !== 'validation_failed')).toEqual([]);
    // Operations with a required body or path parameter refuse an empty request; the plain GETs take it.
    expect(outcomes).toContain('validation_failed');
    expect(outcomes).toContain('taken');
  });
});

// Every statement under cypher/ (schema/ and analyst/ included) passes Neo4j's own linter with exactly the
// parameters its `// params:` line declares; and the check does fail on a broken statement.
import { cypherFiles, lintProblems, readCypher } from './cypher-files';

describe('the Cypher files', () => {
  const files = cypherFiles();

  test('when cypher/ is listed, then it holds the store statements, the schema and the analyst queries', () => {
    expect(files.length).toBeGreaterThan(30);
    expect(files.filter((f) => f.startsWith('schema/')).length).toBeGreaterThan(0);
    expect(files.filter((f) => f.startsWith('analyst/')).length).toBe(4);
  });

  test.each(files)('when cypher/%s.cypher is linted, then Neo4j finds no problem', (name) => {
    expect(lintProblems(readCypher(name), `cypher/${name}.cypher`)).toEqual([]);
  });
});

describe('the lint check', () => {
  const valid = ['// params: customer', "// Counts a customer's nodes.", 'MATCH (node:IdNode {customer: $customer})', 'RETURN count(node) AS nodes'];
  const statement = (...lines: string[]) => lines.join('\n');

  test('when a statement is valid, then there is no problem', () => {
    expect(lintProblems(statement(...valid))).toEqual([]);
  });

  test('when a statement has a syntax error, then it fails', () => {
    const problems = lintProblems(statement(valid[0] as string, valid[1] as string, 'MATCH (node:IdNode {customer: $customer})', 'RETRUN node'));
    expect(problems).toEqual([expect.stringMatching(/error: Invalid input 'RETRUN'/)]);
  });

  test('when a statement uses an undefined variable, then it fails', () => {
    const problems = lintProblems(
      statement(valid[0] as string, valid[1] as string, 'MATCH (node:IdNode {customer: $customer})', 'RETURN count(nodes) AS nodes'),
    );
    expect(problems).toEqual([expect.stringMatching(/error: Variable `nodes` not defined/)]);
  });

  test('when a statement uses a parameter its params line does not declare, then it fails', () => {
    const problems = lintProblems(
      statement(valid[0] as string, valid[1] as string, 'MATCH (node:IdNode {customer: $customer, schema: $schema})', 'RETURN count(node) AS nodes'),
    );
    expect(problems).toEqual([expect.stringMatching(/error: Parameter \$schema is not defined/)]);
  });

  test('when a statement misspells a label, a relationship type or a function, or calls a plugin function, then it fails', () => {
    expect(lintProblems(statement(valid[0] as string, valid[1] as string, 'MATCH (node:IdNdoe {customer: $customer})', 'RETURN node'))).toEqual([
      expect.stringMatching(/warning: Label IdNdoe is not present/),
    ]);
    expect(lintProblems(statement(valid[0] as string, valid[1] as string, 'MATCH (:IdNode {customer: $customer})-[:LINKD]->(id)', 'RETURN id'))).toEqual([
      expect.stringMatching(/warning: Relationship type LINKD is not present/),
    ]);
    expect(lintProblems(statement(valid[0] as string, valid[1] as string, 'MATCH (node:IdNode {customer: $customer})', 'RETURN elementIdd(node)'))).toEqual([
      expect.stringMatching(/error: Function elementIdd is not present/),
    ]);
    // A plugin Neo4j Community does not ship (APOC here) is as unknown as a misspelling.
    expect(lintProblems(statement(valid[0] as string, valid[1] as string, 'MATCH (node:IdNode {customer: $customer})', 'RETURN apoc.coll.sum([1])'))).toEqual([
      expect.stringMatching(/error: Function apoc\.coll\.sum is not present/),
    ]);
  });

  test('when the params line is missing, declares an unused parameter, or the description is missing, then it fails', () => {
    expect(lintProblems(statement(...valid.slice(1)))).toEqual([expect.stringMatching(/first line must be '\/\/ params: \.\.\.'/)]);
    expect(lintProblems(statement('// params: customer, schema', ...valid.slice(1)))).toEqual(['declares $schema but does not use it']);
    expect(lintProblems(statement(valid[0] as string, ...valid.slice(2)))).toEqual(['line 2 must be a comment saying what the statement does']);
  });

  test('when a file holds two statements, then it fails', () => {
    expect(lintProblems(statement(...valid, ';', 'MATCH (node:IdNode {customer: $customer}) RETURN node'))).toContain('holds 2 statements; one per file');
  });
});

// Finds the statement files under cypher/ and checks one statement text with Neo4j's own Cypher linter.
import fs from 'node:fs';
import path from 'node:path';
import { lintCypherQuery, parseParameters, parseStatementsStrs, testData } from '@neo4j-cypher/language-support';
import { CYPHER_DIR, declaredParams, GRAPH_VOCABULARY } from '../../src/store/neo4j/statements';

/** Every .cypher file under cypher/, as paths relative to cypher/ without the extension (`node.create`, `schema/id.unique-value`). */
export function cypherFiles(dir: string = CYPHER_DIR): string[] {
  const found: string[] = [];
  const walk = (sub: string) => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const relative = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.cypher')) found.push(relative.slice(0, -'.cypher'.length));
    }
  };
  walk('');
  return found.sort();
}

export const readCypher = (name: string): string => fs.readFileSync(path.join(CYPHER_DIR, `${name}.cypher`), 'utf8');

// The linter knows Neo4j's functions and procedures only when given them; the package ships a catalogue of the
// built-in ones (Cypher 5 and 25) as `testData.mockSchema`, which lets it flag a misspelled function too. That
// catalogue also holds the APOC, Graph Data Science and change-data-capture plugins, which Neo4j Community does not
// ship: they are left out, so a statement that calls one fails here as it would on the server. The linter also
// compares the catalogue it is given with the last one as JSON at every call, and without the plugins that is
// an eighth of the text (1.4 MB of the cost of each lint, with them).
const PLUGINS = /^(apoc|gds|cdc)\./;
const withoutPlugins = <T>(catalogue: Partial<Record<string, Record<string, T>>> = {}): Record<string, Record<string, T>> =>
  Object.fromEntries(
    Object.entries(catalogue).map(([version, byName = {}]) => [version, Object.fromEntries(Object.entries(byName).filter(([name]) => !PLUGINS.test(name)))]),
  );
const functions = withoutPlugins(testData.mockSchema.functions);
const procedures = withoutPlugins(testData.mockSchema.procedures);

/**
 * The problems Neo4j's linter (@neo4j-cypher/language-support, Cypher 5) finds in one statement file, as
 * `line:column message` strings: syntax and semantic errors, parameters the `// params:` line does not declare,
 * unknown functions and procedures, and, as warnings, labels and relationship types outside the graph model.
 * Warnings count as problems too. Also: one statement per file, a comment under the params line saying what the
 * statement does, and no declared parameter left unused.
 */
export function lintProblems(text: string, file = 'statement'): string[] {
  let declared: string[];
  try {
    declared = declaredParams(text, file);
  } catch (e) {
    return [(e as Error).message];
  }
  const diagnostics = lintCypherQuery(text, {
    // Only names matter to the linter; the values are placeholders.
    parameters: Object.fromEntries(declared.map((p) => [p, 'value'])),
    labels: [...GRAPH_VOCABULARY.labels],
    relationshipTypes: [...GRAPH_VOCABULARY.relationshipTypes],
    functions,
    procedures,
  });
  const problems = diagnostics.map(
    (d) =>
      `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.severity === 1 ? 'error' : 'warning'}: ${typeof d.message === 'string' ? d.message : d.message.value}`,
  );
  const statements = parseStatementsStrs(text).filter((s) => s.trim() !== '');
  if (statements.length !== 1) problems.push(`holds ${statements.length} statements; one per file`);
  const lines = text.split(/\r?\n/);
  if (!/^\/\/ \S/.test(lines[1] ?? '')) problems.push('line 2 must be a comment saying what the statement does');
  const used = new Set(parseParameters(text, false));
  for (const p of declared.filter((p) => !used.has(p))) problems.push(`declares $${p} but does not use it`);
  return problems;
}

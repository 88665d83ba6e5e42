// The Cypher the Neo4j store runs. Every statement is a file under cypher/, read once at start-up; no Cypher is
// written or assembled in code. Each file opens with `// params: a, b` naming the parameters it takes, which the
// store checks on every call and the lint test (test/cypher/lint.test.ts) gives to Neo4j's own linter.
import fs from 'node:fs';
import path from 'node:path';

/** cypher/ at the project root: three levels up from src/store/neo4j (ts-jest) and from dist/store/neo4j (the image). */
export const CYPHER_DIR = path.resolve(__dirname, '..', '..', '..', 'cypher');

/** The statements the store runs, by file name under cypher/ without `.cypher`. */
export const STATEMENT_NAMES = [
  'store.ping',
  'store.schema-in-place',
  'store.await-indexes',

  'schema.guard',
  'schema.lock',
  'schema.last-write',
  'schema.other-declarations',
  'schema.held-dropped-types',
  'schema.declare',
  'schema.get',
  'schema.list',
  'schema.lock-for-delete',
  'schema.delete',
  'idtype.lock',
  'idtype.delete-orphans',
  'idtype.held',
  'id.mark-secure',
  'customer.policy',
  'customer.policy-many',
  'settings.put',
  'blocklist.put',

  'token.create',
  'token.list',
  'token.revoke',
  'token.find-active',
  'token.find-active-many',
  'token.last-write',

  'node.create',
  'node.create-many',
  'node.lock-many',
  'node.held-many',
  'node.link-many',
  'node.ids-many',
  'node.delete-many',
  'node.lock',
  'node.find',
  'node.held-among',
  'node.link-ids',
  'id.lock-holders',
  'node.unlink-id',
  'node.unlink-many',
  'node.rekey',
  'node.delete',
  'node.ids',
  'node.last-write',
  'separation.check',
  'separation.shared',
  'separation.unlink-shared',
  'separation.put',
  'separation.delete',
  'separation.list',

  'search.start-by-key',
  'search.one',
  'search.all',
  'search.start-by-where',
  'search.traverse-one',
  'search.traverse-one-from-id',
  'search.traverse-all',
  'graph.one',
  'graph.all',
  'graph.ids',
  'why.shortest',
  'why.ids-of-nodes',
  'why.nodes-of-ids',
  'why.labels',

  'sequence.next',
  'sequence.adopt-shared',
  'delivery.create',
  'delivery.get',
  'delivery.list',
  'delivery.lock',
  'delivery.update',
  'delivery.keep-caps',
  'delivery.delete',
  'delivery.next-deleted',
  'delivery.forget-deleted',
  'delivery.written-by',
  'delivery.catalogue',
  'delivery.catalogue-many',

  'person.counts',
  'person.counts-many',
  'impression.count',
  'impression.erase',
  'impression.erase-keys',
  'impression.adopt-keys',
  'impression.sweep-of-deleted',
  'impression.sweep-keys-of-deleted',
  'impression.prune-keys',

  'history.append',
  'history.page',
  'history.of-keys',
  'history.mentioning',
  'history.rewrite',
  'history.prune',
  'history.adopt-mentions',
  'history.written-by',
  'history.changes',
  'feed.key',
  'history.heads',
  'history.adopt-seq',
  'node.add-schema-labels',
  'id.add-type-labels',
  'migration.lock',
  'migration.record',
  'erase.component',
  'erase.lock',
  'erase.delete-nodes',
  'erase.still-held',
  'erase.unlink-id',
  'export.begin',
  'export.nodes',
  'export.impressions',
  'export.history',
  'inventory.customers',
  'inventory.tokens',
  'inventory.put-tokens',
  'import.begin',
  'import.touch',
  'import.nodes',
  'import.mark',
  'import.separations',
  'import.sequences',
  'import.deliveries',
  'import.impressions',
  'import.history',
  'import.feed-head',
  'import.unmark',
  'import.abandon-nodes',
  'import.abandon-ids',
  'import.abandon-history',
  'import.abandon-impressions',
  'import.abandon-rest',
  'import.unfinished',
  'import.alive',
  'import.abandoning',
  'customer.importing',
] as const;

export type StatementName = (typeof STATEMENT_NAMES)[number];

/**
 * Constraints and indexes (cypher/schema/), applied at start-up in this order; each is IF NOT EXISTS, or drops
 * what an earlier version made (IF EXISTS) before what replaces it is created.
 */
export const SCHEMA_STATEMENT_NAMES = [
  'schema/delivery.drop-shared-id',
  'schema/delivery.drop-index-customer',
  'schema/sequence.drop-shared-name',
  'schema/idnode.unique-key',
  'schema/id.unique-value',
  'schema/schema.unique-id',
  'schema/idtype.unique-name',
  'schema/schemaguard.unique-stripe',
  'schema/token.unique-id',
  'schema/token.unique-hash',
  'schema/settings.unique-customer',
  'schema/settings.text-customer',
  'schema/blocklist.unique-customer',
  'schema/delivery.unique-customer-id',
  'schema/deleteddelivery.unique-customer-id',
  'schema/sequence.unique-customer-name',
  'schema/idnode.index-schema',
  'schema/id.index-type',
  'schema/schema.index-customer',
  'schema/idtype.index-customer',
  'schema/token.index-customer',
  'schema/history.index-key',
  'schema/history.index-new-key',
  'schema/history.drop-index-customer',
  'schema/history.index-mention',
  'schema/history.index-time',
  'schema/history.index-seq',
  'schema/impression.index-id',
  'schema/impression.index-delivery',
  'schema/impressionkey.unique-key',
  'schema/impressionkey.index-time',
  'schema/impressionkey.index-id',
  'schema/separated.index-customer',
  'schema/migration.unique-version',
  'schema/import.unique-customer',
  'schema/feedkey.unique-feed',
] as const;

/** A constraint or index cypher/schema/ creates, by the name its file gives it. */
export interface SchemaObject {
  name: string;
  constraint: boolean;
}

const CREATES = /^CREATE (CONSTRAINT|(?:TEXT )?INDEX) ([A-Za-z_][A-Za-z0-9_]*) IF NOT EXISTS\b/m;

/** What the schema statements create (those that drop what an earlier version made create nothing). */
export function schemaObjects(schema: Statement[]): SchemaObject[] {
  return schema.flatMap((statement) => {
    const [, kind, name] = CREATES.exec(statement.text) ?? [];
    return name === undefined ? [] : [{ name, constraint: kind === 'CONSTRAINT' }];
  });
}

const DROPS = /^DROP (?:CONSTRAINT|INDEX) ([A-Za-z_][A-Za-z0-9_]*) IF EXISTS\b/m;

/**
 * The names of what the schema statements drop (what earlier versions made), or undefined when a statement neither
 * creates a named object IF NOT EXISTS nor drops one IF EXISTS: then only running the statements says what they do.
 */
export function droppedSchemaNames(schema: Statement[]): string[] | undefined {
  const dropped: string[] = [];
  for (const statement of schema) {
    const [, name] = DROPS.exec(statement.text) ?? [];
    if (name !== undefined) dropped.push(name);
    else if (!CREATES.test(statement.text)) return undefined;
  }
  return dropped;
}

/** The labels and relationship types of the graph model: the only ones a statement may use (checked by the lint test). */
export const GRAPH_VOCABULARY = {
  labels: [
    'IdNode',
    'Id',
    'Schema',
    'SchemaGuard',
    'IdType',
    'Settings',
    'Blocklist',
    'Token',
    'Delivery',
    'Sequence',
    'HistoryEntry',
    'ImpressionCount',
    'ImpressionKey',
    'DeletedDelivery',
    'SecureId',
    'Migration',
    'Import',
    'ImportLease',
    'ImportLane',
    'FeedKey',
  ],
  relationshipTypes: ['LINKED', 'DECLARES', 'IN_SCHEMA', 'MENTIONS', 'SEPARATED'],
} as const;

export interface Statement {
  /** File name under cypher/ without `.cypher`, e.g. `node.create` or `schema/id.unique-value`. */
  name: string;
  /** Path relative to the project root, for messages. */
  file: string;
  text: string;
  /**
   * What is sent to Neo4j: the text without its comment lines and indentation. Neo4j reads every byte of a
   * statement each time it runs (a statement with 4 KB of comments ran at 70% of the rate of the same one without).
   */
  sent: string;
  /** The parameters its `// params:` line declares. */
  params: string[];
}

export interface Statements {
  byName: Record<StatementName, Statement>;
  schema: Statement[];
}

/** A statement file is missing or malformed: the store cannot start. */
export class CypherFileError extends Error {
  override readonly name = 'CypherFileError';
}

const PARAMS_LINE = /^\/\/ params:(.*)$/;
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The parameter names declared by the first line of a statement file (`// params: a, b`; none after the colon is fine). */
export function declaredParams(text: string, file: string): string[] {
  const first = text.split(/\r?\n/, 1)[0] ?? '';
  const header = PARAMS_LINE.exec(first);
  if (!header) throw new CypherFileError(`${file}: the first line must be '// params: ...' naming the statement's parameters.`);
  const names = (header[1] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const bad = names.filter((p) => !PARAM_NAME.test(p));
  if (bad.length > 0) throw new CypherFileError(`${file}: '${bad.join("', '")}' in the params line is not a parameter name.`);
  return names;
}

/**
 * `text` without its comment lines (`//` first on the line) and without indentation: what Neo4j needs. No statement
 * has a string literal over several lines, where this would change what it means.
 */
export const withoutComments = (text: string): string =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('//'))
    .join('\n');

export function loadStatement(name: string, dir: string = CYPHER_DIR): Statement {
  const absolute = path.join(dir, `${name}.cypher`);
  const file = path.join(path.basename(dir), `${name}.cypher`);
  let text: string;
  try {
    text = fs.readFileSync(absolute, 'utf8');
  } catch (e) {
    const missing = typeof e === 'object' && e !== null && 'code' in e && e.code === 'ENOENT';
    const reason = missing ? 'is missing' : `cannot be read (${e instanceof Error ? e.message : String(e)})`;
    throw new CypherFileError(`The Neo4j store cannot start: the Cypher statement file ${file} ${reason} (looked in ${dir}).`);
  }
  return { name, file, text, sent: withoutComments(text), params: declaredParams(text, file) };
}

/** Reads every statement the store uses; throws CypherFileError naming the first file that is missing or malformed. */
export function loadStatements(dir: string = CYPHER_DIR): Statements {
  // Object.fromEntries types its object by string keys: every name of STATEMENT_NAMES is there, as the Record says.
  const byName = Object.fromEntries(STATEMENT_NAMES.map((name) => [name, loadStatement(name, dir)])) as Record<StatementName, Statement>;
  return { byName, schema: SCHEMA_STATEMENT_NAMES.map((name) => loadStatement(name, dir)) };
}

/**
 * Throws when a call passes other parameters than the statement's file declares: a missing one would silently be
 * null in Cypher, an extra one would be ignored. Both are bugs in the caller.
 */
export function checkParams(statement: Statement, params: Record<string, unknown>): void {
  const passed = Object.keys(params).sort();
  const declared = [...statement.params].sort();
  if (passed.length !== declared.length || passed.some((p, i) => p !== declared[i])) {
    throw new Error(`${statement.file} declares parameters [${declared.join(', ')}] but was called with [${passed.join(', ')}].`);
  }
}

// The wiring between the Neo4j store and cypher/, checked without a server: every file the store loads exists and
// every file is used, the schema is Neo4j 5 Community, a missing or malformed file stops start-up with its name,
// the traversal bound covers the largest TRAVERSAL_MAX_NODES, and no Cypher hides in the TypeScript.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import {
  checkParams,
  CYPHER_DIR,
  CypherFileError,
  loadStatement,
  loadStatements,
  SCHEMA_STATEMENT_NAMES,
  schemaObjects,
  STATEMENT_NAMES,
  withoutComments,
} from '../../src/store/neo4j/statements';
import { cypherFiles, readCypher } from './cypher-files';
import { NEO4J_TEST_IMAGE } from '../neo4j/image';

const ROOT = path.resolve(__dirname, '..', '..');
const loaded: string[] = [...STATEMENT_NAMES, ...SCHEMA_STATEMENT_NAMES];

describe('the statements the Neo4j store loads', () => {
  test('when a statement is sent, then without its comment lines and indentation, and every other line as it is', () => {
    expect(withoutComments('// params: a\n// why\nMATCH (n {a: $a})\n  // inline note\n  WHERE n.b = "// not a comment"\nRETURN n\n')).toBe(
      'MATCH (n {a: $a})\nWHERE n.b = "// not a comment"\nRETURN n',
    );
    for (const statement of Object.values(loadStatements().byName)) {
      const code = statement.text.split('\n').filter((line) => !line.trim().startsWith('//') && line.trim() !== '');
      expect(statement.sent.split('\n')).toEqual(code.map((line) => line.trim()));
    }
  });

  test('when the store loads its statements, then every file exists and declares its parameters', () => {
    const statements = loadStatements();
    expect(Object.keys(statements.byName).sort()).toEqual([...STATEMENT_NAMES].sort());
    expect(statements.schema.map((s) => s.name)).toEqual([...SCHEMA_STATEMENT_NAMES]);
    expect(statements.byName['search.traverse-all'].params).toEqual([
      'source',
      'holdersSchema',
      'maxNodes',
      'maxIds',
      'excluded',
      'havingType',
      'hiddenTypes',
      'unlinkedTypes',
      'answerBytes',
    ]);
    expect(statements.byName['node.create'].file).toBe('cypher/node.create.cypher');
  });

  test('when cypher/ is listed, then every file is loaded by the store, except the analyst queries', () => {
    const orphans = cypherFiles().filter((name) => !name.startsWith('analyst/') && !loaded.includes(name));
    expect(orphans).toEqual([]);
    expect(new Set(loaded).size).toBe(loaded.length);
  });

  test('when the schema files are read, then each is one IF NOT EXISTS constraint or index that Neo4j 5 Community has, or drops one of an earlier version IF EXISTS', () => {
    for (const name of SCHEMA_STATEMENT_NAMES) {
      const text = readCypher(name);
      expect(text).toMatch(/^(CREATE (CONSTRAINT|(TEXT )?INDEX) \w+ IF NOT EXISTS|DROP (CONSTRAINT|INDEX) \w+ IF EXISTS)$/m);
      // Key and property existence (and type) constraints are Enterprise Edition only.
      expect(text).not.toMatch(/\b(NODE KEY|IS KEY|IS NOT NULL|IS TYPED|::)\b/i);
    }
    const constraints = SCHEMA_STATEMENT_NAMES.map(readCypher).join('\n');
    expect(constraints).toMatch(/FOR \(node:IdNode\) REQUIRE \(node\.customer, node\.schema, node\.keyType, node\.keyId\) IS UNIQUE/);
    expect(constraints).toMatch(/FOR \(id:Id\) REQUIRE \(id\.customer, id\.type, id\.value\) IS UNIQUE/);
    // Delivery ids and their counters are per customer.
    expect(constraints).toMatch(/FOR \(delivery:Delivery\) REQUIRE \(delivery\.customer, delivery\.deliveryId\) IS UNIQUE/);
    expect(constraints).toMatch(/FOR \(sequence:Sequence\) REQUIRE \(sequence\.customer, sequence\.name\) IS UNIQUE/);
  });
});

describe('what cypher/schema/ creates', () => {
  test('when the schema files are read, then each that creates names its constraint or index, once, and those that drop create nothing', () => {
    const objects = schemaObjects(loadStatements().schema);
    const creating = SCHEMA_STATEMENT_NAMES.filter((name) => /^CREATE /m.test(readCypher(name)));
    expect(objects).toHaveLength(creating.length);
    expect(new Set(objects.map((o) => o.name)).size).toBe(objects.length);
    expect(objects).toContainEqual({ name: 'idnode_key_unique', constraint: true });
    expect(objects).toContainEqual({ name: 'history_time', constraint: false });
    expect(objects.filter((o) => o.constraint)).toHaveLength(SCHEMA_STATEMENT_NAMES.filter((name) => /^CREATE CONSTRAINT /m.test(readCypher(name))).length);
  });
});

describe('loading statement files', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-cypher-'));
    fs.cpSync(CYPHER_DIR, dir, { recursive: true });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('when a statement file is missing, then loading stops with a message naming it', () => {
    fs.rmSync(path.join(dir, 'search.traverse-all.cypher'));
    expect(() => loadStatements(dir)).toThrow(CypherFileError);
    expect(() => loadStatements(dir)).toThrow(/search\.traverse-all\.cypher is missing/);
  });

  test('when a schema file is missing, then loading stops with a message naming it', () => {
    fs.rmSync(path.join(dir, 'schema', 'id.unique-value.cypher'));
    expect(() => loadStatements(dir)).toThrow(/schema\/id\.unique-value\.cypher is missing/);
  });

  test('when a file does not start with its params line, then loading stops naming the file', () => {
    fs.writeFileSync(path.join(dir, 'store.ping.cypher'), '// Readiness probe.\nRETURN 1 AS ok\n');
    expect(() => loadStatement('store.ping', dir)).toThrow(/store\.ping\.cypher: the first line must be '\/\/ params: \.\.\.'/);
  });

  test('when a call passes other parameters than the file declares, then it is refused before reaching Neo4j', () => {
    const statement = loadStatement('node.unlink-id');
    expect(() => checkParams(statement, { node: 'n', type: 't', value: 'v' })).not.toThrow();
    expect(() => checkParams(statement, { node: 'n', type: 't' })).toThrow(/declares parameters \[node, type, value\] but was called with \[node, type\]/);
    expect(() => checkParams(statement, { node: 'n', type: 't', value: 'v', customer: 'c' })).toThrow(/was called with/);
  });
});

describe("the statements that find a search's start with its policy", () => {
  test('when a statement reads the policy and finds the start, then each keyed node and each ID is found through its unique index, by a hint', () => {
    // Without it, Neo4j 5.26 planned a batch of searches on a graph of 200,000 nodes as a scan of every keyed node
    // joined with the searches: tens of thousands of database hits a statement instead of a few a search.
    for (const name of ['search.one', 'search.all', 'graph.one', 'graph.all'] as const) {
      expect([name, loadStatement(name).text]).toEqual([name, expect.stringContaining('USING INDEX keyed:IdNode(customer, schema, keyType, keyId)')]);
      expect([name, loadStatement(name).text]).toEqual([name, expect.stringContaining('USING INDEX source:Id(customer, type, value)')]);
    }
  });
});

describe('the traversal bound', () => {
  test('when the ALL traversal bound is read, then it covers the largest TRAVERSAL_MAX_NODES and TRAVERSAL_MAX_IDS the configuration accepts', () => {
    const bounds = ['search.traverse-all', 'search.all', 'graph.all'].map((name) => Number(/\[:LINKED\*0\.\.(\d+)\]/.exec(readCypher(name))?.[1]));
    // The traversal stops at maxNodes + maxIds + 1 vertices, and a component of more than N vertices has N + 1 of
    // them within N hops: the bound must be at least the largest maxNodes + maxIds.
    const largest = 10_000_000;
    for (const variable of ['TRAVERSAL_MAX_NODES', 'TRAVERSAL_MAX_IDS']) {
      expect(() => loadConfig({ [variable]: String(largest) })).not.toThrow();
      expect(() => loadConfig({ [variable]: String(largest + 1) })).toThrow(ConfigError);
    }
    for (const bound of bounds) expect(bound).toBeGreaterThanOrEqual(largest + largest);
  });
});

describe('Cypher in code', () => {
  const sources = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));

  test('when src/ is read, then no string in it starts a Cypher statement (all Cypher lives in cypher/)', () => {
    const cypherLike = /['"`]\s*(MATCH|OPTIONAL MATCH|MERGE|CREATE|UNWIND|CALL|RETURN|WITH|DETACH DELETE|EXPLAIN|PROFILE)\s[^'"`]*[(\n]/;
    // The SQLite store's SQL shares keywords with Cypher; it is the one place such strings belong.
    const sqlite = path.join(ROOT, 'src', 'store', 'sqlite');
    const offenders = sources(path.join(ROOT, 'src'))
      .filter((file) => !file.startsWith(sqlite))
      .filter((file) => cypherLike.test(fs.readFileSync(file, 'utf8')));
    expect(offenders.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  test('when the Neo4j store is read, then every statement it loads is named in it, outside the list of names: no file is dead', () => {
    const neo4jDir = path.join(ROOT, 'src', 'store', 'neo4j');
    const code = sources(neo4jDir)
      .filter((file) => path.basename(file) !== 'statements.ts')
      .map((file) => fs.readFileSync(file, 'utf8'))
      .join('\n');
    expect(STATEMENT_NAMES.filter((name) => !code.includes(`'${name}'`))).toEqual([]);
  });
});

describe('the Neo4j image', () => {
  test('when docker-compose.yml, the test container and the local server name Neo4j, then it is the same pinned 5.26 community patch', () => {
    expect(NEO4J_TEST_IMAGE).toMatch(/^neo4j:5\.26\.\d+-community$/);
    const compose = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain(`image: ${NEO4J_TEST_IMAGE}`);
    const pom = fs.readFileSync(path.join(ROOT, 'neo4j-local', 'pom.xml'), 'utf8');
    const version = /<neo4j\.version>([^<]+)<\/neo4j\.version>/.exec(pom)?.[1];
    expect(`neo4j:${version}-community`).toBe(NEO4J_TEST_IMAGE);
  });
});

// The guard of the Neo4j suites' database: they delete everything in it, so they only ever use a database they
// made theirs. A database is theirs when it holds a (:IdentityLinkTestMarker) node, which they write into an empty
// one; one that holds other nodes and no marker is someone's data, and is refused before anything is deleted.
// Test-only housekeeping, not statements of the store, so they are not files of cypher/.

const neo4j = require('neo4j-driver');

const MARKER_LABEL = 'IdentityLinkTestMarker';

const COUNT = 'OPTIONAL MATCH (n) WITH count(n) AS nodes OPTIONAL MATCH (m:IdentityLinkTestMarker) RETURN nodes, count(m) AS markers';
const WRITE_MARKER = 'CREATE (:IdentityLinkTestMarker {createdBy: $createdBy})';
// A bounded part of the rest per transaction, each a transaction of its own: a suite may leave a graph (an export of
// 100,000 nodes with their history, say) whose deletion in one transaction would pass Neo4j's limit of the memory of
// transactions (dbms.memory.transaction.total.max), or, on a busy machine, the server's transaction timeout
// (db.transaction.timeout), which would also end one CALL { … } IN TRANSACTIONS that ran them all.
const DELETE_PART = 'MATCH (n) WHERE NOT n:IdentityLinkTestMarker WITH n LIMIT $part DETACH DELETE n RETURN count(*) AS deleted';
const PART = 5000;

/** The one line a refused database gets: where, what it holds, and that nothing was deleted. */
/** @param {string} where @param {number} nodes */
const refusal = (where, nodes) =>
  `${where} holds ${nodes} node(s) and no (:${MARKER_LABEL}) node: these suites did not create its data, so they refuse it and deleted nothing. Point NEO4J_TEST_URI at an empty database whose data may be deleted.`;

class ForeignDatabaseError extends Error {}

/** Within `tx`: throws ForeignDatabaseError for someone else's database, writes the marker into an empty one.
 * @param {import('neo4j-driver').ManagedTransaction} tx @param {string} where */
async function claimIn(tx, where) {
  const result = await tx.run(COUNT);
  const counts = result.records[0];
  const nodes = Number(counts?.get('nodes'));
  const markers = Number(counts?.get('markers'));
  if (markers > 0) return;
  if (nodes > 0) throw new ForeignDatabaseError(refusal(where, nodes));
  await tx.run(WRITE_MARKER, { createdBy: 'npm run test:neo4j' });
}

/** Makes the database the suites' own: refuses (ForeignDatabaseError) one with nodes and no marker.
 * @param {import('neo4j-driver').Driver} driver @param {string} database @param {string} where */
async function claimTestDatabase(driver, database, where) {
  const session = driver.session({ database });
  try {
    await session.executeWrite((tx) => claimIn(tx, where));
  } finally {
    await session.close();
  }
}

/** Deletes every node but the marker, once a transaction found the marker there (or the database empty, and wrote
 * it): the marker stays, so the database cannot turn someone else's in between.
 * @param {import('neo4j-driver').Driver} driver @param {string} database @param {string} where */
async function emptyTestDatabase(driver, database, where) {
  const session = driver.session({ database });
  try {
    await session.executeWrite((tx) => claimIn(tx, where));
    for (let deleted = PART; deleted === PART;) {
      const result = await session.executeWrite((tx) => tx.run(DELETE_PART, { part: neo4j.int(PART) }));
      deleted = Number(result.records[0]?.get('deleted'));
    }
  } finally {
    await session.close();
  }
}

module.exports = { MARKER_LABEL, ForeignDatabaseError, claimTestDatabase, emptyTestDatabase };

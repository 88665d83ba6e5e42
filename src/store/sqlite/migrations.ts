// Versioned schema of the embedded store. Append new versions; never edit one that has shipped.
// Each runs in its own transaction and is recorded in schema_migrations.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'identity graph, schemas and tokens',
    sql: `
      CREATE TABLE schemas (
        customer_id TEXT NOT NULL,
        schema_id   TEXT NOT NULL,
        PRIMARY KEY (customer_id, schema_id)
      ) WITHOUT ROWID;

      CREATE TABLE schema_id_types (
        customer_id TEXT NOT NULL,
        schema_id   TEXT NOT NULL,
        type        TEXT NOT NULL,
        secure      INTEGER NOT NULL CHECK (secure IN (0, 1)),
        position    INTEGER NOT NULL,
        PRIMARY KEY (customer_id, schema_id, type),
        FOREIGN KEY (customer_id, schema_id) REFERENCES schemas (customer_id, schema_id) ON DELETE CASCADE
      ) WITHOUT ROWID;
      CREATE INDEX schema_id_types_by_type ON schema_id_types (customer_id, type);

      -- One row per node; its key is also one of its held IDs (node_ids).
      CREATE TABLE nodes (
        node_pk     INTEGER PRIMARY KEY,
        customer_id TEXT NOT NULL,
        schema_id   TEXT NOT NULL,
        key_type    TEXT NOT NULL,
        key_id      TEXT NOT NULL,
        UNIQUE (customer_id, schema_id, key_type, key_id),
        FOREIGN KEY (customer_id, schema_id) REFERENCES schemas (customer_id, schema_id)
      );

      -- One row per distinct (type, id) of a customer that at least one node holds.
      CREATE TABLE ids (
        id_pk       INTEGER PRIMARY KEY,
        customer_id TEXT NOT NULL,
        type        TEXT NOT NULL,
        value       TEXT NOT NULL,
        UNIQUE (customer_id, type, value)
      );

      -- Which node holds which ID: two nodes sharing an id_pk are linked.
      CREATE TABLE node_ids (
        node_pk INTEGER NOT NULL REFERENCES nodes (node_pk) ON DELETE CASCADE,
        id_pk   INTEGER NOT NULL REFERENCES ids (id_pk),
        PRIMARY KEY (node_pk, id_pk)
      ) WITHOUT ROWID;
      CREATE INDEX node_ids_by_id ON node_ids (id_pk, node_pk);

      CREATE TABLE tokens (
        token_id    TEXT PRIMARY KEY,
        customer_id TEXT NOT NULL,
        kind        TEXT NOT NULL CHECK (kind IN ('bearer', 'mapi')),
        label       TEXT,
        token_hash  TEXT NOT NULL UNIQUE,
        created_at  TEXT NOT NULL,
        revoked_at  TEXT
      );
      CREATE INDEX tokens_by_customer ON tokens (customer_id, created_at);
    `,
  },
  {
    version: 2,
    name: 'deliveries',
    sql: `
      -- A delivery is kept as the JSON document the API returns; its ids are columns so they can be found
      -- and ordered. AUTOINCREMENT: a deleted delivery's id is never given out again.
      CREATE TABLE deliveries (
        delivery_id  INTEGER PRIMARY KEY AUTOINCREMENT,
        customer_id  TEXT NOT NULL,
        condition_id INTEGER NOT NULL UNIQUE,
        document     TEXT NOT NULL CHECK (json_valid(document))
      );
      CREATE INDEX deliveries_by_customer ON deliveries (customer_id, delivery_id);

      -- Counters for the other server-assigned ids.
      CREATE TABLE id_sequences (
        name TEXT PRIMARY KEY,
        last INTEGER NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO id_sequences (name, last) VALUES ('condition', 0), ('message', 0);
    `,
  },
  {
    version: 3,
    name: 'delivery, condition and message ids per customer',
    sql: `
      -- Counters shared by all customers let one customer read the others' volume in the gaps of its ids: each
      -- customer now has its own, which a delete never turns back.
      CREATE TABLE delivery_sequences (
        customer_id TEXT NOT NULL,
        name        TEXT NOT NULL CHECK (name IN ('delivery', 'condition', 'message')),
        last        INTEGER NOT NULL,
        PRIMARY KEY (customer_id, name)
      ) WITHOUT ROWID;

      -- A customer who may have been given ids already (one with deliveries, or with a mapi token to make them)
      -- goes on from the shared counters, so that no id it has seen, a deleted one included, comes back.
      INSERT INTO delivery_sequences (customer_id, name, last)
      SELECT customers.customer_id, counters.name, counters.last
      FROM (SELECT customer_id FROM deliveries UNION SELECT customer_id FROM tokens WHERE kind = 'mapi') AS customers
      CROSS JOIN (
        SELECT 'delivery' AS name, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'deliveries'), 0) AS last
        UNION ALL
        SELECT name, last FROM id_sequences
      ) AS counters;
      DROP TABLE id_sequences;

      -- Ids are unique per customer only now; existing ones, unique overall, stay as they are.
      CREATE TABLE deliveries_rebuilt (
        customer_id  TEXT NOT NULL,
        delivery_id  INTEGER NOT NULL,
        condition_id INTEGER NOT NULL,
        document     TEXT NOT NULL CHECK (json_valid(document)),
        PRIMARY KEY (customer_id, delivery_id),
        UNIQUE (customer_id, condition_id)
      );
      INSERT INTO deliveries_rebuilt (customer_id, delivery_id, condition_id, document)
      SELECT customer_id, delivery_id, condition_id, document FROM deliveries;
      DROP TABLE deliveries;
      ALTER TABLE deliveries_rebuilt RENAME TO deliveries;
    `,
  },
  {
    version: 4,
    name: 'identity protections: type options, customer settings, blocked values',
    sql: `
      -- links = 0: IDs of the type never link two nodes; max_holders: at most that many nodes hold one ID of it.
      ALTER TABLE schema_id_types ADD COLUMN links INTEGER NOT NULL DEFAULT 1 CHECK (links IN (0, 1));
      ALTER TABLE schema_id_types ADD COLUMN max_holders INTEGER CHECK (max_holders IS NULL OR max_holders >= 1);

      -- A customer without a row has the defaults.
      CREATE TABLE customer_settings (
        customer_id   TEXT PRIMARY KEY,
        require_token INTEGER NOT NULL CHECK (require_token IN (0, 1)),
        timezone      TEXT NOT NULL
      ) WITHOUT ROWID;

      -- The rules as the API shows them: read whole, replaced whole, never queried by their content.
      CREATE TABLE blocklists (
        customer_id TEXT PRIMARY KEY,
        rules       TEXT NOT NULL CHECK (json_valid(rules))
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 5,
    name: 'governance: node history',
    sql: `
      -- One row per entry, in the order the writes committed (entry_pk). It names IDs by their ids rows: key_pk, a
      -- rekeying's new_key_pk, and added and removed as JSON arrays of id_pk, or of [type] where an erase names
      -- only the type; so a value's bytes are stored once, in ids, however many entries name it. at: milliseconds.
      CREATE TABLE history (
        entry_pk    INTEGER PRIMARY KEY,
        customer_id TEXT NOT NULL,
        schema_id   TEXT NOT NULL,
        key_type    TEXT NOT NULL,
        key_pk      INTEGER NOT NULL,
        new_key_pk  INTEGER,
        at          INTEGER NOT NULL,
        request_id  TEXT NOT NULL,
        actor       TEXT NOT NULL,
        op          TEXT NOT NULL,
        added       TEXT NOT NULL,
        removed     TEXT NOT NULL
      );
      -- A key's entries; a rekeying is found under its new key too (few entries are rekeyings: a partial index).
      CREATE INDEX history_by_key ON history (key_pk, entry_pk);
      CREATE INDEX history_by_new_key ON history (new_key_pk, entry_pk) WHERE new_key_pk IS NOT NULL;

      -- From here on an ids row stays while a node holds the ID or an entry names it. last_entry is the newest entry
      -- that took the ID from a node (or the erase that did): once retention has deleted the entries up to it, no
      -- entry names an ID no node holds, and its row goes. An erased ID's row moves to the customer '' (no customer
      -- id is empty) with its id_pk as value: no lookup finds it, and the entries that name it show its type alone.
      ALTER TABLE ids ADD COLUMN last_entry INTEGER;
    `,
  },
  {
    version: 6,
    name: 'showing messages: live delivery counts, impressions, idempotency keys',
    sql: `
      -- A delivery's counts change with every impression: a small table of their own beside the document, which
      -- keeps what the client controls (the counts in it are no longer read), so that eligibility reads every
      -- delivery's counts without reading the documents. They were never changed before; copied all the same.
      CREATE TABLE delivery_counts (
        customer_id    TEXT NOT NULL,
        delivery_id    INTEGER NOT NULL,
        delivery_count INTEGER NOT NULL,
        iphone_count   INTEGER NOT NULL,
        android_count  INTEGER NOT NULL,
        PRIMARY KEY (customer_id, delivery_id)
      ) WITHOUT ROWID;
      INSERT INTO delivery_counts (customer_id, delivery_id, delivery_count, iphone_count, android_count)
      SELECT customer_id, delivery_id,
             coalesce(json_extract(document, '$.condition.delivery_count'), 0),
             coalesce(json_extract(document, '$.condition.iphone_delivery_count'), 0),
             coalesce(json_extract(document, '$.condition.android_delivery_count'), 0)
      FROM deliveries;

      -- Impressions, counted per delivery, per ID they were recorded against (by value: the ID may be held by no
      -- node) and per calendar day in the customer's time zone. A person's counts are sums over the IDs of their
      -- component: keyed by ID first, so those are one range per ID, whatever the delivery.
      CREATE TABLE impression_counts (
        customer_id TEXT NOT NULL,
        id_type     TEXT NOT NULL,
        id_value    TEXT NOT NULL,
        delivery_id INTEGER NOT NULL,
        day         TEXT NOT NULL,
        count       INTEGER NOT NULL CHECK (count >= 1),
        PRIMARY KEY (customer_id, id_type, id_value, delivery_id, day)
      ) WITHOUT ROWID;
      -- What deleting a delivery removes.
      CREATE INDEX impression_counts_by_delivery ON impression_counts (customer_id, delivery_id);

      -- The answer of each impression sent with an idempotency key, kept at least 24 hours. created_at: ISO instant.
      CREATE TABLE impression_keys (
        customer_id TEXT NOT NULL,
        delivery_id INTEGER NOT NULL,
        key         TEXT NOT NULL,
        answer      TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (customer_id, delivery_id, key)
      ) WITHOUT ROWID;
      CREATE INDEX impression_keys_by_age ON impression_keys (created_at);
    `,
  },
  {
    version: 7,
    name: 'deleted deliveries whose impressions are still to delete',
    sql: `
      -- Deleting a delivery deletes its document and counts at once, and records it here; its impression counts and
      -- idempotency keys, which may be millions of rows, are deleted afterwards in batches (Store.sweepDeletedDeliveries),
      -- each its own short transaction, and the row here last. Nothing reads them meanwhile: every reader starts from
      -- a delivery, and a customer's delivery ids are never given out twice.
      CREATE TABLE deleted_deliveries (
        customer_id TEXT NOT NULL,
        delivery_id INTEGER NOT NULL,
        PRIMARY KEY (customer_id, delivery_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 8,
    name: 'idempotency keys name the ID they were counted against',
    sql: `
      -- An erase deletes the answers of the impressions recorded against what it erases, found by the ID. Keys stored
      -- before name no one: '' (no ID type is empty). An erase deletes all of its customer's such keys, since any may
      -- be the erased person's; retention deletes them all within 24 hours anyway.
      ALTER TABLE impression_keys ADD COLUMN id_type TEXT NOT NULL DEFAULT '';
      ALTER TABLE impression_keys ADD COLUMN id_value TEXT NOT NULL DEFAULT '';
      CREATE INDEX impression_keys_by_id ON impression_keys (customer_id, id_type, id_value);
    `,
  },
  {
    version: 9,
    name: 'separations: pairs of nodes that must never hold a common ID',
    sql: `
      -- One row per ban, its nodes by row (node_a < node_b): a rekeying keeps the row, and deleting or erasing either
      -- node deletes the ban with it. A write adding IDs to a node reads its bans by either column.
      CREATE TABLE separations (
        customer_id TEXT NOT NULL,
        node_a      INTEGER NOT NULL REFERENCES nodes (node_pk) ON DELETE CASCADE,
        node_b      INTEGER NOT NULL REFERENCES nodes (node_pk) ON DELETE CASCADE,
        PRIMARY KEY (node_a, node_b),
        CHECK (node_a < node_b)
      ) WITHOUT ROWID;
      CREATE INDEX separations_by_b ON separations (node_b, node_a);
      CREATE INDEX separations_by_customer ON separations (customer_id);
    `,
  },
  {
    version: 10,
    name: 'the change feed: history positions never given twice, found by customer, and what retention took',
    sql: `
      -- entry_pk is the entry's position in the change feed (docs/changes-and-export.md): AUTOINCREMENT, so that a
      -- position is never given twice, even once retention has deleted every entry (a plain rowid would start again
      -- after the largest one left). redacts: an erase entry's JSON array of the entry_pk it redacted, else NULL.
      CREATE TABLE history_v10 (
        entry_pk    INTEGER PRIMARY KEY AUTOINCREMENT,
        customer_id TEXT NOT NULL,
        schema_id   TEXT NOT NULL,
        key_type    TEXT NOT NULL,
        key_pk      INTEGER NOT NULL,
        new_key_pk  INTEGER,
        at          INTEGER NOT NULL,
        request_id  TEXT NOT NULL,
        actor       TEXT NOT NULL,
        op          TEXT NOT NULL,
        added       TEXT NOT NULL,
        removed     TEXT NOT NULL,
        redacts     TEXT
      );
      INSERT INTO history_v10 (entry_pk, customer_id, schema_id, key_type, key_pk, new_key_pk, at, request_id, actor, op, added, removed)
      SELECT entry_pk, customer_id, schema_id, key_type, key_pk, new_key_pk, at, request_id, actor, op, added, removed FROM history;
      DROP TABLE history;
      ALTER TABLE history_v10 RENAME TO history;
      CREATE INDEX history_by_key ON history (key_pk, entry_pk);
      CREATE INDEX history_by_new_key ON history (new_key_pk, entry_pk) WHERE new_key_pk IS NOT NULL;
      -- A customer's feed.
      CREATE INDEX history_by_customer ON history (customer_id, entry_pk);

      -- The newest entry_pk of each customer that retention deleted: a cursor before it has missed entries.
      CREATE TABLE history_pruned (
        customer_id TEXT PRIMARY KEY,
        through     INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 11,
    name: 'imports under way',
    sql: `
      -- A customer an import is writing to (docs/changes-and-export.md): the row goes when the import finishes or is
      -- undone; one left by a process that stopped mid-import is undone at the next start. touched_at: the last
      -- batch's time, in milliseconds.
      CREATE TABLE imports (
        customer_id TEXT PRIMARY KEY,
        touched_at  INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 12,
    name: 'the key of the change feed cursors',
    sql: `
      -- The store's own secret, which keys the digests of the change feed's cursors (docs/changes-and-export.md): a
      -- cursor this file did not give is refused, however like this file's another store's positions are. One row,
      -- written by the store when it finds none (random bytes from Node's crypto).
      CREATE TABLE feed_key (
        id  INTEGER PRIMARY KEY CHECK (id = 1),
        key TEXT NOT NULL
      );
    `,
  },
];

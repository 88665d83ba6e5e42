// Generated from openapi.yaml by `npm run generate:types` (openapi-typescript, default options). Do not edit:
// change openapi.yaml and run the command again; npm test fails while this file and openapi.yaml disagree.
export interface paths {
    "/v1/{customer_id}/_search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * IDs held by the nodes linked to a start node
         * @description Start nodes: the node with (schema, key); or every node holding `where` (only in `schema` if given);
         *     when both key and where are given, the keyed node if it holds `where`. `key` needs `schema`.
         *     `step` ONE: the start nodes and the nodes sharing at least one ID with them; ALL (default): every node
         *     reachable through shared IDs. `exclude: true` removes the start nodes from the targets. Results are the
         *     distinct IDs held by the targets, filtered by `having.type`, without secure types unless authenticated,
         *     sorted by type then id in code-point order; the first `limit` of them. `total` counts them before
         *     `limit`. A start condition on a secure type needs authentication. An unknown `schema` is 404; no
         *     start node is 200 with no results. A search that would visit more than TRAVERSAL_MAX_NODES nodes, or
         *     whose visited nodes hold more than TRAVERSAL_MAX_IDS distinct IDs, is 422 `component_too_large`. The
         *     IDs counted are all those the visited nodes hold (start nodes and, for ONE, the nodes it reaches
         *     included), secure ones too, whether or not the caller may see them or `having`, `exclude` and `limit`
         *     leave them out of the results.
         *
         *     The answer's size is counted before it is built, from the IDs it would hold (their number, and the
         *     characters of their types and values; past `limit` IDs, at most `limit` of the longest). One larger than
         *     RESPONSE_MEMORY_LIMIT / MAX_CONNECTIONS takes twice its size of RESPONSE_MEMORY_LIMIT (it is held as
         *     records and as JSON) until it is sent: when other answers leave no room, 503 `server_busy` with
         *     `Retry-After`, at once; when it is larger than a quarter of RESPONSE_MEMORY_LIMIT, which it can never
         *     take, 422 `answer_too_large`: ask for less (a smaller `limit`, step ONE, another start).
         *
         *     IDs of a type declared `links: false` (see putSchema) are held, returned and usable as `where` (every
         *     node holding one is then a start node), but they link nothing: ONE and ALL never step from one node to
         *     another through them, so nodes that share only such IDs are not linked. The targets, and so `exclude`
         *     and `total`, follow: a node reached only through such an ID is not a target. Changing `links` takes
         *     effect on the next search.
         *
         *     When the customer's settings say `require_token`, every search needs a bearer token of the customer or
         *     the administrator token: 401 `authentication_required` without.
         */
        post: operations["search"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/_why": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Why two starts are one person (one shortest chain of nodes sharing IDs)
         * @description `from` and `to` are starts as the search's `match.from` (no `exclude`): a keyed node, or every node
         *     holding `where` (only in `schema` if given). The answer is one shortest chain from a node of `from` to a
         *     node of `to`: `path` alternates nodes and the IDs (`via`) each next node shares with the one before, and
         *     `hops` counts the vias. When one node is both a `from` and a `to` node, `path` is that node and `hops`
         *     is 0. Among equal shortest chains it is the smallest in code-point order of its vias (type, then id),
         *     then of its node keys (schema, key type, key id), as the caller sees them: without a bearer token the
         *     values of secure types compare equal (a secure via by its type alone, a node keyed by a secure type by its
         *     schema and key type), so only visible values decide and the answer never depends on a hidden one. The same
         *     on every store, however many chains tie; choosing among them costs what the search read (docs/why.md).
         *
         *     The chain is looked for up to 50 hops. No chain within `max_hops` (absent: 10) but one within 50 is
         *     `linked: false` with `reason: max_hops`; none within 50 (another component) is `linked: false` with no
         *     reason. IDs of `links: false` types are never a `via`. A start on a secure type needs a bearer token,
         *     and without one a secure via or key is shown as `{"type": T, "id": null, "secure": true}`. A start no
         *     node holds is 404 `node_not_found`; an unknown `schema` 404 `schema_not_found`. A search that would
         *     visit more than TRAVERSAL_MAX_NODES nodes, or read more than TRAVERSAL_MAX_IDS IDs, is 422
         *     `component_too_large`. With `require_token` in the
         *     customer's settings, a bearer token is always needed.
         */
        post: operations["why"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/_graph": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The nodes a search reaches, each with the IDs it holds (what the explorer draws)
         * @description The explorer's read (`GET /explore`). The start, `step`, `exclude`, the rules on tokens and the bounds
         *     are the search's (see `search`): the same start nodes and targets; secure IDs only with a token (a node
         *     whose key is of a secure type then has `key.id` null); a start on a secure type needs a token; 401 under
         *     `require_token` without one; an unknown `schema` is 404; past TRAVERSAL_MAX_NODES nodes or
         *     TRAVERSAL_MAX_IDS distinct IDs read, 422 `component_too_large`. No start node is 200 with no nodes.
         *
         *     `nodes` are the targets nearest first: level 0 is the start nodes (for step ALL from a `where` ID that
         *     links, every holder of that ID, whatever `schema` says: they are one component), level 1 the nodes
         *     sharing an ID with a level-0 node, and so on; within a level by schema, key type, key id, in code-point
         *     order. A key whose id is answered null orders nothing: nodes with such keys (of one schema and key type)
         *     follow one another in the order the store keeps them, which comes from when each node was stored, never
         *     from a secure value. At most `max_nodes` of them, and no more than hold TRAVERSAL_MAX_IDS IDs between them (an ID
         *     counted once per node holding it): the answer stops at the first node that does not fit, and
         *     `truncated` is then true. So every answered node but a start node shares an ID with a nearer answered
         *     one: a cut drawing stays connected (but for links through secure IDs a caller without a token cannot see).
         *
         *     The answer's size is counted as the search's is, before the IDs of the answered nodes are read: 503
         *     `server_busy` (with `Retry-After`) when other answers leave no room for it, 422 `answer_too_large` when
         *     it is larger than a quarter of RESPONSE_MEMORY_LIMIT: ask for less (a smaller `max_nodes`, step ONE).
         *
         *     `types` gives the options of each type named, so that a drawing can tell the IDs that link nothing
         *     (`links: false`) and the limited ones (`max_holders`). Read in one read of the store, but for `types`,
         *     read just after (a schema replacement in between is seen by the next call).
         */
        post: operations["graph"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/node/_create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a node
         * @description The node holds its key plus `ids` (an entry equal to the key is fine; other duplicates are 400).
         *     409 `node_exists` when the key is taken; 409 `node_id_limit_reached` when the node would hold more
         *     than NODE_MAX_IDS IDs, its key included. 409 `holder_limit_reached` when the key or an entry of `ids`
         *     is an ID of a type whose `max_holders` it has reached (that many nodes of the customer hold it
         *     already); the message names the type and the limit, never the value. 422 `blocked_id` when the key or
         *     an entry of `ids` holds a value the customer's blocklist blocks, with `errors` naming the path of each
         *     such value (`/body/key/id`, `/body/ids/2/id`). Nothing is created when any of these is the answer.
         *     Needs a token when any type involved is secure, and always when the customer's settings say
         *     `require_token` (401 `authentication_required` without).
         */
        post: operations["createNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/node/_insert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add IDs to an existing node
         * @description All or nothing: 409 `id_exists` (naming the ID, one of a secure type by its type alone) when the node already holds any listed ID, and 409
         *     `node_id_limit_reached` when the node would then hold more than NODE_MAX_IDS IDs, and 409
         *     `holder_limit_reached` when an entry of `ids` is an ID of a type whose `max_holders` it has reached
         *     (that many nodes of the customer hold it already; the message names the type and the limit, never the
         *     value); nothing is added then. 422 `blocked_id` when the key or an entry of `ids` holds a value the
         *     customer's blocklist blocks, with `errors` naming the path of each such value (`/body/key/id`,
         *     `/body/ids/2/id`); nothing is added. 404 `node_not_found` when the node does not exist. Duplicates
         *     within `ids` are 400. Needs a token when any type involved is secure, and always when the customer's
         *     settings say `require_token` (401 `authentication_required` without).
         */
        post: operations["insertIds"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/node/_update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace one held ID
         * @description Replaces the held ID equal to `where` with `set`. When the node holds no such ID, nothing changes
         *     (200). 409 `id_exists` when the node already holds `set`; 409 `key_id_immutable` when `where` is the
         *     key (use rekeying); 409 `holder_limit_reached` when `set` is an ID of a type whose `max_holders` it has
         *     reached (that many nodes of the customer hold it already; the message names the type and the limit,
         *     never the value). 422 `blocked_id` when the key or `set` holds a value the customer's blocklist
         *     blocks, with `errors` naming its path (`/body/key/id`, `/body/set/id`); `where` is never checked
         *     against the blocklist, so a blocked value already held can be replaced. Nothing changes when any of
         *     these is the answer. Needs a token when any type involved is secure, and always when the customer's
         *     settings say `require_token` (401 `authentication_required` without).
         */
        post: operations["updateId"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/node/_upsert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace one held ID, or add it
         * @description As update; when the node holds no ID equal to `where`, `set` is added (nothing happens if it is held
         *     already), unless the node holds NODE_MAX_IDS IDs already: 409 `node_id_limit_reached`, nothing changes.
         *     As for update, 409 `holder_limit_reached` when `set` would be held by one more node than its type's
         *     `max_holders` allows (the message names the type and the limit, never the value), and 422 `blocked_id`
         *     when the key or `set` holds a blocked value, with `errors` naming its path (`/body/key/id`,
         *     `/body/set/id`); nothing changes then. Needs a token when any type involved is secure, and always when
         *     the customer's settings say `require_token` (401 `authentication_required` without).
         */
        post: operations["upsertId"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/node/_rekeying": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change a node's key
         * @description The key (key.type, key.id) becomes (key.type, set.id), as the key and as a held ID. The same id is
         *     200 with no change; 409 `node_exists` when the new key is in use; 409 `holder_limit_reached` when the
         *     new key is an ID of a type whose `max_holders` it has reached (that many nodes of the customer hold it
         *     already; the message names the type and the limit, never the value). 422 `blocked_id` when the new key
         *     holds a value the customer's blocklist blocks, with `errors` naming `/body/set/id`; the old key is not
         *     checked, so rekeying is how a node leaves a blocked key. Nothing changes when any of these is the
         *     answer. Needs a token when any type involved is secure, and always when the customer's settings say
         *     `require_token` (401 `authentication_required` without).
         */
        post: operations["rekeyNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/node/_delete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delete one held ID, or the whole node
         * @description With `where`, the held ID equal to it is removed (not held: 204, nothing changes; the key: 409
         *     `key_id_immutable`). Without `where`, the node and all its links go. 404 when the node is missing.
         *     A delete is never refused by the blocklist or by `max_holders`: it is how a blocked value already held
         *     goes. Needs a token when any type involved is secure, and always when the customer's settings say
         *     `require_token` (401 `authentication_required` without).
         */
        post: operations["deleteNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/node/_bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Many node operations in one streamed request (NDJSON)
         * @description The body is NDJSON (`application/x-ndjson`): one JSON object per line, `{"op": "create" | "insert" |
         *     "upsert" | "delete", "body": {…}}`, where `body` is exactly the body of the single endpoint, checked
         *     by the same schema and the same rules (including when a token is needed; the request's token applies
         *     to every line). Lines run in order, each atomically on its own. The answer streams one NDJSON result
         *     line per input line, in order (blank lines are skipped and get none):
         *     `{"line": <1-based line number>, "status": <the status the single endpoint would give>}`, plus `code`,
         *     `detail` and for validation `errors` when the line was refused. A bad line never stops or changes the
         *     others. Each line answers the codes its single endpoint would, the identity protections included: 409
         *     `holder_limit_reached` (a create, insert or upsert line that would make one more node hold an ID whose
         *     type's `max_holders` is reached) and 422 `blocked_id` (a create, insert or upsert line whose key, `ids`
         *     or `set` holds a blocked value, with `errors` naming its path, such as `/body/ids/2/id`; a delete line
         *     never is); that line changes nothing, and the others run as usual. A line may hold at most BODY_LIMIT
         *     bytes (else that line is 413 `payload_too_large`); the request as a whole has no size limit. Only a bad
         *     token, a token of another customer, or no token for a customer whose settings say `require_token` (401
         *     `authentication_required`) refuses the whole request (401/403) before any line runs. An `op` that is
         *     not one of the four (also the names every JavaScript object inherits, such as `constructor` or
         *     `__proto__`) is that line's 400. A customer that has no schema is 404 `schema_not_found` for the whole
         *     request, with a token or without, since no line could be applied (every line names a schema, and
         *     schemas are declared by the administrator): an anonymous client cannot take a slot in the name of a
         *     made-up customer. These refusals come before the request takes a bulk slot.
         *
         *     The body may be sent with `Content-Encoding: gzip`; it is inflated as it arrives, and the line limits
         *     (BODY_LIMIT a line, BULK_BATCH_LIMIT a batch) apply to the inflated lines. Any other Content-Encoding is
         *     415 `unsupported_media_type`, before any line is read. A gzip body that does not inflate ends the
         *     answer with one last problem line (`status` 400, `code` `malformed_request`, no `line`, `detail`
         *     naming the last answered line; no later line was applied), and the connection is closed.
         *
         *     Lines are applied in batches of at most 500 lines and BULK_BATCH_LIMIT bytes; when the sender pauses
         *     (200 ms without a new line), the results of the lines sent so far are written. All bulk requests
         *     together hold at most BULK_MEMORY_LIMIT bytes of lines, each in progress taking BULK_BATCH_LIMIT +
         *     BODY_LIMIT of it: a request that finds no room for 5 s is refused with 503 `server_busy`, `Retry-After`
         *     and `Connection: close`, before any line is read. One customer's callers with a token, one customer's
         *     callers without, and one client address (without a token) each hold at most a quarter of the requests
         *     that fit (4 with the defaults, waiting ones included), and requests without a token hold at most three
         *     quarters together, the last quarter being kept for callers with a token: past that a request is refused
         *     at once with the same 503. The status (200) is sent as soon as the request holds a slot. A request that
         *     gets no complete line for BULK_LINE_TIMEOUT_MS, or whose body brings fewer than BULK_LINE_MIN_BYTES in a
         *     window of BULK_LINE_RATE_WINDOW_MS after its first (1 KB in 10 s with the defaults, counted over the
         *     whole body and over the time the request waits for it, not while it applies lines or writes results),
         *     ends with one last problem line (`status` 408, `code` `request_timeout`, no `line`, `detail` naming the
         *     last answered line; every earlier line was applied and answered), and the connection is closed.
         *
         *     Should the request fail on our side after results have started (the status is sent by then), the
         *     answer ends with one last line that is a problem object instead of a result (`status` 500, `code`
         *     `internal_error`, no `line`, `detail` naming the last answered line), and the stream is closed. Of the
         *     lines after the last answered one, those of the batch that was running (at most 500) may have been
         *     applied; the rest were not.
         */
        post: operations["bulkNodes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/schema": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The customer's schemas (administrator token) */
        get: operations["listSchemas"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/schema/{schema_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One schema (administrator token) */
        get: operations["getSchema"];
        /**
         * Create or replace a schema (administrator token)
         * @description Declares the ID types the schema's nodes may hold, each with its options: `secure` (default false),
         *     `links` (default true) and `max_holders` (default: no limit). One type has one value of each option
         *     across all schemas of a customer. An absent option means its default, so a declaration that omits
         *     `links` conflicts with one that says `links: false`, and one without `max_holders` conflicts with one
         *     that sets it.
         *
         *     Refusals, the first that applies: 400 `validation_failed` when the body declares a type twice; 409
         *     `secure_flag_conflict` when another schema of the customer declares a type with the other `secure`;
         *     409 `type_option_conflict` when another schema of the customer declares a type with another `links`
         *     or `max_holders`; 409 `secure_type_in_use` when a type's `secure` would turn off while any node of the
         *     customer holds an ID of that type (turning it on is always allowed); 409 `schema_in_use` when a
         *     replacement drops a type that nodes of the schema still hold. A refused PUT changes nothing.
         *
         *     Changing `links` takes effect at once on searches. Lowering `max_holders` below the number of nodes
         *     that hold an ID of the type today is allowed: those nodes keep it, and the limit is checked only on
         *     later writes. 201 when created, 200 when replaced.
         */
        put: operations["putSchema"];
        post?: never;
        /** Delete a schema that has no nodes (administrator token) */
        delete: operations["deleteSchema"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The customer's active tokens, without secrets (administrator token) */
        get: operations["listTokens"];
        put?: never;
        /**
         * Issue a token for the customer (administrator token)
         * @description `bearer` tokens authenticate node operations and search of this customer; `mapi` tokens are sent as
         *     `X-SERVICE-MAPI-TOKEN` to the delivery endpoints. The secret is in this response only; the service keeps
         *     a hash of it.
         */
        post: operations["createToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/token/{token_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a token; it stops working at once (administrator token) */
        delete: operations["revokeToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/blocklist": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The customer's blocked values (administrator token)
         * @description The rules as stored, in the order they were put; `{"rules":[]}` when none were ever put.
         */
        get: operations["getBlocklist"];
        /**
         * Replace the customer's blocked values (administrator token)
         * @description Replaces all the customer's rules with those given (an empty list removes them all) and answers 200
         *     with the rules as stored, `ignore_case` and `confusables` included. A value is blocked when any rule
         *     blocks it: a rule blocks the IDs of its `type` that equal one of its `values`, or that its `pattern`
         *     matches, both compared after normalizing the value and the rule alike (see BlockRule). From then
         *     on a node write whose key, `ids` or `set` holds a blocked value is refused whole with 422 `blocked_id`
         *     (in `_bulk`, that line), naming the path of the value; a delete never is. Values already held stay,
         *     and searches are not affected.
         *
         *     A `pattern` is RE2 syntax matched against the whole value (as if it began with `^` and ended with
         *     `$`), run on re2js, a linear-time engine, so no pattern can stall a request. In addition, a pattern
         *     RE2 cannot compile (backreferences, lookaround), or one safe-regex2 finds unsafe (nested quantifiers,
         *     for example `(a+)+$`, or more than 25 quantifiers in all) or cannot parse (such as the inline flag
         *     `(?i)`: use `ignore_case`), or one redos-detector finds ambiguous (text it matches in very many ways,
         *     for example `(a|a)*b` or `(a|aa)*c`) or cannot show safe within its limits, is refused with 400
         *     `validation_failed`, `errors` naming `/body/rules/{i}/pattern`, so that no stored rule can stall a
         *     backtracking engine an analyst copies it into (Neo4j's `=~`, JavaScript). So is a pattern whose
         *     literal characters cannot be normalized where they stand (see BlockRule), and `confusables` on a
         *     pattern (`/body/rules/{i}/confusables`). A refused PUT changes nothing. Rules stored before a check
         *     existed stay stored and are matched as before (RE2 runs them safely); a PUT that repeats one is refused.
         */
        put: operations["putBlocklist"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The customer's settings (administrator token)
         * @description The settings as stored, both fields present; the defaults (`{"require_token": false, "timezone": "UTC"}`) when none were ever put.
         */
        get: operations["getSettings"];
        /**
         * Replace the customer's settings (administrator token)
         * @description Replaces both fields: an absent field takes its default (`require_token` false, `timezone` "UTC"), not
         *     its stored value. Answers 200 with the settings as stored, both fields present. With `require_token`
         *     true, every search, node operation and `_bulk` of the customer needs a bearer token of the customer or
         *     the administrator token (401 `authentication_required` without); with false, a token is needed only
         *     where a secure ID type is involved. `timezone` is an IANA time-zone name, such as `Asia/Tokyo`: an
         *     unknown name is 400 `validation_failed` with `errors` naming `/body/timezone`. A refused PUT changes
         *     nothing.
         */
        put: operations["putSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/node/_history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who changed a node, when, and with which token
         * @description The history entries found under the node key (`schema`, `key_type`, `key_id`), newest first: one entry per
         *     node a successful write changed, appended in the same transaction as the write (the six node operations,
         *     each `_bulk` line, and `_erase`). A write that changes nothing (an update whose `where` is not held, a
         *     delete of an ID not held) has none. A rekeying's entry has `key` = the old key, `added` = [the new key ID],
         *     `removed` = [the old key ID], and is found under both keys. Create lists every held ID (the key first) in
         *     `added`; deleting a whole node lists every ID it held in `removed`. History outlives the node: a deleted
         *     node's entries stay readable, and an unknown key (or schema) is 200 `[]`; a node created again under that
         *     key shows them below its own. Values an erase took away show
         *     as `{"type": T, "id": null, "erased": true}`, and an entry whose key was erased is no longer found under
         *     it. `actor` is `token:<token_id>`, `admin` or `anonymous`, never the token. Entries older than
         *     HISTORY_RETENTION_DAYS are deleted (at start-up and every hour).
         *
         *     Always needs a bearer token of the customer, or the administrator token, whatever the ID types and the
         *     customer's settings (401 `authentication_required` without; 403 `forbidden` for another customer's
         *     token). Paginated exactly like the delivery list: `count` 1–100 (default 20), `page` ≥ 1 (default 1),
         *     anything else 400; `link` header (`next`, `previous`, `prev`) with absolute URLs that keep every query
         *     parameter; `X-Total-Count` is the number of entries under the key.
         */
        get: operations["nodeHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/_changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow every change of the customer's node history, as pages or a stream
         * @description The customer's node history as one feed, oldest first: every entry `GET …/node/_history` shows (each node
         *     write, each `_bulk` line, `_separate`, `_unseparate` and `_erase`), field for field, plus its `cursor`.
         *     Pass a change's `cursor` (or the answer's `next`) as `after` to get what came after it. A change's cursor
         *     never changes. Without `after` the feed starts at the oldest change history keeps
         *     (`HISTORY_RETENTION_DAYS`). `next` is never null: with no change it is a cursor that returns every later one.
         *     Secure IDs are shown in full: a token is required.
         *
         *     What a consumer can count on, on both stores, however many writers run:
         *     - **Complete, once.** Following `next` from the start, every change history holds is seen exactly once:
         *       no change ever lands before a cursor already given.
         *     - **In order.** A node's changes come in its history's order, and a write answered before another was sent
         *       comes before it, whatever nodes they touch. The changes of one request to different nodes (the lines of
         *       one `_bulk`, the two nodes of a `_separate`) come in some order among themselves.
         *     - **Only what committed.** A write that fails or is rolled back never appears.
         *     - **Erasure reaches the feed.** Once `_erase` has answered, no change shows an erased value: it shows as
         *       `{"type": T, "id": null, "erased": true}`, in the key too. Each `erase` change carries `redacts`, the
         *       cursors of the earlier changes of its node that showed a value it erased; an erase also appends an
         *       `erase` change to each node whose earlier changes showed an erased value, so that together they name
         *       every such change. A consumer that kept, for each value, the cursor of the change it came from can
         *       erase its copy exactly.
         *
         *     `wait` (seconds, 0–30): when nothing follows `after`, the call waits for the next commit and answers it
         *     within a second, or answers `{"changes": [], "next": <after>}` when the time is up. A waiting call holds no
         *     store connection; at most `CHANGES_MAX_WAITING` calls wait at once (event streams included), past which
         *     the answer is 503 `server_busy` with `Retry-After`. Waiting calls answer at once when the service stops.
         *
         *     **A stream.** With `Accept: text/event-stream` the changes come as server-sent events: `id:` the
         *     change's cursor, `event: change`, `data:` the change as JSON. The stream starts after `Last-Event-ID`
         *     when the header is sent (it wins over `after`), waits for new changes as `wait` does, sends a comment line
         *     (`: keep-alive`) after `CHANGES_KEEPALIVE_SECONDS` (15 s by default) without an event, and ends after `CHANGES_STREAM_SECONDS` (300 s by default) or
         *     when the service stops; `EventSource` reconnects with `Last-Event-ID`. `limit` and `wait` do not apply to
         *     a stream. Errors before the stream starts are problem answers, as for a page.
         *
         *     Needs a bearer token of the customer, or the administrator token (401 `authentication_required` without;
         *     403 `forbidden` for another customer's token). 400 `invalid_cursor` for a cursor this service did not give
         *     this customer, or that another store gave (cursors are bound to the store by a key of its own: after a
         *     migrate, or an import of an export, a consumer starts again from the new store's export); 410 `cursor_expired` for a cursor older than what history still keeps (retention deleted
         *     changes after it): start again from the customer's current state.
         */
        get: operations["listChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/_export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export the customer's whole state as NDJSON, consistent with one cursor of the change feed
         * @description A snapshot of the customer, streamed as NDJSON (one JSON object per line, each with its `kind`), in this
         *     order:
         *     1. `export`: `format` (1), `customer_id`, and `cursor`, a cursor of the change feed. The snapshot holds
         *        exactly the changes up to it, whatever writes run during the export: `GET …/_changes?after=<cursor>`
         *        gives every change after it.
         *     2. `settings` (as `GET …/settings` answers them), then `blocklist` (its `rules` as stored).
         *     3. `schema`, one per schema, in code-point order of `schema_id`.
         *     4. `node`, one per node: its `schema`, `key` and `ids` (every ID it holds but its key, in code-point order
         *        of type, then id); nodes in code-point order of schema, key type, key id. Two stores holding the same
         *        data export the same bytes.
         *     5. `separation`, one per ban, in the order `GET …/_separate` lists them.
         *     6. `delivery_ids`: the last delivery, condition and message ids the customer was given (0: none),
         *        deleted deliveries' included; then `delivery`, one per delivery (as `GET …/deliveries/{id}` answers it,
         *        counts included), by id; then `impressions`, what the deliveries' caps counted against one ID for one
         *        delivery, per calendar day (`days`, in order), by ID in code-point order, then delivery id.
         *     7. With `history=true`: `history`, one per node key history holds (deleted nodes' included), its `entries`
         *        oldest first as `GET …/node/_history` shows them, keys in the order of the node lines. Entries are
         *        grouped by the key they were written under (a rekeying under the key it left); those whose key an
         *        erasure took are grouped per schema and key type under `{"type": T, "id": null, "erased": true}`, after
         *        that type's other keys.
         *     8. `end`, with `lines`: how many lines came before it. An export without it was cut.
         *
         *     Tokens are never exported, nor the answers of idempotency keys (kept 24 hours for retries). Erased values
         *     are not there: an erasure leaves nothing to export.
         *
         *     The answer is streamed as it is read: what the service holds for it does not grow with the customer. On
         *     SQLite the export reads one view of the store (a read transaction of its own) and writes go on meanwhile.
         *     On Neo4j, which reads without snapshots, the export holds the customer's node writes back while it reads
         *     (they wait, then go on), for at most `NEO4J_EXPORT_TIMEOUT_MS`; past it the export is cut. At most
         *     `EXPORTS_MAX_RUNNING` exports run at once (503 `server_busy` past it). A client that stops reading holds its
         *     export, and on Neo4j the customer's writes, until the connection's idle timeout; one that goes away ends it.
         *
         *     Needs a bearer token of the customer, or the administrator token (401 `authentication_required` without;
         *     403 `forbidden` for another customer's token).
         */
        get: operations["exportCustomer"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/_import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restore an export into an empty customer
         * @description The body is an export (`GET …/_export`, of this customer or another; `customer_id` and `cursor` of its
         *     header are not used), as `application/x-ndjson`, plain or with `Content-Encoding: gzip`, read a line at a
         *     time. The customer must hold nothing: no schema, node, separation, delivery or history entry (its settings,
         *     blocklist and tokens may be there), else 409 `customer_not_empty`.
         *
         *     Every line is checked as the write it stands for would be: a `schema` line as `PUT …/schema/{schema_id}`
         *     takes it, `settings` and `blocklist` as their `PUT`s, a `node` as `_create` (its types declared by its
         *     schema; at most `NODE_MAX_IDS` IDs, which several writes may have given it), a `separation` as `_separate` (two nodes of the import), a `delivery` as
         *     `POST /v1/delivery` (its ids within what `delivery_ids` says was given); the blocklist and `max_holders` are
         *     not applied to the data, which passed them when it was written. The lines must come in an export's order,
         *     each once, and end with the `end` line, whose `lines` counts the others. A line at most 16 MB (or `BODY_LIMIT`
         *     if larger).
         *
         *     A refused line, a body that ends without the `end` line or with a wrong count, or a client that goes away:
         *     400 `invalid_import` (the problem's `line` names the line, from 1, and `detail` what is wrong, never a value),
         *     and the customer holds nothing of the import. While the import runs, the customer's other requests answer
         *     503 `import_in_progress`: in the process that runs it, at once; in the other processes that share its Neo4j,
         *     at once for a write (of nodes, schemas, settings, blocklist, separations or deliveries), and within a second
         *     for reads and impressions (each process reads which customers are importing once a second). An import that
         *     a stopped process left is undone at the next start.
         *
         *     Delivery ids, condition and message ids and the counts of deliveries and impressions are kept, so caps go
         *     on where they were. History entries keep their times, request ids and actors, and take new positions in
         *     the customer's change feed, in the export's order; an `erase` entry's `redacts` name no earlier change after
         *     an import. The settings and blocklist are those of the export once the import has finished.
         *
         *     Administrator token only.
         */
        post: operations["importCustomer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/_erase": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Erase an ID, or the whole person holding it, in one atomic change
         * @description `scope: "id"` (default): the ID is removed from every node that holds it, and a node whose key is that
         *     ID is deleted. `scope: "person"`: every node of the person's component is deleted: the nodes a search
         *     with step ALL reaches from every holder of the ID, never through `links: false` types.
         *
         *     The answer comes once the change is committed, as one transaction: a write racing it either happened
         *     before it and is erased, or after it and is kept whole. Afterwards the erased values are nowhere the
         *     service reads: not in nodes, searches or history. Erased values are, for scope `id`, the ID; for scope
         *     `person`, every ID the person's nodes held and every value their history names (back through rekeyings),
         *     except a value another node still holds (a `links: false` ID such as a shared device, which is not this
         *     person's alone). In history, each erased value becomes `{"type": T, "id": null, "erased": true}`, and
         *     the erase is recorded in the history of each node it changed with op `erase`, without values. The
         *     impressions recorded against an erased value go too, with the stored answers of their idempotency keys
         *     (see recordImpression). On the embedded store, deleted content is overwritten with zeros and the write-ahead log is checkpointed and
         *     truncated before the answer, so no byte of an erased value is left in the database files (docs/history-and-erasure.md
         *     says what Neo4j keeps).
         *
         *     Nothing holds the ID: 200 with zeros (its values still leave history). Past TRAVERSAL_MAX_NODES nodes
         *     (holders, for scope `id`) or TRAVERSAL_MAX_IDS IDs: 422 `component_too_large`, and nothing is erased.
         *     Always needs a bearer token of the customer, or the administrator token (401 `authentication_required`
         *     without; 403 `forbidden` for another customer's token).
         */
        post: operations["eraseId"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/{customer_id}/_separate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the customer's separated pairs
         * @description Ordered by the first node, then the second (code-point order of schema, key type, key id), each pair in
         *     that order too. Paginated as the delivery list: `count` 1–100 (default 20), `page` ≥ 1 (default 1),
         *     `link` and `X-Total-Count` headers. Always needs a bearer token of the customer, or the administrator token.
         */
        get: operations["listSeparations"];
        put?: never;
        /**
         * Keep two nodes from ever holding a common ID
         * @description Removes the IDs the two nodes share from the node `remove_shared_from` names, then records a ban on the
         *     pair, in one atomic change. From then on any write that would make the two hold a common ID (create,
         *     insert, update, upsert, rekeying, each bulk line, to either node) is refused with 409 `separated_nodes`
         *     and changes nothing; this holds for concurrent writes too. The ban is about direct sharing: the two may
         *     still be linked through other nodes. It follows a node through rekeying and goes when either node is
         *     deleted or erased. The separation is recorded in both nodes' history with op `separate` (the removed IDs
         *     in the `removed` of the node they left). Separating a pair already separated only removes shared IDs.
         *
         *     404 `node_not_found` for either node; 409 `ids_shared` with `none` while they share an ID; 409
         *     `key_id_immutable` when a shared ID is the key of the node named (remove it from the other). Always needs a
         *     bearer token of the customer, or the administrator token.
         */
        post: operations["separateNodes"];
        /**
         * Lift the ban on a pair
         * @description The pair in either order. Recorded in both nodes' history with op `unseparate`. 404 `node_not_found` for
         *     either node, 404 `separation_not_found` when the pair is not separated. Always needs a bearer token of the
         *     customer, or the administrator token.
         */
        delete: operations["unseparateNodes"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/delivery": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the in-app messages (deliveries) of the token's customer
         * @description Ordered by `delivery_id` ascending. `count` 1–100 (default 20) and `page` ≥ 1 (default 1); anything
         *     else is 400, never clamped. The `link` header (RFC 8288) carries absolute URLs that keep `count`:
         *     `rel="next"` when a later page has items, `rel="previous"` when `page` > 1 and the same URL again as
         *     `rel="prev"`; there is no `link` header when neither exists. `X-Total-Count` is the number of
         *     deliveries. A page past the end is an empty array. The URLs start with PUBLIC_BASE_URL, or else with the
         *     request's scheme and `Host`; an HTTP/1.0 request without `Host` is then 400 `malformed_request`.
         */
        get: operations["listDeliveries"];
        put?: never;
        /**
         * Add a delivery
         * @description `delivery_id`, `condition_id` and every `message_id` are assigned by the service, numbered per customer
         *     from 1 (a customer's first delivery is 1) and never given out twice to one customer; the count fields
         *     (`iphone_delivery_count`, `android_delivery_count`, `delivery_count`) are kept by it and start at 0.
         *     Values a client sends for any of these are accepted and ignored.
         */
        post: operations["createDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/delivery/{delivery_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One delivery */
        get: operations["getDelivery"];
        /**
         * Replace a delivery
         * @description Replaces what the client controls. `delivery_id` and `condition_id` stay; the counts stay; a message
         *     sent with the `message_id` of one of this delivery's messages keeps it, other messages get new ids.
         */
        put: operations["replaceDelivery"];
        post?: never;
        /** Delete a delivery */
        delete: operations["deleteDelivery"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/delivery/_eligible": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Which deliveries a person should see now, on this event
         * @description The person is the component of `user` in the customer's identity graph at the time of the request (a
         *     search with step ALL from every node holding it, never through `links: false` types); an ID no node
         *     holds is a person of its own. Their counts are the sums of the impressions recorded against every ID of
         *     the component, `links: false` ones included.
         *
         *     A delivery is eligible when none of these holds; the first that holds is its reason (in `excluded`):
         *     `inactive` (`is_active` false), `event_not_matched` (`event_name` not in `trigger.event_name`),
         *     `outside_period` (`at` in no period, `start` ≤ at < `end`, compared as instants whatever their offsets),
         *     `not_in_segment` (`segments` given, an empty list included, without `target.segmentation_id`),
         *     `delivery_cap_reached` (`delivery_count` ≥ `max_delivery_count`), `person_cap_reached` (the person's
         *     impressions ≥ `max_total_count`), `person_daily_cap_reached` (the person's impressions on the calendar day
         *     of `at` in the customer's `timezone` setting ≥ `max_total_count_per_day`). `platform` is checked and
         *     changes nothing here.
         *
         *     200 with the eligible deliveries in the list's Delivery format (live counts), highest `priority` first,
         *     then `delivery_id` ascending; with `explain: true` also `excluded`, every other delivery with its reason,
         *     in `delivery_id` order. Nothing is counted: an app asks, shows, then records the impression; the caps are
         *     enforced there, exactly. A person past TRAVERSAL_MAX_NODES nodes or TRAVERSAL_MAX_IDS IDs is 422
         *     `component_too_large`. The person is read only when some delivery passes the rules that need no counts
         *     (`inactive` to `not_in_segment`); otherwise nothing is eligible whoever the person is, and the answer
         *     comes without reading it.
         *
         *     A `user` of a type that a schema of the customer declares secure needs a bearer token of that customer (or
         *     the administrator token) in `Authorization: Bearer <token>`, beside the mapi token in
         *     `X-SERVICE-MAPI-TOKEN`: without one it is 401 `authentication_required` and nothing is read, whether or
         *     not any node holds the value, so the mapi token alone never tells whether a secure value belongs to
         *     someone. A bearer token of another customer is 403 `forbidden`. Other types need no bearer token; one
         *     sent is checked all the same.
         */
        post: operations["deliveryEligibility"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/delivery/{delivery_id}/_impression": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Count one display of a delivery to a person
         * @description Counts one display against the ID given in `user`, on the calendar day of `at` (default: now) in the
         *     customer's `timezone`: it adds 1 to `delivery_count`, and to `iphone_delivery_count` (`ios`) or
         *     `android_delivery_count` (`android`). 201 with the counts right after it: the delivery's, and the
         *     person's in all and on that day (the person as for `_eligible`: every ID linked to `user`).
         *
         *     409 `cap_reached`, with `cap` naming it, when counting it would pass `max_delivery_count`,
         *     `max_total_count` or `max_total_count_per_day` (checked in that order); nothing is counted. Exact under
         *     concurrency: impressions of one delivery are applied one at a time, so N concurrent ones for one person,
         *     even through different linked IDs, against a cap of k give exactly min(N, k) 201s, and the same for
         *     `max_delivery_count` across people. Activity and periods are not checked: the display was already decided.
         *
         *     `idempotency_key` (1–128 characters): a repeat with a key already used for this delivery answers the
         *     first 201 again, with `Idempotent-Replayed: true`, and counts nothing, whatever else the repeat's body
         *     says. Keys are kept 24 hours (deleted by the hourly retention round after that). Only counted impressions
         *     keep their key: a repeat of one refused with 409 is decided again.
         *
         *     404 `delivery_not_found` for a delivery the customer does not have. Deleting a delivery deletes its
         *     impressions and keys (right after the delivery, in the background, in batches; nothing counts them
         *     meanwhile); replacing it keeps them. An `_erase` deletes the impressions recorded against every
         *     value it erases, and the keys (with their stored answers) of those impressions, so a repeat of one is
         *     counted again (the person's counts go; `delivery_count` and the platform counts, the delivery's own, stay). A person past TRAVERSAL_MAX_NODES nodes or TRAVERSAL_MAX_IDS IDs is 422
         *     `component_too_large`, and nothing is counted.
         *
         *     A `user` of a type that a schema of the customer declares secure needs a bearer token of that customer (or
         *     the administrator token) in `Authorization: Bearer <token>`, beside the mapi token in
         *     `X-SERVICE-MAPI-TOKEN`: without one it is 401 `authentication_required`, nothing is counted and its
         *     `idempotency_key` is not stored, whether or not any node holds the value, so the mapi token alone never
         *     tells whether a secure value belongs to someone. A bearer token of another customer is 403 `forbidden`.
         *     Other types need no bearer token; one sent is checked all the same.
         */
        post: operations["recordImpression"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * 200 while the process runs
         * @description Takes no input; a query string is ignored.
         */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * 200 when the store answers, else 503
         * @description 503 also once shutdown has begun. Takes no input; a query string is ignored.
         */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text exposition format)
         * @description Request counts and latency by route template and status, store operation latency, search traversal size, process metrics. No ID values, tokens or customer ids in any label.
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.yaml": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This contract */
        get: operations["contract"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The contract rendered by Swagger UI (served from the installed package, no CDN) */
        get: operations["docs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/explore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The graph explorer, a page that draws a person from `graph` (served from this service, no CDN)
         * @description Paste a token (kept in the page's memory, never in a URL), a customer and an ID; the page draws what
         *     `graph` answers. Its script and style are files under `/explore/`, built by `npm run build` (and before
         *     `npm start`); 404 when they were not built.
         */
        get: operations["explore"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description Customer, schema and token identifiers: letters, digits and `_ . : -`, 1 to 64 characters. */
        Name: string;
        /** @description A Name other than `delivery`, `.` and `..`. */
        CustomerId: string;
        /** @description An ID type name: letters, digits and `_ . : -`, 1 to 64 characters. */
        IdType: string;
        /** @description An ID value, 1 to 1024 characters. */
        IdValue: string;
        IdPair: {
            type: components["schemas"]["IdType"];
            id: components["schemas"]["IdValue"];
        };
        /** @description At most 1000 IDs per request. */
        IdList: components["schemas"]["IdPair"][];
        Empty: Record<string, never>;
        SearchRequest: {
            match: {
                from: components["schemas"]["SearchStart"];
                step?: components["schemas"]["Step"];
                having?: {
                    type?: components["schemas"]["IdType"];
                };
            };
            /** @description Number of results, 1 to SEARCH_MAX_LIMIT (default 100000). When absent, 10000 (or SEARCH_MAX_LIMIT if that is lower). */
            limit?: number;
        };
        /** @description The search's start without `exclude`; either schema with key, or where (with an optional schema), or all three. */
        WhyStart: {
            schema?: components["schemas"]["Name"];
            key?: components["schemas"]["IdPair"];
            where?: components["schemas"]["IdPair"];
        };
        WhyRequest: {
            from: components["schemas"]["WhyStart"];
            to: components["schemas"]["WhyStart"];
            /** @description The most vias the chain may have, 1 to 50. Absent: 10. */
            max_hops?: number;
        };
        /** @description An ID, or without a token one of a secure type, its value hidden. */
        WhyId: components["schemas"]["IdPair"] | {
            type: components["schemas"]["IdType"];
            id: null;
            /** @enum {boolean} */
            secure: true;
        };
        WhyStep: {
            node: {
                schema: components["schemas"]["Name"];
                key: components["schemas"]["WhyId"];
            };
        } | {
            via: components["schemas"]["WhyId"];
        };
        WhyResponse: {
            linked: boolean;
            /** @description How many vias the chain has; null when not linked. */
            hops: number | null;
            /** @description Node, via, node, ... from a node of `from` to a node of `to`; empty when not linked. */
            path: components["schemas"]["WhyStep"][];
            /**
             * @description `max_hops`: a chain exists, but longer than `max_hops`.
             * @enum {string}
             */
            reason?: "max_hops";
        };
        /** @description Either schema with key, or where (with an optional schema), or all three. */
        SearchStart: {
            schema?: components["schemas"]["Name"];
            key?: components["schemas"]["IdPair"];
            where?: components["schemas"]["IdPair"];
            /** @description `true`: the start nodes are left out of the answer. Absent: `false`. */
            exclude?: boolean;
        };
        /**
         * @default ALL
         * @enum {string}
         */
        Step: "ONE" | "ALL";
        GraphRequest: {
            /** @description The search's start and step (no `having`). */
            match: {
                from: components["schemas"]["SearchStart"];
                step?: components["schemas"]["Step"];
            };
            /** @description The most nodes answered. Absent: 500. */
            max_nodes?: number;
        };
        GraphResponse: {
            /** @description Nearest first (see the operation); each node once. */
            nodes: {
                schema: string;
                key: {
                    type: string;
                    /** @description null when the key's type is secure and the request has no token. */
                    id: string | null;
                };
                /** @description Every ID the node holds, its key included (secure ones only with a token), by type then id in code-point order. */
                ids: components["schemas"]["IdPair"][];
            }[];
            /** @description true when some node the search reaches is not in `nodes` (max_nodes, or TRAVERSAL_MAX_IDS IDs answered). */
            truncated: boolean;
            /** @description The options of every ID type `nodes` names (keys included), by type in code-point order. */
            types: {
                type: string;
                secure: boolean;
                /** @description false when IDs of this type never link two nodes. */
                links: boolean;
                /** @description Present when the type limits how many nodes may hold one of its IDs. */
                max_holders?: number;
            }[];
        };
        SearchResponse: {
            results: {
                id: string;
                type: string;
            }[];
            /** @description The number of IDs the caller may see before `limit` is applied. */
            total: number;
        };
        CreateNodeRequest: {
            schema: components["schemas"]["Name"];
            key: components["schemas"]["IdPair"];
            ids?: components["schemas"]["IdList"];
        };
        InsertRequest: {
            schema: components["schemas"]["Name"];
            key: components["schemas"]["IdPair"];
            /** @description 1 to 1000 IDs. */
            ids: components["schemas"]["IdPair"][];
        };
        UpdateRequest: {
            schema: components["schemas"]["Name"];
            key: components["schemas"]["IdPair"];
            set: components["schemas"]["IdPair"];
            where: components["schemas"]["IdPair"];
        };
        RekeyRequest: {
            schema: components["schemas"]["Name"];
            key: components["schemas"]["IdPair"];
            set: {
                id: components["schemas"]["IdValue"];
            };
        };
        DeleteRequest: {
            schema: components["schemas"]["Name"];
            key: components["schemas"]["IdPair"];
            where?: components["schemas"]["IdPair"];
        };
        /** @description An ID in a history entry; once erased, its value is null and `erased` is true. */
        HistoryId: {
            type: components["schemas"]["IdType"];
            id: string | null;
            /** @constant */
            erased?: true;
        };
        HistoryEntry: {
            /**
             * Format: date-time
             * @description When the write was applied (UTC, milliseconds).
             */
            at: string;
            /** @description The X-Request-Id of the request that wrote it; empty when none. */
            request_id: string;
            /** @description `token:<token_id>`, `admin` or `anonymous`. */
            actor: string;
            /** @enum {string} */
            op: "create" | "insert" | "update" | "upsert" | "rekeying" | "delete" | "erase" | "separate" | "unseparate";
            schema: components["schemas"]["Name"];
            key: components["schemas"]["HistoryId"];
            added: components["schemas"]["HistoryId"][];
            removed: components["schemas"]["HistoryId"][];
        };
        /** @description An opaque cursor of the change feed; bound to its customer. */
        ChangeCursor: string;
        Change: {
            cursor: components["schemas"]["ChangeCursor"];
            /**
             * Format: date-time
             * @description When the write was applied (UTC, milliseconds).
             */
            at: string;
            /** @description The X-Request-Id of the request that wrote it; empty when none. */
            request_id: string;
            /** @description `token:<token_id>`, `admin` or `anonymous`. */
            actor: string;
            /** @enum {string} */
            op: "create" | "insert" | "update" | "upsert" | "rekeying" | "delete" | "erase" | "separate" | "unseparate";
            schema: components["schemas"]["Name"];
            key: components["schemas"]["HistoryId"];
            added: components["schemas"]["HistoryId"][];
            removed: components["schemas"]["HistoryId"][];
            /** @description On `erase` changes only: the cursors of the earlier changes of this node that showed a value this erase erased. */
            redacts?: components["schemas"]["ChangeCursor"][];
        };
        ChangePage: {
            changes: components["schemas"]["Change"][];
            next: components["schemas"]["ChangeCursor"];
        };
        /** @description One line of an export (`GET …/_export`), by its `kind`. */
        ExportLine: components["schemas"]["ExportHeaderLine"] | components["schemas"]["ExportSettingsLine"] | components["schemas"]["ExportBlocklistLine"] | components["schemas"]["ExportSchemaLine"] | components["schemas"]["ExportNodeLine"] | components["schemas"]["ExportSeparationLine"] | components["schemas"]["ExportDeliveryIdsLine"] | components["schemas"]["ExportDeliveryLine"] | components["schemas"]["ExportImpressionsLine"] | components["schemas"]["ExportHistoryLine"] | components["schemas"]["ExportEndLine"];
        ExportHeaderLine: {
            /** @constant */
            kind: "export";
            /** @constant */
            format: 1;
            customer_id: string;
            cursor: components["schemas"]["ChangeCursor"];
        };
        ExportSettingsLine: {
            /** @constant */
            kind: "settings";
            require_token: boolean;
            timezone: string;
        };
        ExportBlocklistLine: {
            /** @constant */
            kind: "blocklist";
            rules: components["schemas"]["StoredBlockRule"][];
        };
        ExportSchemaLine: {
            /** @constant */
            kind: "schema";
            schema_id: string;
            id_types: components["schemas"]["Schema"]["id_types"];
        };
        ExportNodeLine: {
            /** @constant */
            kind: "node";
            schema: components["schemas"]["Name"];
            key: components["schemas"]["IdPair"];
            /** @description Every ID the node holds but its key: up to NODE_MAX_IDS, which several writes may reach (one write adds at most 1000). */
            ids: components["schemas"]["IdPair"][];
        };
        ExportSeparationLine: {
            /** @constant */
            kind: "separation";
            nodes: components["schemas"]["SeparatedNode"][];
        };
        ExportDeliveryIdsLine: {
            /** @constant */
            kind: "delivery_ids";
            delivery: number;
            condition: number;
            message: number;
        };
        ExportDeliveryLine: {
            /** @constant */
            kind: "delivery";
            delivery: components["schemas"]["Delivery"];
        };
        ExportImpressionsLine: {
            /** @constant */
            kind: "impressions";
            id: components["schemas"]["IdPair"];
            delivery_id: number;
            days: {
                /** @description A calendar day, YYYY-MM-DD, in the customer's time zone. */
                day: string;
                count: number;
            }[];
        };
        ExportHistoryLine: {
            /** @constant */
            kind: "history";
            schema: string;
            key: components["schemas"]["HistoryId"];
            entries: components["schemas"]["HistoryEntry"][];
        };
        ExportEndLine: {
            /** @constant */
            kind: "end";
            /** @description How many lines came before this one. */
            lines: number;
        };
        ImportResult: {
            schemas: number;
            nodes: number;
            /** @description The IDs the nodes hold, keys included. */
            ids: number;
            separations: number;
            deliveries: number;
            history_entries: number;
        };
        EraseRequest: {
            id: components["schemas"]["IdPair"];
            /**
             * @description `id`: the one ID; `person`: every ID of its person. Absent: `id`.
             * @enum {string}
             */
            scope?: "id" | "person";
        };
        SeparatedNode: {
            schema: components["schemas"]["Name"];
            key: components["schemas"]["IdPair"];
        };
        SeparatePair: {
            /** @description The two nodes, A and B; two different nodes. */
            nodes: components["schemas"]["SeparatedNode"][];
        };
        SeparateRequest: {
            /** @description The two nodes, A and B; two different nodes. */
            nodes: components["schemas"]["SeparatedNode"][];
            /**
             * @description The node the IDs the two share are removed from (`A`: the first, `B`: the second), or `none`: 409 `ids_shared` while they share one.
             * @enum {string}
             */
            remove_shared_from: "A" | "B" | "none";
        };
        SeparateResult: {
            /** @description The shared IDs removed from the node named. */
            ids_removed: number;
        };
        Separation: {
            /** @description The two nodes, in code-point order of schema, key type, key id. */
            nodes: components["schemas"]["SeparatedNode"][];
        };
        EraseResult: {
            /** @description Nodes deleted. */
            nodes_deleted: number;
            /** @description IDs removed from nodes that remain. */
            ids_removed: number;
        };
        SchemaDefinition: {
            /** @description 1 to 100 ID types, each named once. */
            id_types: {
                type: components["schemas"]["IdType"];
                /** @description IDs of this type are returned by search, and touched by node operations, only with a bearer token. Absent: `false`. */
                secure?: boolean;
                /** @description `false`: IDs of this type are held, returned and usable as a search's `where`, but two nodes holding the same such ID are not linked by it (ONE and ALL never step through it): for IP addresses, countries, shared devices. Absent: `true`. */
                links?: boolean;
                /** @description At most this many nodes of the customer may hold one ID of this type, 1 to 1000000; absent: no limit. A write that would make one more node hold it is 409 `holder_limit_reached`. */
                max_holders?: number;
            }[];
        };
        Schema: {
            schema_id: string;
            id_types: {
                type: string;
                secure: boolean;
                links: boolean;
                /** @description Present only when set. */
                max_holders?: number;
            }[];
        };
        TokenRequest: {
            /** @enum {string} */
            kind: "bearer" | "mapi";
            /** @description A note for people, at most 200 characters. */
            label?: string;
        };
        Token: {
            token_id: string;
            /** @enum {string} */
            kind: "bearer" | "mapi";
            label: string | null;
            /** Format: date-time */
            created_at: string;
        };
        IssuedToken: {
            token_id: string;
            /** @description The secret; shown only in this response. */
            token: string;
            /** @enum {string} */
            kind: "bearer" | "mapi";
            label: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /**
         * @description One rule of a blocklist: its `type`, and exactly one of `values` or `pattern`. `ignore_case`: `values`
         *     are compared, and `pattern` is matched, without regard to case (full Unicode case folding: `ß` is
         *     `ss`, `İ` is `i`).
         *
         *     The value and each listed value are normalized alike before they are compared: default-ignorable
         *     code points (zero-width spaces, soft hyphens, …) removed; NFKC (fullwidth `ｔｅｓｔ` is `test`); case
         *     folded under `ignore_case`; every decimal digit of any script (`٠`, `०`) made its ASCII digit;
         *     trimmed; one trailing dot removed (`example.com.` is `example.com`). A `pattern` is matched against
         *     the value normalized so, with its own literal characters (also `\x{…}` and `\Q…\E`) normalized the
         *     same way, and against the value as written; a pattern that asks for a character values lose
         *     (a zero-width space), or has in a character class one that normalizes to none or several (`[ß]`
         *     under `ignore_case`) or a range with an end that normalization changes (`[Ａ-Ｚ]`), is refused.
         */
        BlockRule: {
            type: components["schemas"]["IdType"];
            /** @description 1 to 1000 blocked values, each compared with the whole value. */
            values?: components["schemas"]["IdValue"][];
            /**
             * @description A regular expression in RE2 syntax, 1 to 200 characters, that must match the whole value (it is
             *     anchored at both ends), run on a linear-time engine (re2js). A pattern RE2 cannot compile
             *     (backreferences, lookaround), or that safe-regex2 finds unsafe (nested quantifiers, for example
             *     `(a+)+$`) or cannot parse (`(?i)`: use `ignore_case`), or that redos-detector finds ambiguous
             *     (`(a|a)*b`, `(a|aa)*c`), is 400 `validation_failed` naming `/body/rules/{i}/pattern`.
             */
            pattern?: string;
            /** @description `true`: letters match in any case. Absent: `false`. */
            ignore_case?: boolean;
            /**
             * @description Rules with `values` only: also block a value that looks like a listed one, by Unicode's
             *     confusables data (UTS #39 skeletons of the normalized values are compared), such as `аdmin` with a
             *     Cyrillic `а` for `admin`, or `rn` for `m`. 400 `validation_failed` on a `pattern` rule. Absent: `false`.
             */
            confusables?: boolean;
        } & ({
            values: unknown;
        } | {
            pattern: unknown;
        });
        /** @description A customer's blocked values; a PUT replaces every rule. */
        Blocklist: {
            /** @description At most 100 rules; a value is blocked when any of them blocks it. */
            rules: components["schemas"]["BlockRule"][];
        };
        /** @description A BlockRule as stored; `ignore_case` and `confusables` always present. */
        StoredBlockRule: {
            type: string;
            values?: string[];
            pattern?: string;
            ignore_case: boolean;
            confusables: boolean;
        } & ({
            values: unknown;
        } | {
            pattern: unknown;
        });
        StoredBlocklist: {
            rules: components["schemas"]["StoredBlockRule"][];
        };
        /** @description A customer's settings; a PUT replaces both fields, and an absent one takes its default. */
        Settings: {
            /** @description `true`: every search, node operation and `_bulk` of the customer needs a bearer token of the customer or the administrator token (401 `authentication_required` without). Absent: `false`. */
            require_token?: boolean;
            /** @description An IANA time-zone name, 1 to 64 characters (such as `UTC` or `Asia/Tokyo`): the calendar day of per-day delivery caps. An unknown name is 400 `validation_failed`. Absent: `UTC`. */
            timezone?: string;
        };
        /** @description The settings as stored; both fields always present. */
        StoredSettings: {
            require_token: boolean;
            timezone: string;
        };
        /**
         * Format: date-time
         * @description RFC 3339 date-time with a UTC offset (`Z` or `±hh:mm`).
         */
        DateTimeWithOffset: string;
        /** @description A display period; `start` is before `end`. Leap seconds (`:60`) are refused (400 `validation_failed`), as they cannot be compared. */
        Period: {
            start: components["schemas"]["DateTimeWithOffset"];
            end: components["schemas"]["DateTimeWithOffset"];
        };
        /** @description An event name, 1 to 100 characters. */
        EventName: string;
        Trigger: {
            /** @description At most 10 event names. */
            event_name: components["schemas"]["EventName"][];
            /** @description At most 100 periods. */
            period: components["schemas"]["Period"][];
        };
        Target: {
            segmentation_id: number;
        };
        /**
         * Format: uri
         * @description An absolute `http` or `https` URL (the scheme in any case) with a host, 1 to 2083 characters. Other schemes
         *     (`javascript:`, `data:`, `file:`, app links) are 400 `validation_failed`: an app shows this image as is.
         */
        ImageUrl: string;
        /**
         * Format: uri
         * @description A URI (RFC 3986, so no spaces or control characters), 1 to 2083 characters: a web address or an app's
         *     deep link such as `myapp://screen/1`. `javascript:` and `data:` URLs, in any case, are 400
         *     `validation_failed`: an app opens this URL when the button is tapped.
         */
        ButtonUrl: string;
        Button: {
            /** @description 1 to 64 characters. */
            id: string;
            /** @description 1 to 100 characters. */
            name: string;
            url: components["schemas"]["ButtonUrl"];
            event_name: components["schemas"]["EventName"];
        };
        /** @description The client's part of a condition; the count fields and `condition_id` are accepted and ignored. */
        ConditionInput: {
            trigger: components["schemas"]["Trigger"];
            target: components["schemas"]["Target"];
            iphone_delivery_count?: number;
            android_delivery_count?: number;
            delivery_count?: number;
            max_delivery_count: number;
            max_total_count: number;
            max_total_count_per_day: number;
            /** @description At most 100 characters. */
            category: string;
            condition_id?: number;
            is_active: boolean;
        };
        MessageInput: {
            template_id: number;
            title: string;
            body: string;
            image_url: components["schemas"]["ImageUrl"];
            /** @description At most 5 buttons. */
            buttons: components["schemas"]["Button"][];
            message_id?: number;
        };
        DeliveryInput: {
            name: string;
            priority: number;
            /** @description Ignored; assigned by the service. */
            delivery_id?: number;
            condition: components["schemas"]["ConditionInput"];
            /** @description 1 to 10 messages. */
            message: components["schemas"]["MessageInput"][];
        };
        Delivery: {
            name: string;
            priority: number;
            delivery_id: number;
            condition: {
                trigger: components["schemas"]["Trigger"];
                target: components["schemas"]["Target"];
                iphone_delivery_count: number;
                android_delivery_count: number;
                delivery_count: number;
                max_delivery_count: number;
                max_total_count: number;
                max_total_count_per_day: number;
                category: string;
                condition_id: number;
                is_active: boolean;
            };
            message: {
                template_id: number;
                title: string;
                body: string;
                image_url: components["schemas"]["ImageUrl"];
                buttons: components["schemas"]["Button"][];
                message_id: number;
            }[];
        };
        /**
         * @description The app's platform; `other` when absent.
         * @default other
         * @enum {string}
         */
        Platform: "ios" | "android" | "other";
        EligibleRequest: {
            user: components["schemas"]["IdPair"];
            event_name: components["schemas"]["EventName"];
            platform?: components["schemas"]["Platform"];
            /** @description The moment to decide for; now when absent. A leap second (`:60`) is 400 `validation_failed`. */
            at?: components["schemas"]["DateTimeWithOffset"];
            /** @description The segment ids the caller knows the person is in, 0 to 1000 of them; absent: segments are not checked. */
            segments?: number[];
            /** @description `true`: the answer also lists every other delivery with the reason it is not shown. Absent: `false`. */
            explain?: boolean;
        };
        /** @enum {string} */
        ExclusionReason: "inactive" | "event_not_matched" | "outside_period" | "not_in_segment" | "delivery_cap_reached" | "person_cap_reached" | "person_daily_cap_reached";
        EligibleResponse: {
            deliveries: components["schemas"]["Delivery"][];
            /** @description With `explain` only, in `delivery_id` order. */
            excluded?: {
                delivery_id: number;
                reason: components["schemas"]["ExclusionReason"];
            }[];
        };
        ImpressionRequest: {
            user: components["schemas"]["IdPair"];
            platform?: components["schemas"]["Platform"];
            /** @description When it was shown; now when absent. Its calendar day in the customer's `timezone` is the day it counts on. A leap second (`:60`) is 400 `validation_failed`. */
            at?: components["schemas"]["DateTimeWithOffset"];
            /** @description 1 to 128 characters; a repeat with a key already used for this delivery counts nothing and answers the first answer. */
            idempotency_key?: string;
        };
        ImpressionResult: {
            delivery_id: number;
            /** @description The delivery's count after this impression. */
            delivery_count: number;
            /** @description The person's impressions of this delivery, this one included. */
            person_total: number;
            /** @description The same, on the calendar day of `at` in the customer's time zone. */
            person_today: number;
        };
        /** @description One line of a bulk request. */
        BulkLine: {
            /** @enum {string} */
            op: "create" | "insert" | "upsert" | "delete";
            /** @description The body of the single endpoint (CreateNodeRequest, InsertRequest, UpdateRequest or DeleteRequest). */
            body: Record<string, never>;
        };
        /** @description The answer to one bulk line. */
        BulkResult: {
            line: number;
            status: number;
            code?: string;
            detail?: string;
            errors?: {
                path: string;
                message: string;
            }[];
        };
        Health: {
            status: string;
        };
        /** @description RFC 9457 problem details. `code` is stable; `errors` lists each validation problem. */
        Problem: {
            /**
             * Format: uri
             * @description urn:idlink:problem:<code>
             */
            type: string;
            title: string;
            status: number;
            detail: string;
            /** @enum {string} */
            code: "malformed_request" | "invalid_json" | "validation_failed" | "key_type_not_in_schema" | "id_type_not_in_schema" | "blocked_id" | "invalid_search" | "authentication_required" | "invalid_token" | "forbidden" | "schema_not_found" | "node_not_found" | "delivery_not_found" | "not_found" | "node_exists" | "id_exists" | "key_id_immutable" | "secure_flag_conflict" | "type_option_conflict" | "secure_type_in_use" | "schema_in_use" | "schema_changed" | "node_id_limit_reached" | "holder_limit_reached" | "ids_shared" | "separated_nodes" | "separation_not_found" | "cap_reached" | "invalid_cursor" | "cursor_expired" | "invalid_import" | "customer_not_empty" | "import_in_progress" | "payload_too_large" | "unsupported_media_type" | "component_too_large" | "answer_too_large" | "rate_limited" | "request_timeout" | "expectation_failed" | "headers_too_large" | "server_busy" | "store_unavailable" | "internal_error";
            request_id: string;
            errors?: {
                path: string;
                message: string;
            }[];
            /**
             * @description With `cap_reached` only: the cap counting the impression would pass.
             * @enum {string}
             */
            cap?: "max_delivery_count" | "max_total_count" | "max_total_count_per_day";
            /** @description With `invalid_import` only, when a line is at fault: its number, from 1. */
            line?: number;
        };
    };
    responses: {
        /** @description Done; the body is an empty JSON object. */
        EmptyObject: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Empty"];
            };
        };
        /** @description `invalid_json`, `validation_failed` (with `errors`; also text that is not well-formed Unicode), `key_type_not_in_schema`, `id_type_not_in_schema`, `invalid_search`. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `authentication_required` or `invalid_token`; carries `WWW-Authenticate`. */
        Unauthorized: {
            headers: {
                "WWW-Authenticate"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `forbidden`: a token of another customer, a token of the wrong kind, or not the administrator on an admin endpoint. */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `schema_not_found`, `node_not_found`, `delivery_not_found`, `separation_not_found`, `not_found`. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `node_exists`, `id_exists`, `key_id_immutable`, `secure_flag_conflict`, `type_option_conflict` (another schema of the customer declares the type with another `links` or `max_holders`), `secure_type_in_use` (a type cannot stop being secure while nodes of the customer hold IDs of it), `schema_in_use`, `schema_changed` (the schema, or the customer's settings or blocklist, changed three times while the write ran; send it again), `node_id_limit_reached` (the node would hold more than NODE_MAX_IDS IDs; nothing was added), `holder_limit_reached` (one more node would hold an ID whose type's `max_holders` is reached; the message names the type and the limit, never the value; nothing was written), `ids_shared` (the two nodes of a separation hold a common ID and `remove_shared_from` is `none`), `separated_nodes` (the write would make two separated nodes hold a common ID; the message names both keys, one of a secure type by its type and schema alone; nothing was written), `cap_reached` (an impression would pass a delivery's cap, named in `cap`; nothing was counted). No message holds the value of a secure ID: a key or ID of a secure type is named by its type, as in "email (secure)". */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `payload_too_large`: the body is over BODY_LIMIT. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `unsupported_media_type`: a body that is not application/json, or whose Content-Encoding is not `gzip`, `deflate` or `br` (on `_bulk`: not application/x-ndjson, or not `gzip`). */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `component_too_large`: the search (or the person of an erase, an eligibility request or an impression) would visit more than TRAVERSAL_MAX_NODES nodes, or its nodes hold more than TRAVERSAL_MAX_IDS IDs. `answer_too_large`: the answer of a `_search` or `_graph` would be larger than a quarter of RESPONSE_MEMORY_LIMIT; it was not built. `blocked_id`: a node write's key, `ids` or `set` holds a value the customer's blocklist blocks; `errors` names the path of each such value, and nothing was written. */
        UnprocessableEntity: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `rate_limited`: over RATE_LIMIT_REQUESTS in the window (only when rate limiting is on); `Retry-After` says when to retry. */
        TooManyRequests: {
            headers: {
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `internal_error`: a fault of the service; the body carries the request id under which it is logged. */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description `store_unavailable`: the store cannot be reached. `server_busy` (with `Retry-After`, and the connection closed): on `_bulk`, BULK_MEMORY_LIMIT is taken by other bulk requests, or, at once, its customer or client address holds its quarter of the bulk slots already, or requests without a token hold the three quarters they may; on any other request, its body is larger than BODY_MEMORY_LIMIT / MAX_CONNECTIONS (a compressed body: once inflated) and BODY_MEMORY_LIMIT is taken by other bodies being read. Either waited 5 s before it was refused, and nothing of the request was applied. Also `server_busy`, at once and with the connection kept, on a read (a GET, `_search`, `_graph`, `_eligible`; never a write): its answer is larger than RESPONSE_MEMORY_LIMIT / MAX_CONNECTIONS and does not fit in what RESPONSE_MEMORY_LIMIT leaves beside answers still being sent to their clients (a `_search` or `_graph` learns it before its answer is built). Also `server_busy`, after waiting up to 5 s, on a `_search` or `_graph` from a start whose last answer was larger than 1 MB: such reads run one at a time, and small ones never wait for them. Also `server_busy`, at once, on Neo4j, when the store refuses the memory the request needs (other requests hold its transactions' memory); nothing of the request was applied. */
        ServiceUnavailable: {
            headers: {
                /** @description With `server_busy`: seconds to wait before retrying. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
    };
    parameters: {
        /**
         * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
         *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
         *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
         *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
         */
        CustomerId: components["schemas"]["CustomerId"];
        /** @description A delivery of the customer the mapi token names (ids are numbered per customer). */
        DeliveryId: number;
        /** @description Required: a missing token is 401 `authentication_required` (described here as optional so that the answer is a problem, not a validation error). */
        MapiToken: string;
        SchemaId: components["schemas"]["Name"];
        TokenId: components["schemas"]["Name"];
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    search: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchRequest"];
            };
        };
        responses: {
            /** @description The linked IDs. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    why: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WhyRequest"];
            };
        };
        responses: {
            /** @description The chain, or why there is none. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WhyResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    graph: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GraphRequest"];
            };
        };
        responses: {
            /** @description The reached nodes and their IDs. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GraphResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateNodeRequest"];
            };
        };
        responses: {
            201: components["responses"]["EmptyObject"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    insertIds: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InsertRequest"];
            };
        };
        responses: {
            201: components["responses"]["EmptyObject"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateRequest"];
            };
        };
        responses: {
            200: components["responses"]["EmptyObject"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    upsertId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateRequest"];
            };
        };
        responses: {
            200: components["responses"]["EmptyObject"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rekeyNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RekeyRequest"];
            };
        };
        responses: {
            200: components["responses"]["EmptyObject"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeleteRequest"];
            };
        };
        responses: {
            /** @description Deleted; no body. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    bulkNodes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description One BulkResult line per input line; after a failure on our side, a last Problem line. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listSchemas: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every schema of the customer, by schema_id. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Schema"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSchema: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
                schema_id: components["parameters"]["SchemaId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The schema. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Schema"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putSchema: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
                schema_id: components["parameters"]["SchemaId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SchemaDefinition"];
            };
        };
        responses: {
            /** @description Replaced. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Schema"];
                };
            };
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Schema"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteSchema: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
                schema_id: components["parameters"]["SchemaId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; no body. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listTokens: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Active tokens, oldest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Token"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TokenRequest"];
            };
        };
        responses: {
            /** @description Issued. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedToken"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
                token_id: components["parameters"]["TokenId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked; no body. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getBlocklist: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rules. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StoredBlocklist"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putBlocklist: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Blocklist"];
            };
        };
        responses: {
            /** @description The rules as stored. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StoredBlocklist"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSettings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The settings. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StoredSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    putSettings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Settings"];
            };
        };
        responses: {
            /** @description The settings as stored. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StoredSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    nodeHistory: {
        parameters: {
            query: {
                schema: components["schemas"]["Name"];
                key_type: components["schemas"]["IdType"];
                key_id: components["schemas"]["IdValue"];
                /** @description Entries per page. */
                count?: number;
                /** @description Page number, 1 to 1000000. */
                page?: number;
            };
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of entries, newest first. */
            200: {
                headers: {
                    /** @description Next, previous and prev page URLs, when they exist. */
                    link?: string;
                    /** @description The number of entries under the key. */
                    "X-Total-Count"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HistoryEntry"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listChanges: {
        parameters: {
            query?: {
                /** @description A cursor the feed gave (a change's `cursor` or a page's `next`). */
                after?: components["schemas"]["ChangeCursor"];
                /** @description Changes per page at most, 1 to 1000. A page also ends before the change that would take its changes past about a million characters of JSON, and holds its first change whatever its size: a page shorter than `limit` does not mean the feed has no more; follow `next` until a page is empty. */
                limit?: number;
                /** @description Seconds to wait for a change when none follows `after`, 0 to 30. */
                wait?: number;
            };
            header?: {
                /** @description With `Accept text/event-stream`, the cursor of the last event received; wins over `after`. */
                "Last-Event-ID"?: components["schemas"]["ChangeCursor"];
            };
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of changes, oldest first; or, with `Accept text/event-stream`, a stream of them. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangePage"];
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `cursor_expired`: retention deleted changes after the cursor. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    exportCustomer: {
        parameters: {
            query?: {
                /** @description `true`: the history lines too. */
                history?: boolean;
            };
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The snapshot, one JSON object per line (`ExportLine`), the last of kind `end`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    importCustomer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description What was imported. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    eraseId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EraseRequest"];
            };
        };
        responses: {
            /** @description Erased. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EraseResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listSeparations: {
        parameters: {
            query?: {
                /** @description Items per page. */
                count?: number;
                /** @description Page number, 1 to 1000000. */
                page?: number;
            };
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of separations. */
            200: {
                headers: {
                    /** @description Next, previous and prev page URLs, when they exist. */
                    link?: string;
                    /** @description The number of separations of the customer. */
                    "X-Total-Count"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Separation"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    separateNodes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SeparateRequest"];
            };
        };
        responses: {
            /** @description Separated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SeparateResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    unseparateNodes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The tenant. Nothing of one customer is visible to, or changed by, a request for another.
                 *     `delivery` is reserved: `/v1/delivery` is the delivery list. So are `.` and `..`, however they are
                 *     percent-encoded (`%2e%2e`): a URL resolves them as steps of its path, so the links an answer builds
                 *     from them would lead elsewhere. A reserved name is 400 `validation_failed` naming `/path/customer_id`.
                 */
                customer_id: components["parameters"]["CustomerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SeparatePair"];
            };
        };
        responses: {
            /** @description Lifted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Empty"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listDeliveries: {
        parameters: {
            query?: {
                /** @description Items per page. */
                count?: number;
                /** @description Page number, 1 to 1000000. */
                page?: number;
            };
            header?: {
                /** @description Required: a missing token is 401 `authentication_required` (described here as optional so that the answer is a problem, not a validation error). */
                "X-SERVICE-MAPI-TOKEN"?: components["parameters"]["MapiToken"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of deliveries. */
            200: {
                headers: {
                    /** @description Next, previous and prev page URLs, when they exist. */
                    link?: string;
                    /** @description The number of deliveries of the customer. */
                    "X-Total-Count"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Delivery"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createDelivery: {
        parameters: {
            query?: never;
            header?: {
                /** @description Required: a missing token is 401 `authentication_required` (described here as optional so that the answer is a problem, not a validation error). */
                "X-SERVICE-MAPI-TOKEN"?: components["parameters"]["MapiToken"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeliveryInput"];
            };
        };
        responses: {
            /** @description Stored; `Location` names it. */
            201: {
                headers: {
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getDelivery: {
        parameters: {
            query?: never;
            header?: {
                /** @description Required: a missing token is 401 `authentication_required` (described here as optional so that the answer is a problem, not a validation error). */
                "X-SERVICE-MAPI-TOKEN"?: components["parameters"]["MapiToken"];
            };
            path: {
                /** @description A delivery of the customer the mapi token names (ids are numbered per customer). */
                delivery_id: components["parameters"]["DeliveryId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    replaceDelivery: {
        parameters: {
            query?: never;
            header?: {
                /** @description Required: a missing token is 401 `authentication_required` (described here as optional so that the answer is a problem, not a validation error). */
                "X-SERVICE-MAPI-TOKEN"?: components["parameters"]["MapiToken"];
            };
            path: {
                /** @description A delivery of the customer the mapi token names (ids are numbered per customer). */
                delivery_id: components["parameters"]["DeliveryId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeliveryInput"];
            };
        };
        responses: {
            /** @description The stored delivery. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteDelivery: {
        parameters: {
            query?: never;
            header?: {
                /** @description Required: a missing token is 401 `authentication_required` (described here as optional so that the answer is a problem, not a validation error). */
                "X-SERVICE-MAPI-TOKEN"?: components["parameters"]["MapiToken"];
            };
            path: {
                /** @description A delivery of the customer the mapi token names (ids are numbered per customer). */
                delivery_id: components["parameters"]["DeliveryId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; no body. Its impressions and idempotency keys are deleted right after, in the background, in batches; nothing reads or counts them meanwhile, and a customer's delivery ids are never given out twice. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deliveryEligibility: {
        parameters: {
            query?: never;
            header?: {
                /** @description Required: a missing token is 401 `authentication_required` (described here as optional so that the answer is a problem, not a validation error). */
                "X-SERVICE-MAPI-TOKEN"?: components["parameters"]["MapiToken"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EligibleRequest"];
            };
        };
        responses: {
            /** @description The eligible deliveries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EligibleResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            /**
             * @description `authentication_required`: no mapi token in `X-SERVICE-MAPI-TOKEN`, or a `user` of a secure type without
             *     a bearer token in `Authorization`; the person is not read. `invalid_token`: either header holds a token
             *     that is malformed, unknown or revoked. Carries `WWW-Authenticate`.
             */
            401: {
                headers: {
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    recordImpression: {
        parameters: {
            query?: never;
            header?: {
                /** @description Required: a missing token is 401 `authentication_required` (described here as optional so that the answer is a problem, not a validation error). */
                "X-SERVICE-MAPI-TOKEN"?: components["parameters"]["MapiToken"];
            };
            path: {
                /** @description A delivery of the customer the mapi token names (ids are numbered per customer). */
                delivery_id: components["parameters"]["DeliveryId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ImpressionRequest"];
            };
        };
        responses: {
            /** @description Counted, or the answer of an earlier impression with the same `idempotency_key`. */
            201: {
                headers: {
                    /** @description `true` when this is the earlier answer of a repeated `idempotency_key` (nothing was counted); absent otherwise. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImpressionResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            /**
             * @description `authentication_required`: no mapi token in `X-SERVICE-MAPI-TOKEN`, or a `user` of a secure type without
             *     a bearer token in `Authorization`; nothing is counted and no `idempotency_key` stored. `invalid_token`:
             *     either header holds a token that is malformed, unknown or revoked. Carries `WWW-Authenticate`.
             */
            401: {
                headers: {
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    healthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Metrics. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    contract: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description openapi.yaml as served. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/yaml": string;
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    docs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An HTML page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
    explore: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An HTML page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            404: components["responses"]["NotFound"];
        };
    };
}

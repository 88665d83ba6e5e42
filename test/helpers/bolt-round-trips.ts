// Counts the Bolt messages and round trips the Neo4j driver of this test file makes, by wrapping two methods of
// neo4j-driver-bolt-connection: BoltProtocol.write (every request message, with its connection and whether it is
// flushed) and ResponseHandler.handleResponse (every final reply: SUCCESS, IGNORED or FAILURE). A round trip is a
// busy period: it begins when a flush puts messages on the wire while no reply of ours is awaited, on any
// connection, and ends with the last reply awaited. Messages flushed while replies are awaited are pipelined into
// the current round trip. RUN messages are the statements, named by their file in cypher/.
//
// These are internals of the driver (the package-lock pins its version): should they move, `recording` finds no
// message at all and the tests that count fail, rather than pass on nothing.
import { loadStatements } from '../../src/store/neo4j/statements';
import { waitFor } from './settling';

interface Message {
  signature: number;
  fields: unknown[];
}
interface Reply {
  signature: number;
}

/* eslint-disable @typescript-eslint/no-require-imports -- the driver's internals have no typings of their own */
const BoltProtocol = require('neo4j-driver-bolt-connection/lib/bolt/bolt-protocol-v1.js').default as {
  prototype: { write(this: object, message: Message, observer: unknown, flush: boolean): unknown; _responseHandler?: object };
};
const ResponseHandler = require('neo4j-driver-bolt-connection/lib/bolt/response-handler.js').default as {
  prototype: { handleResponse(this: object, reply: Reply): unknown };
};
const { SIGNATURES } = require('neo4j-driver-bolt-connection/lib/bolt/request-message.js') as { SIGNATURES: Record<string, number> };
/* eslint-enable @typescript-eslint/no-require-imports */

const SUCCESS = 0x70;
const IGNORED = 0x7e;
const FAILURE = 0x7f;

/** What one call made Neo4j do: its statements (auto-commit ones marked `auto:`), transactions and round trips. */
export interface Counted {
  statements: string[];
  transactions: number;
  roundTrips: number;
}

const nameOfText = new Map(Object.entries(loadStatements().byName).map(([name, statement]) => [statement.sent, name]));
const awaiting = new WeakMap<object, number>();
let outstanding = 0;
let recording: { statements: string[]; transactions: number; roundTrips: number } | undefined;
const inTransaction = new WeakSet<object>();

// eslint-disable-next-line @typescript-eslint/unbound-method -- wrapped, and called with the protocol as `this`
const write = BoltProtocol.prototype.write;
BoltProtocol.prototype.write = function (this: object & { _responseHandler?: object }, message, observer, flush) {
  if (recording) {
    if (message.signature === SIGNATURES.BEGIN) {
      recording.transactions += 1;
      inTransaction.add(this);
    } else if (message.signature === SIGNATURES.RUN) {
      const name = nameOfText.get(String(message.fields[0])) ?? 'not a statement of cypher/';
      recording.statements.push(inTransaction.has(this) ? name : `auto:${name}`);
    } else if ([SIGNATURES.COMMIT, SIGNATURES.ROLLBACK, SIGNATURES.RESET].includes(message.signature)) {
      inTransaction.delete(this);
    }
  }
  if (message.signature !== SIGNATURES.GOODBYE && this._responseHandler) {
    const handler = this._responseHandler;
    if (outstanding === 0 && recording) recording.roundTrips += 1;
    // Every message but GOODBYE gets one final reply.
    awaiting.set(handler, (awaiting.get(handler) ?? 0) + 1);
    outstanding += 1;
  }
  return write.call(this, message, observer, flush);
};
// eslint-disable-next-line @typescript-eslint/unbound-method -- wrapped, and called with the handler as `this`
const handleResponse = ResponseHandler.prototype.handleResponse;
ResponseHandler.prototype.handleResponse = function (this: object, reply: Reply) {
  if ([SUCCESS, IGNORED, FAILURE].includes(reply.signature) && (awaiting.get(this) ?? 0) > 0) {
    awaiting.set(this, (awaiting.get(this) ?? 0) - 1);
    outstanding -= 1;
  }
  return handleResponse.call(this, reply);
};

/** Waits until no reply is awaited (a session's release after the last answer). */
export async function settled(): Promise<void> {
  await waitFor(
    () => `the last of ${outstanding} Bolt replies`,
    () => outstanding === 0,
    { everyMs: 5 },
  );
}

/** What `call` made the driver send until it resolved (not what a session sends after, when it is released). */
export async function counted(call: () => Promise<unknown>): Promise<Counted> {
  await settled();
  recording = { statements: [], transactions: 0, roundTrips: 0 };
  try {
    await call();
    return { ...recording };
  } finally {
    recording = undefined;
  }
}

// A TCP proxy between a Neo4j driver and Neo4j that can lose the reply to one commit: the commit happens on the
// server, but the driver's connection breaks before it hears so (what a network failure or a restarting load
// balancer does at the worst moment). It reads the client's side of the Bolt protocol just enough to find COMMIT, or
// the PULL of an auto-commit query, whose reply is its commit's.
import net from 'node:net';

/** COMMIT: a structure with no fields (marker B0) and signature 0x12. */
const COMMIT = [0xb0, 0x12];
/** PULL: a structure with one field (marker B1) and signature 0x3F. */
const PULL = [0xb1, 0x3f];
/** The key of the bookmark a committed transaction's reply carries (a PackStream string of 8 bytes, marker 88). */
const BOOKMARK = Buffer.from([0x88, ...Buffer.from('bookmark')]);
const HANDSHAKE_BYTES = 20;
/** The server's answer to the handshake that announces the manifest negotiation (Bolt 5.7+ drivers offer it). */
const MANIFEST = Buffer.from([0x00, 0x00, 0x01, 0xff]);

export interface BoltFaultProxy {
  /** bolt://127.0.0.1:<port>: give this to the driver instead of Neo4j's own address. */
  uri: string;
  /**
   * Arms the fault for the next COMMIT on any connection, or with 'auto-commit' the next PULL: the proxy passes it to
   * Neo4j, waits for Neo4j's reply that says it committed (its bookmark), then closes the driver's connection
   * without passing anything of the reply on. One commit only; then it disarms.
   */
  loseNextCommitReply(of?: 'transaction' | 'auto-commit'): void;
  /** How many commit replies were lost so far. */
  readonly lostCommitReplies: number;
  close(): Promise<void>;
}

/** Reads the client's byte stream as Bolt: the handshake, then chunked messages (2-byte size, data; size 0 ends a message). */
class ClientStream {
  private phase: 'handshake' | 'awaitServerVersion' | 'versionSelection' | 'messages' = 'handshake';
  private handshakeLeft = HANDSHAKE_BYTES;
  private selectionFixedLeft = 4;
  private header: number[] = [];
  private chunkLeft = 0;
  /** The first bytes of the message being read (enough to tell its signature). */
  private messageStart: number[] = [];

  /** Called with the server's first four bytes; the manifest negotiation adds a selection message of the client's. */
  serverVersion(bytes: Buffer): void {
    this.phase = bytes.equals(MANIFEST) ? 'versionSelection' : 'messages';
  }

  /** Reads all of `data`; returns the offset just after the first `signature` message (COMMIT, PULL) that ends in it, or -1. */
  findEnd(data: Buffer, signature: number[]): number {
    let commitEnd = -1;
    for (let i = 0; i < data.length; i += 1) {
      const byte = data[i] as number;
      switch (this.phase) {
        case 'handshake':
          this.handshakeLeft -= 1;
          if (this.handshakeLeft === 0) this.phase = 'awaitServerVersion';
          break;
        case 'awaitServerVersion':
          // The client sends nothing more before the server answered; treat anything as messages.
          this.phase = 'messages';
          i -= 1;
          break;
        case 'versionSelection':
          // Four bytes of version, then a variable-length integer of capabilities (high bit set: more bytes follow).
          if (this.selectionFixedLeft > 0) this.selectionFixedLeft -= 1;
          else if ((byte & 0x80) === 0) this.phase = 'messages';
          break;
        case 'messages':
          if (this.chunkLeft > 0) {
            if (this.messageStart.length < 2) this.messageStart.push(byte);
            this.chunkLeft -= 1;
            break;
          }
          this.header.push(byte);
          if (this.header.length < 2) break;
          this.chunkLeft = ((this.header[0] as number) << 8) | (this.header[1] as number);
          this.header = [];
          if (this.chunkLeft === 0) {
            const found = this.messageStart[0] === signature[0] && this.messageStart[1] === signature[1];
            this.messageStart = [];
            if (found && commitEnd < 0) commitEnd = i + 1;
          }
          break;
      }
    }
    return commitEnd;
  }
}

export async function startBoltFaultProxy(target: { host: string; port: number }): Promise<BoltFaultProxy> {
  let armed: number[] | undefined;
  let lost = 0;
  const sockets = new Set<net.Socket>();

  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const stream = new ClientStream();
    let serverBytes = Buffer.alloc(0);
    let versionSeen = false;
    let awaitingCommitReply = false;
    let reply = Buffer.alloc(0);

    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => {
      sockets.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);

    client.on('data', (data: Buffer) => {
      if (awaitingCommitReply) return;
      const commitEnd = stream.findEnd(data, armed ?? COMMIT);
      if (!armed || commitEnd < 0) {
        upstream.write(data);
        return;
      }
      armed = undefined;
      awaitingCommitReply = true;
      upstream.write(data.subarray(0, commitEnd));
    });

    upstream.on('data', (data: Buffer) => {
      if (!versionSeen) {
        serverBytes = Buffer.concat([serverBytes, data]);
        if (serverBytes.length >= 4) {
          versionSeen = true;
          stream.serverVersion(serverBytes.subarray(0, 4));
        }
      }
      if (awaitingCommitReply) {
        // Once Neo4j has answered the commit, it is done; the driver never hears it.
        reply = Buffer.concat([reply, data]);
        if (reply.includes(BOOKMARK)) {
          lost += 1;
          closeBoth();
        }
        return;
      }
      client.write(data);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    uri: `bolt://127.0.0.1:${port}`,
    loseNextCommitReply: (of = 'transaction') => {
      armed = of === 'transaction' ? COMMIT : PULL;
    },
    get lostCommitReplies() {
      return lost;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Host and port of a bolt:// or neo4j:// URI. */
export function boltAddress(uri: string): { host: string; port: number } {
  const url = new URL(uri);
  return { host: url.hostname, port: Number(url.port || 7687) };
}

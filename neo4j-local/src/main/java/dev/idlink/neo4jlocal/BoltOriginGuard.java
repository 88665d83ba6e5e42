package dev.idlink.neo4jlocal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.neo4j.bolt.BoltServer;
import org.neo4j.bolt.protocol.common.connector.Connector;
import org.neo4j.bolt.protocol.common.connector.connection.Connection;
import org.neo4j.bolt.protocol.common.connector.connection.listener.ConnectionListener;
import org.neo4j.bolt.protocol.common.connector.listener.ConnectorListener;

/**
 * Refuses Bolt-over-WebSocket upgrades whose Origin is not the Browser's own (BrowserOrigins), with 403.
 *
 * <p>Neo4j 5.26 offers no setting for this: its Bolt port takes any connection starting with "GET " as a WebSocket
 * handshake (TransportSelectionHandler adds Netty's WebSocketServerProtocolHandler, which checks no Origin), and
 * dbms.security.http_access_control_allow_origin covers only the HTTP connector. Without this, any web page the
 * analyst opens could open ws://127.0.0.1:7687 and, knowing the password, read or wipe the graph.
 *
 * <p>One guard per connection, first in its pipeline. It looks at the first bytes only: a raw Bolt (or TLS)
 * connection, or a handshake with no Origin or the Browser's, gets the guard removed and its bytes passed on as they
 * came, so Bolt clients pay nothing after their first read. Browsers always send Origin on a WebSocket handshake;
 * a program that sends none is not a web page, and could speak raw Bolt anyway.
 *
 * <p>BoltGuardExtension installs it before the Bolt connectors bind their port, and until the launcher calls open()
 * (once the password is set) every connection is closed at once: on a fresh store user neo4j starts with the
 * password "neo4j", and a client that came early (the service, waiting for its database) would be refused as
 * unauthorised and wait longer than for a connection that merely closed.
 */
final class BoltOriginGuard extends ByteToMessageDecoder {
  /** Neo4j's own limit on a WebSocket handshake (TransportSelectionHandler). */
  private static final int MAX_HANDSHAKE_BYTES = 65536;

  private static final byte[] HTTP_GET = "GET ".getBytes(StandardCharsets.US_ASCII);
  private static final String REFUSAL = "Bolt over WebSocket is open to this server's Neo4j Browser only.\n";
  private static final byte[] FORBIDDEN =
      ("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: "
              + REFUSAL.length()
              + "\r\nConnection: close\r\n\r\n"
              + REFUSAL)
          .getBytes(StandardCharsets.US_ASCII);

  /** The Browser's origins; none (every page refused) until the launcher names them. */
  private static volatile BrowserOrigins origins = BrowserOrigins.of("", 0);

  private static volatile boolean open;
  private static final AtomicInteger installed = new AtomicInteger();

  private BoltOriginGuard() {}

  /** The origins allowed from now on; set before the database is built. */
  static void allow(BrowserOrigins browserOrigins) {
    origins = browserOrigins;
  }

  /** Lets connections in: called once user neo4j has the password of this run. */
  static void open() {
    open = true;
  }

  /**
   * How many Bolt servers BoltGuardExtension guards, one per database server of this JVM: the launcher refuses to
   * announce a server whose Bolt port is unguarded.
   */
  static int installed() {
    return installed.get();
  }

  /** Puts a guard in front of every connection the Bolt connectors accept; BoltGuardExtension calls it at start. */
  static void install(BoltServer bolt) {
    ConnectionListener guardPipeline =
        new ConnectionListener() {
          @Override
          public void onNetworkPipelineInitialized(ChannelPipeline pipeline) {
            if (open) pipeline.addFirst("idlinkBoltOriginGuard", new BoltOriginGuard());
            else pipeline.channel().close();
          }
        };
    for (Connector<?> connector : bolt.getConnectors()) {
      connector.registerListener(
          new ConnectorListener() {
            @Override
            public void onConnectionCreated(Connection connection) {
              connection.registerListener(guardPipeline);
            }
          });
    }
    installed.incrementAndGet();
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (in.readableBytes() < HTTP_GET.length) return;
    if (!startsWith(in, HTTP_GET)) {
      // Raw Bolt or TLS: the bytes read so far go on to Neo4j's transport selection when the guard is removed.
      ctx.pipeline().remove(this);
      return;
    }
    int headEnd = endOfHead(in);
    if (headEnd < 0) {
      if (in.readableBytes() > MAX_HANDSHAKE_BYTES) refuse(ctx, in);
      return;
    }
    String head = in.toString(in.readerIndex(), headEnd - in.readerIndex(), StandardCharsets.ISO_8859_1);
    if (originsAllowed(head)) ctx.pipeline().remove(this);
    else refuse(ctx, in);
  }

  /** Every Origin (and the Sec-WebSocket-Origin of drafts 7 and 8) the head names is the Browser's; none is fine. */
  private static boolean originsAllowed(String head) {
    for (String line : head.split("\n")) {
      int colon = line.indexOf(':');
      if (colon < 0) continue;
      String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      if ((name.equals("origin") || name.equals("sec-websocket-origin")) && !origins.allows(line.substring(colon + 1).trim())) {
        return false;
      }
    }
    return true;
  }

  private static void refuse(ChannelHandlerContext ctx, ByteBuf in) {
    in.skipBytes(in.readableBytes());
    ctx.writeAndFlush(Unpooled.wrappedBuffer(FORBIDDEN)).addListener(ChannelFutureListener.CLOSE);
  }

  private static boolean startsWith(ByteBuf in, byte[] prefix) {
    for (int i = 0; i < prefix.length; i++) {
      if (in.getByte(in.readerIndex() + i) != prefix[i]) return false;
    }
    return true;
  }

  /** Where the blank line that ends the request head starts (lines end in CRLF or, leniently, LF); -1 before it came. */
  private static int endOfHead(ByteBuf in) {
    int end = in.writerIndex();
    for (int i = in.readerIndex(); i < end; i++) {
      if (in.getByte(i) != '\n') continue;
      int next = i + 1;
      if (next < end && in.getByte(next) == '\r') next++;
      if (next < end && in.getByte(next) == '\n') return i;
    }
    return -1;
  }
}

package dev.idlink.neo4jlocal;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.io.ByteUnit;
import org.neo4j.server.configuration.ConfigurableServerModules;
import org.neo4j.server.configuration.ServerSettings;
import org.neo4j.server.configuration.ThirdPartyJaxRsPackage;

/**
 * A real Neo4j Community server in one process: the kernel, the Cypher planner and the Bolt server of Neo4j's own
 * artifacts, with Bolt on 127.0.0.1 only. What `npm run neo4j:local` and `npm run test:neo4j` start (see README.md
 * beside the pom).
 *
 * <p>Environment: NEO4J_LOCAL_PORT (default 7687; several ports separated by commas start one database server per
 * port in this JVM, each on a temporary folder of its own, Bolt only, all with NEO4J_PASSWORD: the test runs' servers,
 * which so share one JVM's start and JIT compilation), NEO4J_PASSWORD (the password of user neo4j; when unset, the one
 * kept in the data folder's file "password", generated at the first start), NEO4J_LOCAL_DATA (a folder that is kept;
 * when unset, a fresh temporary folder deleted at stop),
 * NEO4J_LOCAL_PAGECACHE_MB (default 1024), NEO4J_LOCAL_TRANSACTION_TIMEOUT_S (db.transaction.timeout, default 30),
 * NEO4J_LOCAL_MIN_REPLAN_INTERVAL_S (dbms.cypher.min_replan_interval; Neo4j's 10 s when unset),
 * NEO4J_LOCAL_HTTP_PORT (Neo4j Browser over Neo4j's HTTP connector; default 0, off), NEO4J_LOCAL_HOST (the address
 * Bolt and HTTP listen on, default 127.0.0.1). The argument --stop-when-stdin-closes makes it stop when its parent goes
 * away (the test runner gives it a pipe), so no server outlives the run that started it.
 *
 * <p>Never open: auth is always on, Bolt closes every connection until the password is set, and then takes
 * WebSocket upgrades only from the Browser's own origin (BoltOriginGuard). Prints exactly one line containing "ready" and the bolt URI per server once Bolt accepts connections;
 * SIGTERM or SIGINT shut the database down cleanly (a JVM shutdown hook) and exit.
 */
public final class LocalNeo4j {
  private static final String USER = "neo4j";
  private static final Duration START_TIMEOUT = Duration.ofMinutes(5);
  /** Beside the database in the data folder: the generated password of user neo4j, mode 0600. */
  private static final String PASSWORD_FILE = "password";
  private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_ONLY_FOLDER = PosixFilePermissions.fromString("rwx------");

  private LocalNeo4j() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Throwable failure) {
      // Neo4j's own threads would keep the JVM alive after main died, and the caller would wait for a ready line
      // that never comes: exit instead (the shutdown hook stops the database).
      failure.printStackTrace();
      System.err.println("neo4j-local: failed to start: " + failure);
      System.exit(1);
    }
  }

  /** One database server of this JVM: its Bolt port and its data folder. */
  private record Server(int port, Path home, boolean deleteAtStop, DatabaseManagementService dbms) {}

  private static void run(String[] args) throws Exception {
    long startedAt = System.nanoTime();
    boolean stopWhenStdinCloses = java.util.Arrays.asList(args).contains("--stop-when-stdin-closes");
    List<Integer> ports = portsFromEnv("NEO4J_LOCAL_PORT", 7687);
    long pageCacheMb = intFromEnv("NEO4J_LOCAL_PAGECACHE_MB", 1024);
    long transactionTimeoutSeconds = intFromEnv("NEO4J_LOCAL_TRANSACTION_TIMEOUT_S", 30);
    long minReplanSeconds = intFromEnv("NEO4J_LOCAL_MIN_REPLAN_INTERVAL_S", 0);
    String givenPassword = emptyToNull(System.getenv("NEO4J_PASSWORD"));
    String keptData = emptyToNull(System.getenv("NEO4J_LOCAL_DATA"));
    int httpPort = intFromEnv("NEO4J_LOCAL_HTTP_PORT", 0);
    String host = emptyToNull(System.getenv("NEO4J_LOCAL_HOST"));
    if (host == null) host = "127.0.0.1";
    if (ports.size() > 1 && (keptData != null || httpPort > 0 || givenPassword == null)) {
      // Several servers are for test runs: each on a temporary folder, Bolt only, with the caller's password.
      System.err.println(
          "neo4j-local: several ports (NEO4J_LOCAL_PORT="
              + System.getenv("NEO4J_LOCAL_PORT")
              + ") need NEO4J_PASSWORD, and take neither NEO4J_LOCAL_DATA nor NEO4J_LOCAL_HTTP_PORT");
      System.exit(2);
    }

    BrowserOrigins browserOrigins = BrowserOrigins.of(host, httpPort);
    BoltOriginGuard.allow(browserOrigins);
    // Every server started so far is stopped, and its temporary folder deleted, on SIGTERM, SIGINT or exit.
    List<Server> servers = new CopyOnWriteArrayList<>();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  for (Server server : servers) {
                    server.dbms().shutdown();
                    if (server.deleteAtStop()) deleteRecursively(server.home());
                  }
                  System.out.println("neo4j-local: stopped");
                  System.out.flush();
                },
                "neo4j-local-stop"));

    String password = givenPassword;
    for (int port : ports) {
      // Owner-only, like the password file in it: the store holds every ID in clear.
      Path home =
          keptData != null
              ? Path.of(keptData).toAbsolutePath()
              : Files.createTempDirectory("neo4j-local-", PosixFilePermissions.asFileAttribute(OWNER_ONLY_FOLDER));
      if (!Files.isDirectory(home)) {
        Files.createDirectories(home.getParent());
        Files.createDirectory(home, PosixFilePermissions.asFileAttribute(OWNER_ONLY_FOLDER));
      }
      if (password == null) password = keptPassword(home.resolve(PASSWORD_FILE));
      DatabaseManagementService dbms = builder(home, host, port, httpPort, browserOrigins, pageCacheMb, transactionTimeoutSeconds, minReplanSeconds).build();
      servers.add(new Server(port, home, keptData == null, dbms));
    }

    if (BoltOriginGuard.installed() != servers.size()) {
      // Never announce a Bolt port that any web page could open (META-INF/services missing from the class path?).
      System.err.println("neo4j-local: the Bolt origin guard (BoltGuardExtension) was not loaded");
      System.exit(1);
    }
    for (Server server : servers) {
      GraphDatabaseService db = server.dbms().database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
      if (!db.isAvailable(START_TIMEOUT.toMillis())) {
        System.err.println("neo4j-local: the database did not become available within " + START_TIMEOUT);
        System.exit(1);
      }
      // On a fresh store the user neo4j exists with the initial password "neo4j", to be changed; on a kept one it
      // gets the password of this run. Runs in-process, before Bolt is announced.
      setPassword(server.dbms(), password);
    }
    // Connections come in only once every server of this JVM has the password of this run.
    BoltOriginGuard.open();
    for (Server server : servers) waitForPort(host, server.port(), "Bolt");
    if (httpPort > 0) waitForPort(host, httpPort, "HTTP");

    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt);
    for (Server server : servers) {
      String version =
          server
              .dbms()
              .database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME)
              .executeTransactionally(
                  "CALL dbms.components() YIELD name, versions, edition RETURN versions[0] + ' ' + edition AS v",
                  Map.of(),
                  result -> (String) result.next().get("v"),
                  START_TIMEOUT);
      System.out.println(
          "neo4j-local: Neo4j "
              + version
              + " ready at bolt://"
              + host
              + ":"
              + server.port()
              + (httpPort > 0 ? " and Neo4j Browser at http://" + host + ":" + httpPort + "/browser/" : "")
              + " ("
              + "auth on, user "
              + USER
              + (givenPassword != null ? ", password from NEO4J_PASSWORD" : ", password in " + server.home().resolve(PASSWORD_FILE))
              + "; data "
              + server.home()
              + (server.deleteAtStop() ? ", deleted at stop" : ", kept")
              + (servers.size() > 1 ? "; one of " + servers.size() + " servers of one JVM" : "")
              + "; started in "
              + millis
              + " ms)");
    }
    System.out.flush();

    if (stopWhenStdinCloses) {
      drain(System.in);
      System.exit(0);
    }
    Thread.currentThread().join();
  }

  /** The database server on `home`, its Bolt on host:port. */
  private static DatabaseManagementServiceBuilder builder(
      Path home,
      String host,
      int port,
      int httpPort,
      BrowserOrigins browserOrigins,
      long pageCacheMb,
      long transactionTimeoutSeconds,
      long minReplanSeconds) {
    DatabaseManagementServiceBuilder builder =
        new DatabaseManagementServiceBuilder(home)
            .setConfig(BoltConnector.enabled, true)
            .setConfig(BoltConnector.listen_address, new SocketAddress(host, port))
            // Always on: without a password of the caller's, keptPassword generated one.
            .setConfig(GraphDatabaseSettings.auth_enabled, true)
            // Any password the caller chose; this server listens on loopback only.
            .setConfig(GraphDatabaseSettings.auth_minimum_password_length, 1)
            .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pageCacheMb))
            // The limit of a transaction that names none (the service names its own on every call): no query runs
            // on after its caller gave up.
            .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofSeconds(transactionTimeoutSeconds))
            // Neo4j's web server starts only with the HTTP connector on: off by default, so Bolt-only runs start no
            // Jetty. When on, it serves the Browser (the neo4j-browser jar's browser/ folder at /browser) and the
            // discovery document at / that tells the Browser the Bolt address; no HTTP Cypher or management API.
            .setConfig(HttpConnector.enabled, httpPort > 0);
    if (minReplanSeconds > 0) builder.setConfig(GraphDatabaseSettings.cypher_min_replan_interval, Duration.ofSeconds(minReplanSeconds));
    if (httpPort > 0) {
      String analyst = "http://" + host + ":" + httpPort + "/analyst/";
      System.setProperty("neo4jlocal.analyst.url", analyst);
      System.setProperty(BrowserOrigins.PROPERTY, browserOrigins.toProperty());
      builder
          .setConfig(HttpConnector.listen_address, new SocketAddress(host, httpPort))
          // The Browser, and the analyst style and guide (AnalystResource, read-only) beside it.
          .setConfig(
              ServerSettings.http_enabled_modules,
              java.util.Set.of(ConfigurableServerModules.BROWSER, ConfigurableServerModules.UNMANAGED_EXTENSIONS))
          .setConfig(
              ServerSettings.third_party_packages,
              java.util.List.of(new ThirdPartyJaxRsPackage("dev.idlink.neo4jlocal.analyst", "/analyst")))
          // Neo4j's default (the discovery document and the Browser's files need no login) plus the analyst files,
          // which hold no data: the Browser fetches them without credentials.
          .setConfig(ServerSettings.http_auth_allowlist, java.util.List.of("/", "/browser.*", "/analyst/.*"))
          // Neo4j answers every response with "Access-Control-Allow-Origin: *" unless told otherwise: only the
          // Browser's own page may read this server's answers (AnalystResource also refuses other origins).
          .setConfig(ServerSettings.http_access_control_allow_origin, browserOrigins.primary())
          // The Browser fetches :style and :play addresses only from these hosts.
          .setConfig(ServerSettings.browser_remote_content_hostname_whitelist, host + ",localhost,guides.neo4j.com")
          // Once connected, the Browser loads the analyst style and shows the guide of analyst queries.
          .setConfig(ServerSettings.browser_post_connect_cmd, "style " + analyst + "style.grass; play " + analyst + "guide.html")
          // An analyst's machine sends no product analytics to Neo4j.
          .setConfig(ServerSettings.allow_telemetry, false)
          .setConfig(BoltConnector.advertised_address, new SocketAddress(host, port));
    }
    return builder;
  }

  /**
   * The password kept in the data folder's file, or a new one (24 random bytes, base64url) written there with mode
   * 0600 and printed this once: the server is never open, and `npm run neo4j:local` needs no setting to start. A
   * deleted file gets a new password at the next start (setPassword applies it to the kept store).
   */
  private static String keptPassword(Path file) throws IOException {
    if (Files.exists(file)) {
      if (!Files.getPosixFilePermissions(file).equals(OWNER_ONLY_FILE)) {
        Files.setPosixFilePermissions(file, OWNER_ONLY_FILE);
        System.out.println("neo4j-local: " + file + " was readable by others; it is mode 0600 now");
      }
      String kept = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (kept.isEmpty()) {
        System.err.println("neo4j-local: " + file + " is empty; delete it to have a new password generated");
        System.exit(2);
      }
      return kept;
    }
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    String generated = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    Path partial = file.resolveSibling(PASSWORD_FILE + ".partial");
    Files.deleteIfExists(partial);
    Files.createFile(partial, PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
    Files.writeString(partial, generated + "\n", StandardCharsets.UTF_8);
    Files.move(partial, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    System.out.println(
        "neo4j-local: generated the password of user "
            + USER
            + ": "
            + generated
            + " (printed this once; kept in "
            + file
            + ", mode 0600, and used at every start; NEO4J_PASSWORD overrides it)");
    System.out.flush();
    return generated;
  }

  /**
   * Sets the password of user neo4j. On a kept store restarted with the same password Neo4j refuses the change
   * ("Old password and new password cannot be the same"); the password is then already the one wanted.
   */
  private static void setPassword(DatabaseManagementService dbms, String password) {
    try {
      dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)
          .executeTransactionally(
              "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
              Map.of("password", password),
              result -> null,
              // Not db.transaction.timeout: the first statement on a fresh store compiles Cypher, which took over
              // 30 s on a 2-core machine under heavy load, and the start then failed.
              START_TIMEOUT);
    } catch (QueryExecutionException refused) {
      String message = String.valueOf(refused.getMessage());
      if (!message.contains("Old password and new password cannot be the same")) throw refused;
    }
  }

  /** Bolt (and HTTP) are announced only once a TCP connection to them succeeds. */
  private static void waitForPort(String host, int port, String what) throws InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), 1000);
        return;
      } catch (IOException notYet) {
        Thread.sleep(50);
      }
    }
    System.err.println("neo4j-local: " + what + " did not accept connections on " + host + ":" + port);
    System.exit(1);
  }

  private static void drain(InputStream in) {
    byte[] buffer = new byte[256];
    try {
      while (in.read(buffer) >= 0) {
        // Only the end of the stream matters.
      }
    } catch (IOException closed) {
      // The parent is gone either way.
    }
  }

  /** A port, or several separated by commas: one database server of this JVM on each. */
  private static List<Integer> portsFromEnv(String name, int fallback) {
    String value = emptyToNull(System.getenv(name));
    if (value == null) return List.of(fallback);
    List<Integer> ports = new ArrayList<>();
    for (String port : value.split(",")) {
      try {
        ports.add(Integer.parseInt(port.trim()));
      } catch (NumberFormatException e) {
        System.err.println("neo4j-local: " + name + " must be a port or ports separated by commas, got '" + value + "'");
        System.exit(2);
      }
    }
    return ports;
  }

  private static int intFromEnv(String name, int fallback) {
    String value = emptyToNull(System.getenv(name));
    if (value == null) return fallback;
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      System.err.println("neo4j-local: " + name + " must be a whole number, got '" + value + "'");
      System.exit(2);
      return fallback;
    }
  }

  private static String emptyToNull(String value) {
    return value == null || value.isEmpty() ? null : value;
  }

  private static void deleteRecursively(Path root) {
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
              Files.delete(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
              Files.delete(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      System.err.println("neo4j-local: could not delete " + root + ": " + e.getMessage());
    }
  }
}

package dev.idlink.neo4jlocal;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The web origins of the Neo4j Browser this server serves, the only pages that may open Bolt over WebSocket or read
 * /analyst/ from another origin: http://host:httpPort, and on loopback also the other loopback names of that port
 * (the analyst may type localhost or 127.0.0.1). None when the Browser is off, so no page may then. A page of any
 * other origin, a DNS-rebinding page included (its origin keeps the attacker's host name), is refused.
 */
public final class BrowserOrigins {
  /** How the launcher hands the origins to AnalystResource, which Neo4j's web server instantiates. */
  public static final String PROPERTY = "neo4jlocal.browser.origins";

  private static final Set<String> LOOPBACK_NAMES = Set.of("127.0.0.1", "localhost");

  private final String primary;
  private final Set<String> origins;

  private BrowserOrigins(String primary, Set<String> origins) {
    this.primary = primary;
    this.origins = origins;
  }

  /** The Browser's origins when it is served on host:httpPort; none when httpPort is 0 (the Browser is off). */
  public static BrowserOrigins of(String host, int httpPort) {
    if (httpPort <= 0) return new BrowserOrigins(null, Set.of());
    String primary = origin(host, httpPort);
    Set<String> origins = new LinkedHashSet<>(Set.of(primary));
    if (LOOPBACK_NAMES.contains(host.toLowerCase(Locale.ROOT))) {
      for (String name : LOOPBACK_NAMES) origins.add(origin(name, httpPort));
    }
    return new BrowserOrigins(primary, Set.copyOf(origins));
  }

  /** The origins the launcher put in the system property PROPERTY (comma-separated); none when it is unset. */
  public static BrowserOrigins fromSystemProperty() {
    String listed = System.getProperty(PROPERTY, "");
    Set<String> origins =
        Arrays.stream(listed.split(",")).map(String::trim).filter(o -> !o.isEmpty()).collect(Collectors.toUnmodifiableSet());
    return new BrowserOrigins(null, origins);
  }

  /** The origin the launcher prints the Browser at (http://host:httpPort); null when the Browser is off. */
  public String primary() {
    return primary;
  }

  /** The value for the system property PROPERTY. */
  public String toProperty() {
    return String.join(",", origins);
  }

  /** Whether a request's Origin header names the Browser. Browsers send it lower-cased; "null" is never allowed. */
  public boolean allows(String origin) {
    return origin != null && origins.contains(origin.trim().toLowerCase(Locale.ROOT));
  }

  private static String origin(String host, int port) {
    String name = host.contains(":") ? "[" + host + "]" : host;
    return ("http://" + name + ":" + port).toLowerCase(Locale.ROOT);
  }
}

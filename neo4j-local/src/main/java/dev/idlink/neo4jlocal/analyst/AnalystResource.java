package dev.idlink.neo4jlocal.analyst;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import dev.idlink.neo4jlocal.BrowserOrigins;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import javax.ws.rs.GET;
import javax.ws.rs.HeaderParam;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.Response;

/**
 * The analyst style and queries for Neo4j Browser, served by Neo4j's own web server beside /browser (an unmanaged
 * extension mounted at /analyst), so that the Browser loads them from its own host: GET /analyst/style.grass (the
 * GraSS file of cypher/analyst/) and GET /analyst/guide.html (a Browser guide with one slide per query, made from
 * the .cypher files when asked, so it never goes stale). Read-only; the folder is NEO4J_LOCAL_ANALYST_DIR.
 *
 * <p>Only the Browser's own page may read them from a browser: a request whose Origin is another's gets 403, and an
 * allowed one gets that origin back in Access-Control-Allow-Origin. The style names every customer's schema ids and
 * type names in use, which no other web page the analyst opens should read.
 */
@javax.ws.rs.Path("/")
public class AnalystResource {
  private static final Pattern PARAMS_EXAMPLE = Pattern.compile("(:params \\{.*\\})");

  private static java.nio.file.Path folder() {
    String dir = System.getenv("NEO4J_LOCAL_ANALYST_DIR");
    return java.nio.file.Path.of(dir == null || dir.isEmpty() ? "cypher/analyst" : dir);
  }

  /** Fills of node vertices, one per schema label in sorted order (white captions), cycled when there are more. */
  private static final String[] SCHEMA_COLOURS = {
    "#4C8EDA", "#2E7D32", "#8E44AD", "#00838F", "#C0392B", "#5D4037", "#283593", "#AD1457", "#37474F", "#6D4C41"
  };
  /** Fills of ID vertices, one per type label in sorted order (dark captions), cycled when there are more. */
  private static final String[] TYPE_COLOURS = {
    "#FFC454", "#8DCC93", "#F79767", "#57C7E3", "#C990C0", "#D9C8AE", "#F16667", "#ECB5C9", "#B8E986", "#A5ABB6"
  };

  /** The database the service writes (Neo4j's web server binds it for JAX-RS resources). */
  @Context private DatabaseManagementService dbms;

  private static final BrowserOrigins BROWSER = BrowserOrigins.fromSystemProperty();

  /**
   * cypher/analyst/style.grass with a colour for each schema and each ID type the database holds: the labels
   * `schema:<id>` and `type:<name>` the service gives its vertices (db.labels(), read-only, when asked), each a
   * fill of a fixed palette in sorted label order. Type rules set the fill only, so the `SecureId` rule of the file
   * (a red border) marks secure IDs whatever their type.
   */
  @GET
  @javax.ws.rs.Path("style.grass")
  public Response style(@HeaderParam("Origin") String origin) throws IOException {
    if (origin != null && !BROWSER.allows(origin)) return foreignOrigin();
    String grass = Files.readString(folder().resolve("style.grass"), StandardCharsets.UTF_8);
    List<String> labels =
        dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME)
            .executeTransactionally(
                "CALL db.labels() YIELD label RETURN label ORDER BY label",
                Map.of(),
                result -> result.stream().map(row -> (String) row.get("label")).toList());
    StringBuilder rules = new StringBuilder();
    int schemas = 0;
    int types = 0;
    for (String label : labels) {
      // A backslash would end the selector's escaping of dots; the service's labels never hold one.
      if (label.contains("\\")) continue;
      if (label.startsWith("schema:")) {
        String fill = SCHEMA_COLOURS[schemas++ % SCHEMA_COLOURS.length];
        rules.append(rule(label, "\"color\": \"" + fill + "\", \"border-color\": \"" + fill + "\", \"text-color-internal\": \"#FFFFFF\""));
      } else if (label.startsWith("type:")) {
        String fill = TYPE_COLOURS[types++ % TYPE_COLOURS.length];
        rules.append(rule(label, "\"color\": \"" + fill + "\", \"text-color-internal\": \"#2A2C34\""));
      }
    }
    int end = grass.lastIndexOf('}');
    String styled = end < 0 ? grass : grass.substring(0, end).stripTrailing() + rules + "\n}\n";
    return forBrowser(Response.ok(styled, "text/plain; charset=utf-8"), origin);
  }

  /** 403; its Access-Control-Allow-Origin (Neo4j's, the Browser's) names another page, which cannot read it. */
  private static Response foreignOrigin() {
    return Response.status(Response.Status.FORBIDDEN)
        .entity("The analyst files are open to this server's Neo4j Browser only.\n")
        .type("text/plain; charset=utf-8")
        .build();
  }

  /** No caching, and the Browser's origin (one of the loopback names it may be opened at) echoed for CORS. */
  private static Response forBrowser(Response.ResponseBuilder ok, String origin) {
    ok.header("Cache-Control", "no-store");
    if (origin != null) ok.header("Access-Control-Allow-Origin", origin.trim()).header("Vary", "Origin");
    return ok.build();
  }

  /**
   * A GraSS rule for nodes with `label`, in the JSON form. The Browser splits a selector at dots not escaped with a
   * backslash (selectorStringToArray), so each dot of the label is written `\.`; the JSON string escapes that backslash.
   */
  private static String rule(String label, String properties) {
    String selector = "node." + label.replace(".", "\\.");
    return ",\n  \"" + selector.replace("\\", "\\\\").replace("\"", "\\\"") + "\": {" + properties + "}";
  }

  @GET
  @javax.ws.rs.Path("guide.html")
  public Response guide(@HeaderParam("Origin") String origin) throws IOException {
    if (origin != null && !BROWSER.allows(origin)) return foreignOrigin();
    List<java.nio.file.Path> files;
    try (Stream<java.nio.file.Path> listing = Files.list(folder())) {
      files = listing.filter(f -> f.toString().endsWith(".cypher")).sorted().toList();
    }
    StringBuilder html = new StringBuilder("<article class=\"guide\"><carousel class=\"deck container-fluid\">\n");
    html.append("<slide class=\"row-fluid\"><div class=\"col-sm-12\"><h3>Analyst queries</h3>")
        .append("<p>One slide per query of cypher/analyst/. Click a block to put it in the editor: first the style, ")
        .append("then the parameters (<code>:params</code>, change the values), then the query.</p>")
        .append("<pre class=\"code runnable\">:style ")
        .append(escape(hostRelative("style.grass")))
        .append("</pre></div></slide>\n");
    for (java.nio.file.Path file : files) {
      List<String> comments = new ArrayList<>();
      List<String> statement = new ArrayList<>();
      String params = null;
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (line.startsWith("//") && statement.isEmpty()) {
          String text = line.substring(2).trim();
          Matcher example = PARAMS_EXAMPLE.matcher(text);
          if (example.find()) params = example.group(1);
          else if (!text.startsWith("params:")) comments.add(text);
        } else {
          statement.add(line);
        }
      }
      String name = file.getFileName().toString().replaceFirst("\\.cypher$", "");
      html.append("<slide class=\"row-fluid\"><div class=\"col-sm-12\"><h3>")
          .append(escape(name))
          .append("</h3><p>")
          .append(escape(String.join(" ", comments)))
          .append("</p>");
      if (params != null) html.append("<pre class=\"code runnable\">").append(escape(params)).append("</pre>");
      html.append("<pre class=\"code runnable\">")
          .append(escape(String.join("\n", statement).trim()))
          .append("</pre></div></slide>\n");
    }
    html.append("</carousel></article>\n");
    return forBrowser(Response.ok(html.toString(), "text/html; charset=utf-8"), origin);
  }

  /** The style's address as the Browser sees this server; set by the launcher, which knows the HTTP port. */
  private static String hostRelative(String name) {
    return System.getProperty("neo4jlocal.analyst.url", "/analyst/") + name;
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}

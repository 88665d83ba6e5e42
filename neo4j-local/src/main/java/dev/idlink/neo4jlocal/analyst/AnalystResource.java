package dev.idlink.neo4jlocal.analyst;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.ws.rs.GET;
import javax.ws.rs.core.Response;

/**
 * The analyst style and queries for Neo4j Browser, served by Neo4j's own web server beside /browser (an unmanaged
 * extension mounted at /analyst), so that the Browser loads them from its own host: GET /analyst/style.grass (the
 * GraSS file of cypher/analyst/) and GET /analyst/guide.html (a Browser guide with one slide per query, made from
 * the .cypher files when asked, so it never goes stale). Read-only; the folder is NEO4J_LOCAL_ANALYST_DIR.
 */
@javax.ws.rs.Path("/")
public class AnalystResource {
  private static final Pattern PARAMS_EXAMPLE = Pattern.compile("(:params \\{.*\\})");

  private static java.nio.file.Path folder() {
    String dir = System.getenv("NEO4J_LOCAL_ANALYST_DIR");
    return java.nio.file.Path.of(dir == null || dir.isEmpty() ? "cypher/analyst" : dir);
  }

  @GET
  @javax.ws.rs.Path("style.grass")
  public Response style() throws IOException {
    String grass = Files.readString(folder().resolve("style.grass"), StandardCharsets.UTF_8);
    return Response.ok(grass, "text/plain; charset=utf-8").header("Cache-Control", "no-store").build();
  }

  @GET
  @javax.ws.rs.Path("guide.html")
  public Response guide() throws IOException {
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
    return Response.ok(html.toString(), "text/html; charset=utf-8").header("Cache-Control", "no-store").build();
  }

  /** The style's address as the Browser sees this server; set by the launcher, which knows the HTTP port. */
  private static String hostRelative(String name) {
    return System.getProperty("neo4jlocal.analyst.url", "/analyst/") + name;
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}

package dev.vigil.kit.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.config.RoutesConfig;
import io.javalin.event.HandlerMetaInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code GET /openapi.yaml}: a service's hand-written OpenAPI 3 description ({@code openapi.yaml}
 * beside the class that owns the routes). Each service's test compares its paths and methods with
 * the routes the server registers ({@link #collect}), so a route cannot be added undocumented.
 */
public final class OpenApiRoute {
  /** Where the document is served. */
  public static final String PATH = "/openapi.yaml";

  /** The document's resource name, resolved beside the owner class. */
  public static final String RESOURCE = "openapi.yaml";

  private static final Set<String> METHODS =
      Set.of("get", "put", "post", "delete", "patch", "head", "options", "trace");

  private OpenApiRoute() {}

  /**
   * Serves {@code openapi.yaml} from beside {@code owner} at {@link #PATH}.
   *
   * @throws IllegalStateException if the document is missing (a packaging error)
   */
  public static void register(RoutesConfig routes, Class<?> owner) {
    byte[] document = load(owner);
    routes.get(
        PATH,
        ctx ->
            ctx.header("Cache-Control", "no-cache")
                .contentType("application/yaml; charset=utf-8")
                .result(document));
  }

  /** Adds {@code "GET /path"} for an HTTP route; before/after handlers are not routes. */
  public static void collect(Set<String> into, HandlerMetaInfo handler) {
    if (handler.getHttpMethod().isHttpMethod()) {
      into.add(handler.getHttpMethod().name() + " " + handler.getPath());
    }
  }

  /**
   * Every operation an OpenAPI document describes, as {@code "GET /path"}, like {@link #collect}.
   */
  public static Set<String> operations(JsonNode document) {
    Set<String> operations = new TreeSet<>();
    document
        .path("paths")
        .fields()
        .forEachRemaining(
            path ->
                path.getValue()
                    .fieldNames()
                    .forEachRemaining(
                        method -> {
                          if (METHODS.contains(method)) {
                            operations.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
                          }
                        }));
    return operations;
  }

  private static byte[] load(Class<?> owner) {
    try (InputStream in = owner.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing beside " + owner.getName());
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + RESOURCE, e);
    }
  }
}

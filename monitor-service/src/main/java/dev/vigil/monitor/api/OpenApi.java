package dev.vigil.monitor.api;

import io.javalin.config.RoutesConfig;
import io.javalin.event.HandlerMetaInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Set;

/**
 * {@code GET /openapi.yaml}: the hand-written OpenAPI 3 description of this API ({@code
 * openapi.yaml} beside this class). {@code OpenApiTest} compares its paths and methods with the
 * routes the server registers ({@link #collect}), so a route cannot be added undocumented.
 */
final class OpenApi {
  static final String PATH = "/openapi.yaml";
  static final String RESOURCE = "openapi.yaml";

  private OpenApi() {}

  static void register(RoutesConfig routes, Class<?> owner) {
    byte[] document = load(owner);
    routes.get(
        PATH,
        ctx ->
            ctx.header("Cache-Control", "no-cache")
                .contentType("application/yaml; charset=utf-8")
                .result(document));
  }

  /** Adds {@code "GET /path"} for an HTTP route; before/after handlers are not routes. */
  static void collect(Set<String> into, HandlerMetaInfo handler) {
    if (handler.getHttpMethod().isHttpMethod()) {
      into.add(handler.getHttpMethod().name() + " " + handler.getPath());
    }
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

package dev.vigil.notifier.webhook;

import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.kit.SecretFile;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The default route plus per-service and per-prefix routes; the most specific match wins (exact
 * name, then longest prefix, then the default).
 *
 * <p>Text form of the extra routes (entries separated by {@code ;} or newlines):
 *
 * <pre>{@code
 * payments=https://pay.example/hook secrets=env:PAY_WEBHOOK_SECRETS token=file:/run/secrets/pay
 * web-*=https://web.example/hook
 * }</pre>
 *
 * {@code secrets=} and {@code token=} refer to an environment variable ({@code env:NAME}) or a file
 * ({@code file:/path}); a route without them uses the default route's secrets and token.
 */
public record WebhookRoutes(WebhookRoute defaultRoute, List<WebhookRoute> routes) {

  public WebhookRoutes {
    routes =
        routes.stream()
            .sorted(Comparator.comparingInt(WebhookRoute::specificity).reversed())
            .toList();
  }

  /** The route for {@code service}. */
  public WebhookRoute routeFor(String service) {
    for (WebhookRoute route : routes) {
      if (route.matches(service)) {
        return route;
      }
    }
    return defaultRoute;
  }

  /**
   * Parses the extra routes. {@code env} resolves environment variable names to values (or null).
   *
   * @throws IllegalArgumentException naming the broken entry (never a secret)
   */
  public static WebhookRoutes parse(
      WebhookRoute defaultRoute, String text, UnaryOperator<String> env, boolean allowHttp) {
    List<WebhookRoute> routes = new ArrayList<>();
    if (text != null) {
      for (String entry : text.split("[;\\n]")) {
        if (!entry.isBlank()) {
          routes.add(parseEntry(defaultRoute, entry.strip(), env, allowHttp));
        }
      }
    }
    return new WebhookRoutes(defaultRoute, routes);
  }

  private static WebhookRoute parseEntry(
      WebhookRoute defaults, String entry, UnaryOperator<String> env, boolean allowHttp) {
    String[] words = entry.split("\\s+");
    int eq = words[0].indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException(
          "route entry must start with <service or prefix*>=<url>, got '" + words[0] + "'");
    }
    String match = words[0].substring(0, eq);
    URI url;
    try {
      url = URI.create(words[0].substring(eq + 1));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("route '" + match + "' has an invalid URL");
    }
    List<WebhookSecret> secrets = defaults.secrets();
    String token = defaults.bearerToken();
    for (int i = 1; i < words.length; i++) {
      String word = words[i];
      if (word.startsWith("secrets=")) {
        secrets = WebhookSecret.parseList(resolve(match, word.substring(8), env));
      } else if (word.startsWith("token=")) {
        token = resolve(match, word.substring(6), env).strip();
      } else {
        throw new IllegalArgumentException(
            "route '" + match + "': unknown attribute (use secrets=env:NAME|file:PATH, token=…)");
      }
    }
    return new WebhookRoute(match, url, token, secrets, allowHttp);
  }

  private static String resolve(String match, String reference, UnaryOperator<String> env) {
    if (reference.startsWith("env:")) {
      String value = env.apply(reference.substring(4));
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException(
            "route '"
                + match
                + "': environment variable "
                + reference.substring(4)
                + " is not set");
      }
      return value;
    }
    if (reference.startsWith("file:")) {
      return SecretFile.read(match, Path.of(reference.substring(5)));
    }
    throw new IllegalArgumentException(
        "route '" + match + "': secrets and tokens must be env:NAME or file:PATH references");
  }
}

package dev.vigil.notifier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Reads a running notifier's HTTP routes the way an operator or Prometheus does. */
final class NotifierHttp {
  private static final ObjectMapper JSON = new ObjectMapper();

  private NotifierHttp() {}

  /** The body of {@code GET path}, with the bearer {@code token} unless null. */
  static String get(NotifierService instance, String path, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + instance.httpPort() + path))
            .timeout(Duration.ofSeconds(30));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try (HttpClient client = HttpClient.newHttpClient()) {
      return client.send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
    }
  }

  /** One channel's entry of {@code GET /admin/channels}. */
  static JsonNode channel(NotifierService instance, String name) throws Exception {
    for (JsonNode channel :
        JSON.readTree(get(instance, "/admin/channels", TestStack.ADMIN_TOKEN))) {
      if (channel.path("channel").asText().equals(name)) {
        return channel;
      }
    }
    throw new AssertionError("channel " + name + " not listed by /admin/channels");
  }

  static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }
}

package dev.vigil.drills.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ChaosProxyTest {
  private final List<String> received = new CopyOnWriteArrayList<>();

  /** Counted down by the upstream once it stored a request. */
  private final CountDownLatch stored = new CountDownLatch(1);

  private final HttpClient client = HttpClient.newHttpClient();
  private HttpServer upstream;
  private ChaosProxy proxy;

  @BeforeEach
  void start() throws IOException {
    upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    upstream.createContext(
        "/webhook",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          received.add(exchange.getRequestHeaders().getFirst("webhook-signature") + " " + body);
          stored.countDown();
          byte[] answer = "stored".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, answer.length);
          exchange.getResponseBody().write(answer);
          exchange.close();
        });
    upstream.start();
    proxy = ChaosProxy.start(URI.create("http://127.0.0.1:" + upstream.getAddress().getPort()));
  }

  @AfterEach
  void stop() {
    proxy.close();
    upstream.stop(0);
    client.close();
  }

  private HttpResponse<String> post(Duration timeout) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port() + "/webhook"))
            .timeout(timeout)
            .header("webhook-signature", "v1,abc")
            .POST(HttpRequest.BodyPublishers.ofString("{\"x\":1}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void passForwardsBodyAndHeadersAndRelaysTheAnswer() throws Exception {
    HttpResponse<String> response = post(Duration.ofSeconds(5));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("stored");
    assertThat(received).containsExactly("v1,abc {\"x\":1}");
  }

  @Test
  void unavailableAnswers503WithoutForwarding() throws Exception {
    proxy.mode(ChaosMode.UNAVAILABLE);

    assertThat(post(Duration.ofSeconds(5)).statusCode()).isEqualTo(503);
    assertThat(received).isEmpty();
    assertThat(proxy.counts().get(ChaosMode.UNAVAILABLE)).isEqualTo(1);
  }

  @Test
  void tooManyRequestsAnswers429WithRetryAfter() throws Exception {
    proxy.mode(ChaosMode.TOO_MANY_REQUESTS);
    proxy.retryAfterSeconds(2);

    HttpResponse<String> response = post(Duration.ofSeconds(5));

    assertThat(response.statusCode()).isEqualTo(429);
    assertThat(response.headers().firstValue("retry-after")).contains("2");
    assertThat(received).isEmpty();
  }

  @Test
  void resetBeforeForwardingFailsTheRequestAndNothingArrives() {
    proxy.mode(ChaosMode.RESET_BEFORE);

    assertThatThrownBy(() -> post(Duration.ofSeconds(5))).isInstanceOf(IOException.class);
    assertThat(received).isEmpty();
  }

  @Test
  void resetAfterForwardingLosesOnlyTheAcknowledgement() {
    proxy.mode(ChaosMode.RESET_AFTER);

    // The proxy resets only after the upstream answered, so once the caller saw the reset (and
    // not its own, generous, timeout) the upstream has stored the request.
    assertThatThrownBy(() -> post(Duration.ofSeconds(60)))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(HttpTimeoutException.class);
    assertThat(received).hasSize(1);
  }

  @Test
  void slowForwardsButAnswersAfterTheCallersTimeout() throws Exception {
    proxy.mode(ChaosMode.SLOW);
    // Held far longer than this test waits for anything: whenever the forwarded request reaches
    // the upstream (a cold first exchange can take longer than the caller's timeout), the proxy
    // cannot have answered before the caller gave up.
    proxy.slowDelay(Duration.ofMinutes(5));

    assertThatThrownBy(() -> post(Duration.ofMillis(500))).isInstanceOf(HttpTimeoutException.class);
    assertThat(stored.await(10, TimeUnit.SECONDS)).as("the upstream stored the request").isTrue();
    assertThat(received).containsExactly("v1,abc {\"x\":1}");
  }
}

package dev.vigil.notifier.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.contract.webhook.WebhookSignature;
import dev.vigil.notifier.webhook.WebhookRoute;
import dev.vigil.notifier.webhook.WebhookRoutes;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The webhook sender against a real local HTTP(S) server (the JDK's). */
class WebhookSenderTest {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final String BODY = "{\"service\":\"api\"}";

  /** Connect, request and pooled-idle timeouts where they are not under test. */
  private static final Duration LONG = Duration.ofSeconds(30);

  /** How long a test waits for an outcome: longer than any timeout it sets. */
  private static final long OUTCOME_WAIT = 60;

  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private HttpServer server;

  /** One request as the server saw it. */
  record Seen(
      String method, String path, Map<String, List<String>> headers, String body, int port) {
    String header(String name) {
      return headers.entrySet().stream()
          .filter(e -> e.getKey().equalsIgnoreCase(name))
          .map(e -> String.join(",", e.getValue()))
          .findFirst()
          .orElse(null);
    }
  }

  @AfterEach
  void stopServer() {
    release.countDown();
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void postsTheSignedBodyWithItsHeadersAndReturnsStatusAndRetryAfter() throws Exception {
    start(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
    server.createContext(
        "/hook",
        exchange -> {
          record(exchange);
          exchange.getResponseHeaders().add("Retry-After", "7");
          respond(exchange, 503, "busy");
        });
    Claim claim = claim();
    try (WebhookSender sender = sender(url("/hook?x=1"), "tok-123")) {
      Outcome outcome = sender.send(claim).get(OUTCOME_WAIT, TimeUnit.SECONDS);

      assertThat(outcome).isEqualTo(new Outcome.Retryable(503, "HTTP 503", Duration.ofSeconds(7)));
      Seen request = seen.getFirst();
      assertThat(request.method()).isEqualTo("POST");
      assertThat(request.path()).isEqualTo("/hook?x=1");
      assertThat(request.body()).isEqualTo(BODY);
      assertThat(request.header("Content-Type")).startsWith("application/json");
      assertThat(request.header("User-Agent")).isEqualTo("vigil-notifier");
      assertThat(request.header("Authorization")).isEqualTo("Bearer tok-123");
      String id = claim.eventId().toString();
      assertThat(request.header("Idempotency-Key")).isEqualTo(id);
      assertThat(request.header(WebhookSignature.HEADER_ID)).isEqualTo(id);
      String timestamp = request.header(WebhookSignature.HEADER_TIMESTAMP);
      assertThat(
              WebhookSignature.sign(
                  WebhookSecret.parseList(SECRET),
                  id,
                  Long.parseLong(timestamp),
                  BODY.getBytes(StandardCharsets.UTF_8)))
          .isEqualTo(request.header(WebhookSignature.HEADER_SIGNATURE));
    }
  }

  @Test
  void sequentialRequestsReuseOneKeepAliveConnection() throws Exception {
    start(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
    server.createContext(
        "/hook",
        exchange -> {
          record(exchange);
          respond(exchange, 200, "ok");
        });
    try (WebhookSender sender = sender(url("/hook"), null)) {
      for (int i = 0; i < 3; i++) {
        assertThat(sender.send(claim()).get(OUTCOME_WAIT, TimeUnit.SECONDS))
            .isEqualTo(new Outcome.Delivered(200));
      }
    }
    assertThat(seen).hasSize(3);
    assertThat(seen).allMatch(s -> s.header("Authorization") == null);
    assertThat(seen.stream().map(Seen::port).distinct()).as("client ports").hasSize(1);
  }

  @Test
  void redirectIsAnOutcomeAndItsLocationIsNeverRequested() throws Exception {
    start(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
    server.createContext(
        "/",
        exchange -> {
          record(exchange);
          exchange.getResponseHeaders().add("Location", url("/elsewhere").toString());
          respond(exchange, 307, "");
        });
    try (WebhookSender sender = sender(url("/hook"), null)) {
      Outcome outcome = sender.send(claim()).get(OUTCOME_WAIT, TimeUnit.SECONDS);

      assertThat(outcome).isInstanceOf(Outcome.Permanent.class);
      assertThat(((Outcome.Permanent) outcome).status()).isEqualTo(307);
    }
    assertThat(seen).extracting(Seen::path).containsExactly("/hook");
  }

  @Test
  void anUnauthorizedAnswerIsTheReceiversStatusWithOrWithoutAChallenge() throws Exception {
    start(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
    server.createContext(
        "/plain",
        exchange -> {
          record(exchange);
          respond(exchange, 401, "bad signature");
        });
    server.createContext(
        "/challenge",
        exchange -> {
          record(exchange);
          exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"hooks\"");
          respond(exchange, 401, "who are you");
        });
    server.createContext(
        "/proxy",
        exchange -> {
          record(exchange);
          respond(exchange, 407, "");
        });
    for (String path : List.of("/plain", "/challenge", "/proxy")) {
      try (WebhookSender sender = sender(url(path), null)) {
        Outcome outcome = sender.send(claim()).get(OUTCOME_WAIT, TimeUnit.SECONDS);

        assertThat(outcome).as(path).isInstanceOf(Outcome.Permanent.class);
        assertThat(((Outcome.Permanent) outcome).status())
            .as(path)
            .isEqualTo(path.equals("/proxy") ? 407 : 401);
      }
    }
    assertThat(seen).extracting(Seen::path).containsExactly("/plain", "/challenge", "/proxy");
  }

  @Test
  void silentReceiverIsReportedAsATimeoutWithinTheRequestTimeout() throws Exception {
    start(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
    server.createContext(
        "/hook",
        exchange -> {
          record(exchange);
          try {
            release.await(2, TimeUnit.MINUTES); // never answers while the test runs
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.close();
        });
    try (WebhookSender sender =
        new WebhookSender(routes(url("/hook"), null), Duration.ofSeconds(30), ms(300), 4)) {
      long started = System.nanoTime();
      Outcome outcome = sender.send(claim()).get(OUTCOME_WAIT, TimeUnit.SECONDS);

      assertThat(outcome).isInstanceOf(Outcome.Retryable.class);
      Outcome.Retryable retry = (Outcome.Retryable) outcome;
      assertThat(retry.status()).isZero();
      // the request's own 300 ms timeout fired (its message names it), not some other failure;
      // how late after 300 ms is up to the machine, so there is no upper bound on the time
      assertThat(retry.error()).startsWith("timeout: ").contains("300 ms").doesNotContain("/hook");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(ms(250));
    }
  }

  @Test
  void refusedConnectionIsReportedAsUnreachable() throws Exception {
    int port;
    try (ServerSocket closed = new ServerSocket(0)) {
      port = closed.getLocalPort();
    }
    URI url = URI.create("http://127.0.0.1:" + port + "/hook");
    try (WebhookSender sender = sender(url, null)) {
      assertThat(sender.send(claim()).get(OUTCOME_WAIT, TimeUnit.SECONDS))
          .isEqualTo(new Outcome.Retryable(0, "connection refused or unreachable", null));
    }
  }

  @Test
  void tlsVerifiesTheCertificateNamesTheHost(@TempDir Path dir) throws Exception {
    KeyStore keys = selfSignedForLocalhost(dir);
    SSLContext context = SSLContext.getInstance("TLS");
    KeyManagerFactory managers =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    managers.init(keys, "changeit".toCharArray());
    context.init(managers.getKeyManagers(), null, null);
    HttpsServer https = HttpsServer.create(new InetSocketAddress(0), 0);
    https.setHttpsConfigurator(new HttpsConfigurator(context));
    start(https);
    server.createContext(
        "/hook",
        exchange -> {
          record(exchange);
          respond(exchange, 204, null);
        });
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("receiver", keys.getCertificate("receiver"));
    int port = server.getAddress().getPort();

    for (String host : List.of("localhost", "127.0.0.1")) {
      SslContextFactory.Client tls = new SslContextFactory.Client();
      tls.setTrustStore(trust);
      URI url = URI.create("https://" + host + ":" + port + "/hook");
      try (WebhookSender sender = new WebhookSender(routes(url, null), LONG, LONG, 4, tls, LONG)) {
        Outcome outcome = sender.send(claim()).get(OUTCOME_WAIT, TimeUnit.SECONDS);
        if (host.equals("localhost")) {
          assertThat(outcome).isEqualTo(new Outcome.Delivered(204));
        } else {
          // the certificate names localhost only: a trusted certificate for another host fails
          assertThat(outcome).isInstanceOf(Outcome.Retryable.class);
          assertThat(((Outcome.Retryable) outcome).error()).containsIgnoringCase("SSL");
        }
      }
    }
    assertThat(seen).hasSize(1);
  }

  private void start(HttpServer created) {
    server = created;
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.start();
  }

  private URI url(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + pathAndQuery);
  }

  private void record(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      seen.add(
          new Seen(
              exchange.getRequestMethod(),
              exchange.getRequestURI().toString(),
              Map.copyOf(exchange.getRequestHeaders()),
              new String(in.readAllBytes(), StandardCharsets.UTF_8),
              exchange.getRemoteAddress().getPort()));
    }
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, body == null ? -1 : bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      exchange.getResponseBody().write(bytes);
    }
    exchange.close();
  }

  /**
   * A sender whose timeouts are not under test: far beyond any answer's time, and pooled
   * connections kept, so a stalled test thread changes neither outcomes nor connection reuse.
   */
  private static WebhookSender sender(URI url, String token) {
    return new WebhookSender(
        routes(url, token), LONG, LONG, 4, new SslContextFactory.Client(), LONG);
  }

  private static WebhookRoutes routes(URI url, String token) {
    WebhookRoute route = new WebhookRoute("*", url, token, WebhookSecret.parseList(SECRET), true);
    return new WebhookRoutes(route, List.of());
  }

  private static Claim claim() {
    return new Claim(UUID.randomUUID(), "api", "FAILED", BODY, 1, UUID.randomUUID(), Instant.now());
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }

  /** A PKCS12 key store (alias receiver, password changeit) for CN/SAN localhost, via keytool. */
  private static KeyStore selfSignedForLocalhost(Path dir) throws Exception {
    Path file = dir.resolve("receiver.p12");
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    Process process =
        new ProcessBuilder(
                keytool.toString(),
                "-genkeypair",
                "-alias",
                "receiver",
                "-keyalg",
                "EC",
                "-dname",
                "CN=localhost",
                "-ext",
                "SAN=dns:localhost",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                file.toString(),
                "-storepass",
                "changeit")
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      keys.load(in, "changeit".toCharArray());
    }
    return keys;
  }
}

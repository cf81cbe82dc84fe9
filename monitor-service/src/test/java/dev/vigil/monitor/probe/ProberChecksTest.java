package dev.vigil.monitor.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.vigil.monitor.alert.ProbeResult;
import dev.vigil.monitor.alert.ProbeStatus;
import dev.vigil.monitor.targets.TargetParser;
import dev.vigil.monitor.targets.TargetSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every check beyond the status code against local servers that misbehave on purpose: slow, wrong
 * body, JSON mismatch, a certificate about to expire, a self-signed one, a closed port and a name
 * that does not exist. Targets are written as in the targets file, so parsing is covered too.
 */
class ProberChecksTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "s3cr3t-header-value";

  @TempDir Path dir;
  private final Map<String, String> seen = new ConcurrentHashMap<>();
  private final TestCertificates.Issued ca = TestCertificates.ca("CN=Vigil Test CA");
  private HttpServer server;
  private Prober prober;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    answer(server);
    server.start();
    prober =
        new Prober(
            "vigil-test",
            Clock.systemUTC(),
            new SimpleMeterRegistry(),
            TestCertificates.trusting(ca.certificate()));
  }

  @AfterEach
  void stop() {
    prober.close();
    server.stop(0);
  }

  private void answer(HttpServer on) {
    on.createContext("/health", exchange -> respond(exchange, "{\"status\":\"ok\",\"load\":1}"));
    on.createContext(
        "/degraded",
        exchange -> respond(exchange, "{\"status\":\"degraded\",\"error\":\"db\\u0000down\"}"));
    on.createContext("/text", exchange -> respond(exchange, "all systems operational"));
    on.createContext(
        "/slow",
        exchange -> {
          // The misbehaviour under test: an answer that takes longer than the budget.
          try {
            Thread.sleep(400);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          respond(exchange, "{\"status\":\"ok\"}");
        });
    on.createContext(
        "/big",
        exchange ->
            respond(exchange, "{\"pad\":\"" + "x".repeat(100_000) + "\",\"status\":\"ok\"}"));
    on.createContext(
        "/echo",
        exchange -> {
          seen.put("method", exchange.getRequestMethod());
          seen.put(
              "body", new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          exchange
              .getRequestHeaders()
              .forEach((name, values) -> seen.put(name.toLowerCase(), values.get(0)));
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          byte[] body = "{\"accepted\":false}".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
  }

  @Test
  void slowerThanTheLatencyBudgetIsDown() {
    ProbeResult slow = probe("url: %s/slow\nmaxLatency: 100ms".formatted(base()));
    assertThat(slow.status()).isEqualTo(ProbeStatus.DOWN);
    assertThat(slow.error()).matches("latency \\d+ms over budget 100ms");
    assertThat(slow.latencyMs()).isGreaterThan(100);

    assertThat(probe("url: %s/slow\nmaxLatency: 30s".formatted(base())).status())
        .isEqualTo(ProbeStatus.UP);
  }

  @Test
  void bodyMustContainAndMustNotContain() {
    assertThat(probe("url: %s/text\nbodyContains: operational".formatted(base())).status())
        .isEqualTo(ProbeStatus.UP);

    ProbeResult missing = probe("url: %s/text\nbodyContains: [all, healthy]".formatted(base()));
    assertThat(missing.status()).isEqualTo(ProbeStatus.DOWN);
    assertThat(missing.error()).isEqualTo("body: does not contain \"healthy\"");
    assertThat(missing.httpStatus()).isEqualTo(200);

    ProbeResult unwanted = probe("url: %s/degraded\nbodyNotContains: degraded".formatted(base()));
    assertThat(unwanted.status()).isEqualTo(ProbeStatus.DOWN);
    assertThat(unwanted.error()).isEqualTo("body: contains \"degraded\"");
  }

  @Test
  void jsonPointerMustEqualTheValue() {
    assertThat(
            probe("url: %s/health\njsonEquals: {/status: ok, /load: 1.0}".formatted(base()))
                .status())
        .isEqualTo(ProbeStatus.UP);

    ProbeResult mismatch = probe("url: %s/degraded\njsonEquals: {/status: ok}".formatted(base()));
    assertThat(mismatch.status()).isEqualTo(ProbeStatus.DOWN);
    assertThat(mismatch.error()).isEqualTo("body: \"/status\" is \"degraded\", expected \"ok\"");

    ProbeResult missing = probe("url: %s/health\njsonEquals: {/checks/db: up}".formatted(base()));
    assertThat(missing.error()).isEqualTo("body: \"/checks/db\" is missing, expected \"up\"");

    ProbeResult typed = probe("url: %s/health\njsonEquals: {/load: \"1\"}".formatted(base()));
    assertThat(typed.error()).isEqualTo("body: \"/load\" is 1, expected \"1\"");

    ProbeResult notJson = probe("url: %s/text\njsonEquals: {/status: ok}".formatted(base()));
    assertThat(notJson.error()).isEqualTo("body: not JSON");
  }

  @Test
  void bodyChecksReadABoundedBody() {
    ProbeResult big = probe("url: %s/big\njsonEquals: {/status: ok}".formatted(base()));
    assertThat(big.status()).isEqualTo(ProbeStatus.DOWN);
    assertThat(big.error())
        .isEqualTo("body: longer than " + Prober.BODY_CHECK_LIMIT + " bytes, JSON not checked");

    // "status" is past the cap: contains sees only the first 64 KiB and says so.
    ProbeResult cut = probe("url: %s/big\nbodyContains: '\"status\"'".formatted(base()));
    assertThat(cut.error())
        .isEqualTo(
            "body: does not contain \"\"status\"\" in its first "
                + Prober.BODY_CHECK_LIMIT
                + " bytes");
  }

  @Test
  void certificateExpiringWithinTheWarningDaysIsDown() throws IOException {
    TestCertificates.Issued leaf =
        TestCertificates.leaf(ca, Instant.now().plus(Duration.ofDays(3)).plusSeconds(3600));
    HttpsServer tls = https(TestCertificates.server(leaf, ca.certificate()));
    try {
      String url = "https://127.0.0.1:" + tls.getAddress().getPort() + "/health";
      ProbeResult soon = probe("url: %s\ntlsExpiryDays: 14".formatted(url));
      assertThat(soon.status()).isEqualTo(ProbeStatus.DOWN);
      assertThat(soon.error())
          .matches(
              "TLS: certificate of 127\\.0\\.0\\.1:\\d+ expires in 3 days \\(\\d{4}-\\d\\d-\\d\\d\\),"
                  + " within 14");

      assertThat(probe("url: %s\ntlsExpiryDays: 2".formatted(url)).status())
          .isEqualTo(ProbeStatus.UP);
    } finally {
      tls.stop(0);
    }
  }

  @Test
  void selfSignedCertificateIsDown() throws IOException {
    HttpsServer tls = https(TestCertificates.server(TestCertificates.selfSigned()));
    try {
      int port = tls.getAddress().getPort();
      ProbeResult result =
          probe("url: https://127.0.0.1:%d/health?token=abc\ntlsExpiryDays: 14".formatted(port));
      assertThat(result.status()).isEqualTo(ProbeStatus.DOWN);
      assertThat(result.error())
          .isEqualTo("TLS: certificate of 127.0.0.1:" + port + " does not verify");
    } finally {
      tls.stop(0);
    }
  }

  @Test
  void postSendsTheBodyAndHeadersAndNeverShowsAHeaderValue() throws IOException {
    Path token = Files.writeString(dir.resolve("token"), "Bearer " + SECRET + "\n");
    ProbeResult result =
        probe(
            """
            url: %s/echo
            method: POST
            headers:
              Content-Type: application/json
              X-Api-Key: inline-%s
              Authorization: {valueFile: %s}
            body: '{"ping": true}'
            jsonEquals: {/accepted: true}
            """
                .formatted(base(), SECRET, token));
    assertThat(seen)
        .containsEntry("method", "POST")
        .containsEntry("body", "{\"ping\": true}")
        .containsEntry("content-type", "application/json")
        .containsEntry("x-api-key", "inline-" + SECRET)
        .containsEntry("authorization", "Bearer " + SECRET);
    assertThat(result.status()).isEqualTo(ProbeStatus.DOWN);
    assertThat(result.error()).isEqualTo("body: \"/accepted\" is false, expected true");
  }

  @Test
  void unreadableHeaderFileIsDownNamingOnlyTheHeader() {
    ProbeResult result =
        probe(
            "url: %s/health\nheaders: {X-Token: {valueFile: %s}}"
                .formatted(base(), dir.resolve("missing")));
    assertThat(result.status()).isEqualTo(ProbeStatus.DOWN);
    assertThat(result.error())
        .isEqualTo(
            "header X-Token: valueFile cannot be read or is over "
                + RequestHeaders.MAX_FILE_BYTES
                + " bytes");
  }

  @Test
  void tcpTargetIsUpWhenItConnectsAndDownOnAClosedPortOrUnknownName() throws IOException {
    try (ServerSocket open = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      ProbeResult up = probe("url: tcp://127.0.0.1:%d".formatted(open.getLocalPort()));
      assertThat(up.status()).isEqualTo(ProbeStatus.UP);
      assertThat(up.httpStatus()).isNull();
    }
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    ProbeResult refused = probe("url: tcp://127.0.0.1:%d".formatted(closed));
    assertThat(refused.status()).isEqualTo(ProbeStatus.DOWN);
    assertThat(refused.error())
        .isEqualTo("connect: 127.0.0.1:" + closed + " refused the connection");

    ProbeResult unknown = probe("type: tcp\nurl: tcp://no-such-db.invalid:5432");
    assertThat(unknown.error()).isEqualTo("DNS: cannot resolve no-such-db.invalid");
  }

  @Test
  void dnsTargetResolvesOptionallyToTheExpectedAddress() {
    assertThat(probe("url: dns://localhost").status()).isEqualTo(ProbeStatus.UP);
    assertThat(probe("url: dns://localhost\nexpectAddress: 127.0.0.1").status())
        .isEqualTo(ProbeStatus.UP);

    ProbeResult elsewhere = probe("url: dns://localhost\nexpectAddress: [10.9.9.9]");
    assertThat(elsewhere.status()).isEqualTo(ProbeStatus.DOWN);
    assertThat(elsewhere.error())
        .startsWith("DNS: localhost resolved to ")
        .contains("127.0.0.1")
        .endsWith(", expected 10.9.9.9");

    ProbeResult unknown = probe("url: dns://nothing-here.invalid");
    assertThat(unknown.status()).isEqualTo(ProbeStatus.DOWN);
    assertThat(unknown.error()).isEqualTo("DNS: cannot resolve nothing-here.invalid");
  }

  private HttpsServer https(javax.net.ssl.SSLContext context) throws IOException {
    HttpsServer tls = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    tls.setHttpsConfigurator(new HttpsConfigurator(context));
    tls.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    answer(tls);
    tls.start();
    return tls;
  }

  /** Probes a target written as in the targets file (generous timeouts: the machine is busy). */
  private ProbeResult probe(String yaml) {
    try {
      String definition = "name: svc\ninterval: 60s\ntimeout: 30s\n" + yaml;
      TargetSpec target =
          TargetParser.parse(
              "test",
              "#1",
              new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                  .readTree(definition),
              null,
              true);
      return prober.probe(target);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private String base() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private static void respond(HttpExchange exchange, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}

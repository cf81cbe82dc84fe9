package dev.vigil.drills.chaos;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small HTTP/1.1 proxy in front of the reference receiver that misbehaves on demand (see {@link
 * ChaosMode}). It works on raw sockets so it can reset connections (SO_LINGER 0 then close sends a
 * TCP RST). Each connection carries one request ({@code Connection: close}). Bodies and signature
 * headers pass through unchanged, so the receiver still verifies what the notifier signed.
 */
public final class ChaosProxy implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ChaosProxy.class);
  private static final Set<String> RESTRICTED =
      Set.of(
          "host",
          "connection",
          "content-length",
          "transfer-encoding",
          "upgrade",
          "http2-settings",
          "expect",
          "keep-alive",
          "te");

  private final URI upstream;
  private final ServerSocket server;
  private final HttpClient client;
  private final Map<ChaosMode, AtomicLong> counts = new EnumMap<>(ChaosMode.class);
  private final Thread acceptor;
  private volatile ChaosMode mode = ChaosMode.PASS;
  private volatile Duration slowDelay = Duration.ofSeconds(3);
  private volatile int retryAfterSeconds = 1;

  private ChaosProxy(URI upstream, ServerSocket server) {
    this.upstream = upstream;
    this.server = server;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    for (ChaosMode each : ChaosMode.values()) {
      counts.put(each, new AtomicLong());
    }
    this.acceptor = Thread.ofPlatform().name("chaos-proxy-accept").daemon(true).start(this::accept);
  }

  /**
   * Starts a proxy on a free local port forwarding to {@code upstream} (scheme, host and port; the
   * request path is kept).
   */
  public static ChaosProxy start(URI upstream) {
    try {
      ServerSocket server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
      return new ChaosProxy(upstream, server);
    } catch (IOException e) {
      throw new IllegalStateException("cannot open the chaos proxy port", e);
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Switches behaviour for requests that arrive from now on. */
  public void mode(ChaosMode mode) {
    this.mode = mode;
    LOG.info("chaos proxy mode={}", mode);
  }

  public ChaosMode mode() {
    return mode;
  }

  /** How long {@link ChaosMode#SLOW} holds an answer. */
  public void slowDelay(Duration delay) {
    this.slowDelay = delay;
  }

  /** The {@code Retry-After} seconds sent with {@link ChaosMode#TOO_MANY_REQUESTS}. */
  public void retryAfterSeconds(int seconds) {
    this.retryAfterSeconds = seconds;
  }

  /** Requests handled in each mode so far. */
  public Map<ChaosMode, Long> counts() {
    Map<ChaosMode, Long> snapshot = new LinkedHashMap<>();
    counts.forEach((key, value) -> snapshot.put(key, value.get()));
    return snapshot;
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      LOG.debug("closing the chaos proxy socket failed: {}", e.getMessage());
    }
    acceptor.interrupt();
    client.close();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        Thread.ofVirtual().name("chaos-proxy-conn").start(() -> handle(socket));
      } catch (IOException e) {
        if (!server.isClosed()) {
          LOG.warn("chaos proxy accept failed: {}", e.toString());
        }
      }
    }
  }

  private void handle(Socket socket) {
    ChaosMode current = mode;
    try (socket) {
      socket.setSoTimeout(30_000);
      InputStream in = new BufferedInputStream(socket.getInputStream());
      ProxiedRequest request = ProxiedRequest.read(in);
      if (request == null) {
        return;
      }
      counts.get(current).incrementAndGet();
      OutputStream out = socket.getOutputStream();
      switch (current) {
        case UNAVAILABLE -> respond(out, 503, "Service Unavailable", Map.of(), "chaos: 503");
        case TOO_MANY_REQUESTS ->
            respond(
                out,
                429,
                "Too Many Requests",
                Map.of("Retry-After", String.valueOf(retryAfterSeconds)),
                "chaos: 429");
        case RESET_BEFORE -> reset(socket);
        case RESET_AFTER -> {
          forward(request);
          reset(socket);
        }
        case SLOW -> {
          HttpResponse<byte[]> answer = forward(request);
          Thread.sleep(slowDelay.toMillis());
          relay(out, answer);
        }
        case PASS -> relay(out, forward(request));
      }
    } catch (IOException e) {
      LOG.debug("chaos proxy connection ended: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private HttpResponse<byte[]> forward(ProxiedRequest request)
      throws IOException, InterruptedException {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(upstream.resolve(request.target()))
            .timeout(Duration.ofSeconds(10))
            .method(request.method(), HttpRequest.BodyPublishers.ofByteArray(request.body()));
    request
        .headers()
        .forEach(
            (name, value) -> {
              if (!RESTRICTED.contains(name.toLowerCase(Locale.ROOT))) {
                builder.header(name, value);
              }
            });
    return client.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static void relay(OutputStream out, HttpResponse<byte[]> answer) throws IOException {
    Map<String, String> headers = new LinkedHashMap<>();
    answer.headers().firstValue("content-type").ifPresent(v -> headers.put("Content-Type", v));
    answer.headers().firstValue("retry-after").ifPresent(v -> headers.put("Retry-After", v));
    write(out, answer.statusCode(), "From receiver", headers, answer.body());
  }

  private static void respond(
      OutputStream out, int status, String reason, Map<String, String> headers, String body)
      throws IOException {
    write(out, status, reason, headers, body.getBytes(StandardCharsets.UTF_8));
  }

  private static void write(
      OutputStream out, int status, String reason, Map<String, String> headers, byte[] body)
      throws IOException {
    StringBuilder head = new StringBuilder();
    head.append("HTTP/1.1 ").append(status).append(' ').append(reason).append("\r\n");
    headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
    head.append("Content-Length: ").append(body.length).append("\r\n");
    head.append("Connection: close\r\n\r\n");
    out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    out.write(body);
    out.flush();
  }

  private static void reset(Socket socket) throws SocketException {
    socket.setSoLinger(true, 0);
  }
}

package dev.vigil.notifier.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/** The webhook client against a scripted raw-socket server. */
class Http1ClientTest {

  @Test
  void readsChunkedResponsesAndReusesTheConnection() throws Exception {
    try (ScriptedServer server =
            new ScriptedServer(
                n ->
                    "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n4\r\nbusy\r\n0\r\n\r\n",
                false);
        Http1Client client = new Http1Client(Duration.ofSeconds(1), Duration.ofSeconds(2))) {
      for (int i = 0; i < 3; i++) {
        Http1Client.Response response = client.post(server.url(), headers(), body());
        assertThat(response.status()).isEqualTo(503);
        assertThat(response.retryAfter()).isEqualTo("7");
      }
      assertThat(server.connections.get()).isEqualTo(1);
      assertThat(server.requests).hasSize(3).allMatch(r -> r.startsWith("POST /hook?x=1 HTTP/1.1"));
      assertThat(server.requests.getFirst()).contains("Idempotency-Key: abc").endsWith("{\"a\":1}");
    }
  }

  @Test
  void idleConnectionClosedByThePeerIsReplacedTransparently() throws Exception {
    try (ScriptedServer server =
            new ScriptedServer(n -> "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true);
        Http1Client client = new Http1Client(Duration.ofSeconds(1), Duration.ofSeconds(2))) {
      assertThat(client.post(server.url(), headers(), body()).status()).isEqualTo(200);
      assertThat(client.post(server.url(), headers(), body()).status()).isEqualTo(200);
      assertThat(server.connections.get()).isEqualTo(2);
    }
  }

  @Test
  void redirectsAreReturnedNotFollowed() throws Exception {
    try (ScriptedServer server =
            new ScriptedServer(
                n ->
                    "HTTP/1.1 302 Found\r\nLocation: http://elsewhere/\r\nContent-Length: 0\r\n\r\n",
                false);
        Http1Client client = new Http1Client(Duration.ofSeconds(1), Duration.ofSeconds(2))) {
      assertThat(client.post(server.url(), headers(), body()).status()).isEqualTo(302);
      assertThat(server.requests).hasSize(1);
    }
  }

  @Test
  void silentServerTimesOut() throws Exception {
    try (ScriptedServer server = new ScriptedServer(n -> null, false);
        Http1Client client = new Http1Client(Duration.ofSeconds(1), Duration.ofMillis(300))) {
      long started = System.nanoTime();
      assertThatThrownBy(() -> client.post(server.url(), headers(), body()))
          .isInstanceOf(SocketTimeoutException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
    }
  }

  private static List<Map.Entry<String, String>> headers() {
    return List.of(Map.entry("Idempotency-Key", "abc"));
  }

  private static byte[] body() {
    return "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
  }

  /** Answers each request with the scripted response (null: never answer). */
  private static final class ScriptedServer implements AutoCloseable {
    final ServerSocket socket = new ServerSocket(0);
    final AtomicInteger connections = new AtomicInteger();
    final List<String> requests = new CopyOnWriteArrayList<>();
    final List<Socket> open = new CopyOnWriteArrayList<>();

    ScriptedServer(IntFunction<String> script, boolean closeAfterEach) throws IOException {
      Thread.ofVirtual()
          .start(
              () -> {
                while (!socket.isClosed()) {
                  try {
                    Socket client = socket.accept();
                    connections.incrementAndGet();
                    open.add(client);
                    Thread.ofVirtual().start(() -> serve(client, script, closeAfterEach));
                  } catch (IOException e) {
                    return;
                  }
                }
              });
    }

    URI url() {
      return URI.create("http://localhost:" + socket.getLocalPort() + "/hook?x=1");
    }

    private void serve(Socket client, IntFunction<String> script, boolean closeAfterEach) {
      try (client) {
        InputStream in = client.getInputStream();
        OutputStream out = client.getOutputStream();
        while (true) {
          String head = readHead(in);
          if (head == null) {
            return;
          }
          int length = 0;
          for (String line : head.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
              length = Integer.parseInt(line.substring(15).strip());
            }
          }
          requests.add(head + new String(in.readNBytes(length), StandardCharsets.UTF_8));
          String response = script.apply(requests.size());
          if (response == null) {
            in.read(); // hold the connection open without answering
            return;
          }
          out.write(response.getBytes(StandardCharsets.ISO_8859_1));
          out.flush();
          if (closeAfterEach) {
            return;
          }
        }
      } catch (IOException e) {
        // client went away
      }
    }

    private static String readHead(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int matched = 0;
      int b;
      while ((b = in.read()) >= 0) {
        head.write(b);
        matched = (b == '\r' || b == '\n') ? matched + 1 : 0;
        if (matched == 4) {
          return head.toString(StandardCharsets.ISO_8859_1);
        }
      }
      return null;
    }

    @Override
    public void close() throws IOException {
      socket.close();
      for (Socket s : open) {
        s.close();
      }
    }
  }
}

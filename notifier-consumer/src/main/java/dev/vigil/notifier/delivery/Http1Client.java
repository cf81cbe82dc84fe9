package dev.vigil.notifier.delivery;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * A small blocking HTTP/1.1 client for webhook POSTs, meant to run on virtual threads: pooled
 * keep-alive connections per origin, connect and response timeouts, TLS with hostname verification,
 * no redirects (a 3xx is returned like any status), response bodies discarded.
 *
 * <p>Chosen over {@code java.net.http.HttpClient} because delivery throughput is bound by client
 * CPU: a blocking exchange on a virtual thread costs a fraction of the asynchronous machinery.
 *
 * <p>A request that fails on a reused keep-alive connection before any response byte arrived is
 * sent once more on a new connection (the peer may have closed the idle connection); this is safe
 * because every request carries an {@code Idempotency-Key} and receivers de-duplicate.
 */
final class Http1Client implements AutoCloseable {
  /** Status and the one response header the notifier acts on. */
  record Response(int status, String retryAfter) {}

  private static final long MAX_IDLE_NANOS = Duration.ofSeconds(2).toNanos();
  private static final int MAX_LINE = 8192;
  private static final int MAX_HEADERS = 100;
  private static final long MAX_DISCARD = 1024 * 1024;

  private final int connectTimeoutMillis;
  private final long readTimeoutNanos;
  private final Map<String, Deque<Connection>> idle = new ConcurrentHashMap<>();
  private volatile boolean closed;

  Http1Client(Duration connectTimeout, Duration readTimeout) {
    this.connectTimeoutMillis = (int) Math.max(1, connectTimeout.toMillis());
    this.readTimeoutNanos = readTimeout.toNanos();
  }

  /**
   * Sends one POST and reads the status.
   *
   * @param headers name/value pairs; Host, Content-Length and Connection are added here
   * @throws SocketTimeoutException when no complete response arrived within the read timeout
   * @throws IOException when connecting, sending or reading failed
   */
  Response post(URI url, List<Map.Entry<String, String>> headers, byte[] body) throws IOException {
    byte[] head = requestHead(url, headers, body.length);
    String origin = origin(url);
    Connection reused = takeIdle(origin);
    if (reused != null) {
      try {
        return exchange(origin, reused, head, body);
      } catch (StaleConnectionException e) {
        // the peer closed the idle connection before answering: once more on a fresh one
      }
    }
    Connection fresh = open(url);
    try {
      return exchange(origin, fresh, head, body);
    } catch (StaleConnectionException e) {
      throw new EOFException("connection closed before a response arrived");
    }
  }

  private Response exchange(String origin, Connection connection, byte[] head, byte[] body)
      throws IOException {
    long deadline = System.nanoTime() + readTimeoutNanos;
    try {
      try {
        connection.out.write(head);
        connection.out.write(body);
        connection.out.flush();
      } catch (IOException e) {
        // nothing was answered yet; on a reused connection this is the peer's idle close
        StaleConnectionException stale = new StaleConnectionException();
        stale.initCause(e);
        throw stale;
      }
      ResponseReader reader = new ResponseReader(connection, deadline, readTimeoutNanos);
      Response response = reader.read();
      if (reader.keepAlive() && !closed) {
        connection.lastUsed = System.nanoTime();
        idle.computeIfAbsent(origin, o -> new ConcurrentLinkedDeque<>()).push(connection);
      } else {
        connection.close();
      }
      return response;
    } catch (IOException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  private Connection takeIdle(String origin) {
    Deque<Connection> pool = idle.get(origin);
    if (pool == null) {
      return null;
    }
    Connection connection;
    while ((connection = pool.poll()) != null) {
      if (System.nanoTime() - connection.lastUsed < MAX_IDLE_NANOS
          && !connection.socket.isClosed()) {
        return connection;
      }
      connection.close();
    }
    return null;
  }

  private Connection open(URI url) throws IOException {
    boolean tls = "https".equalsIgnoreCase(url.getScheme());
    int port = url.getPort() > 0 ? url.getPort() : tls ? 443 : 80;
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress(url.getHost(), port), connectTimeoutMillis);
      if (tls) {
        SSLSocket ssl =
            (SSLSocket)
                ((SSLSocketFactory) SSLSocketFactory.getDefault())
                    .createSocket(socket, url.getHost(), port, true);
        SSLParameters parameters = ssl.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        ssl.setSSLParameters(parameters);
        ssl.setSoTimeout(connectTimeoutMillis);
        ssl.startHandshake();
        socket = ssl;
      }
      return new Connection(socket);
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  private static byte[] requestHead(URI url, List<Map.Entry<String, String>> headers, int length) {
    String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
    if (url.getRawQuery() != null) {
      path = path + "?" + url.getRawQuery();
    }
    StringBuilder head = new StringBuilder(512);
    head.append("POST ").append(path).append(" HTTP/1.1\r\n");
    head.append("Host: ").append(url.getHost());
    if (url.getPort() > 0) {
      head.append(':').append(url.getPort());
    }
    head.append("\r\nContent-Length: ").append(length).append("\r\n");
    for (Map.Entry<String, String> header : headers) {
      String value = header.getValue();
      if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
        throw new IllegalArgumentException("header " + header.getKey() + " contains a line break");
      }
      head.append(header.getKey()).append(": ").append(value).append("\r\n");
    }
    head.append("\r\n");
    return head.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String origin(URI url) {
    return url.getScheme().toLowerCase(Locale.ROOT) + "://" + url.getHost() + ":" + url.getPort();
  }

  @Override
  public void close() {
    closed = true;
    idle.values().forEach(pool -> pool.forEach(Connection::close));
    idle.clear();
  }

  /** Thrown when the connection ended before the first response byte. */
  static final class StaleConnectionException extends EOFException {
    private static final long serialVersionUID = 1L;
  }

  static final class Connection {
    final Socket socket;
    final InputStream in;
    final OutputStream out;
    volatile long lastUsed = System.nanoTime();

    Connection(Socket socket) throws IOException {
      this.socket = socket;
      this.in = new BufferedInputStream(socket.getInputStream(), 8192);
      this.out = new BufferedOutputStream(socket.getOutputStream(), 8192);
    }

    void close() {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing a failed or idle connection; nothing is lost
      }
    }
  }

  /** Reads one response: status line, headers, and the body (discarded). */
  private static final class ResponseReader {
    private final Connection connection;
    private final long deadline;
    private final long readTimeoutNanos;
    private boolean keepAlive = true;
    private boolean anyByte;

    ResponseReader(Connection connection, long deadline, long readTimeoutNanos) {
      this.connection = connection;
      this.deadline = deadline;
      this.readTimeoutNanos = readTimeoutNanos;
    }

    boolean keepAlive() {
      return keepAlive;
    }

    Response read() throws IOException {
      while (true) {
        String statusLine = line();
        if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
          throw new IOException("not an HTTP/1.x status line");
        }
        if (statusLine.startsWith("HTTP/1.0")) {
          keepAlive = false;
        }
        int status;
        try {
          status = Integer.parseInt(statusLine.substring(9, 12));
        } catch (NumberFormatException e) {
          throw new IOException("bad status line");
        }
        long contentLength = -1;
        boolean chunked = false;
        String retryAfter = null;
        for (int i = 0; ; i++) {
          if (i > MAX_HEADERS) {
            throw new IOException("too many response headers");
          }
          String header = line();
          if (header.isEmpty()) {
            break;
          }
          int colon = header.indexOf(':');
          if (colon <= 0) {
            continue;
          }
          String name = header.substring(0, colon).strip().toLowerCase(Locale.ROOT);
          String value = header.substring(colon + 1).strip();
          switch (name) {
            case "content-length" -> contentLength = parseLength(value);
            case "transfer-encoding" ->
                chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
            case "connection" -> {
              if (value.toLowerCase(Locale.ROOT).contains("close")) {
                keepAlive = false;
              }
            }
            case "retry-after" -> retryAfter = value;
            default -> {}
          }
        }
        if (status >= 100 && status < 200) {
          continue; // interim response; the final one follows
        }
        if (status == 204 || status == 304) {
          return new Response(status, retryAfter);
        }
        if (chunked) {
          discardChunked();
        } else if (contentLength >= 0) {
          discard(contentLength);
        } else {
          keepAlive = false; // body runs to the end of the connection; not worth reading
        }
        return new Response(status, retryAfter);
      }
    }

    private void discardChunked() throws IOException {
      long total = 0;
      while (true) {
        String sizeLine = line();
        int semicolon = sizeLine.indexOf(';');
        long size;
        try {
          size =
              Long.parseLong(
                  (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).strip(), 16);
        } catch (NumberFormatException e) {
          throw new IOException("bad chunk size");
        }
        if (size == 0) {
          while (!line().isEmpty()) {
            // trailers
          }
          return;
        }
        total += size;
        if (total > MAX_DISCARD) {
          keepAlive = false;
          return;
        }
        discard(size);
        line();
      }
    }

    private void discard(long length) throws IOException {
      if (length > MAX_DISCARD) {
        keepAlive = false;
        return;
      }
      long left = length;
      while (left > 0) {
        arm();
        long skipped = connection.in.skip(left);
        if (skipped <= 0) {
          if (connection.in.read() < 0) {
            throw new EOFException("response body ended early");
          }
          skipped = 1;
        }
        left -= skipped;
      }
    }

    private String line() throws IOException {
      StringBuilder line = new StringBuilder(64);
      arm();
      while (true) {
        int b = connection.in.read();
        if (b < 0) {
          if (!anyByte) {
            throw new StaleConnectionException();
          }
          throw new EOFException("connection closed mid-response");
        }
        anyByte = true;
        if (b == '\n') {
          int end = line.length();
          if (end > 0 && line.charAt(end - 1) == '\r') {
            line.setLength(end - 1);
          }
          return line.toString();
        }
        if (line.length() >= MAX_LINE) {
          throw new IOException("response line too long");
        }
        line.append((char) b);
      }
    }

    /** Sets the socket timeout to what is left of the response deadline. */
    private void arm() throws IOException {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new SocketTimeoutException(
            "no complete response within " + Duration.ofNanos(readTimeoutNanos).toMillis() + " ms");
      }
      connection.socket.setSoTimeout((int) Math.max(1, left / 1_000_000));
    }

    private static long parseLength(String value) throws IOException {
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new IOException("bad Content-Length");
      }
    }
  }
}

package dev.vigil.harness.failover;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback TCP address that forwards to a target port which can be moved: what a virtual IP, a
 * DNS name or a proxy in front of a PostgreSQL cluster (Patroni with HAProxy, a cloud's writer
 * endpoint) gives clients. {@link #retarget(int)} moves it and breaks the connections open to the
 * old target, as a failover does; new connections reach the new target.
 */
public final class TcpForwarder implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TcpForwarder.class);

  private final ServerSocket server;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile int target;

  private TcpForwarder(ServerSocket server, int target) {
    this.server = server;
    this.target = target;
    this.acceptor = Thread.ofVirtual().name("tcp-forwarder-accept").unstarted(this::acceptLoop);
  }

  /** Listens on a free loopback port and forwards every connection to {@code targetPort}. */
  public static TcpForwarder start(int targetPort) {
    return start(InetAddress.getLoopbackAddress(), 0, targetPort);
  }

  /**
   * Listens on {@code address}:{@code port} (0: a free one) and forwards every connection to the
   * loopback {@code targetPort}. Several forwarders on one port at different loopback addresses
   * (127.0.0.2, 127.0.0.3, …) let processes that resolve one host name differently reach the same
   * target through paths that can be cut one by one ({@link #retarget} to a closed port).
   */
  public static TcpForwarder start(InetAddress address, int port, int targetPort) {
    try {
      ServerSocket server = new ServerSocket();
      server.bind(new InetSocketAddress(address, port));
      TcpForwarder forwarder = new TcpForwarder(server, targetPort);
      forwarder.acceptor.start();
      LOG.info(
          "tcp forwarder started address={} port={} target={}",
          address.getHostAddress(),
          server.getLocalPort(),
          targetPort);
      return forwarder;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a forwarding port", e);
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Moves the address to {@code targetPort} and breaks every connection open through it. */
  public void retarget(int targetPort) {
    int previous = target;
    target = targetPort;
    int broken = closeOpen();
    LOG.info(
        "tcp forwarder moved port={} from={} to={} broken={}", port(), previous, target, broken);
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Thread.ofVirtual().name("tcp-forwarder-connect").start(() -> connect(client));
      } catch (IOException e) {
        if (!server.isClosed()) {
          LOG.warn("tcp forwarder accept failed port={} error={}", port(), e.toString());
        }
      }
    }
  }

  private void connect(Socket client) {
    open.add(client);
    Socket upstream = new Socket();
    open.add(upstream);
    try {
      upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 5_000);
    } catch (IOException e) {
      // The target is down: the client sees a closed connection, as with a dead host behind a VIP.
      closeBoth(client, upstream);
      return;
    }
    Thread.ofVirtual().name("tcp-forwarder-up").start(() -> pump(client, upstream));
    pump(upstream, client);
  }

  private void pump(Socket from, Socket to) {
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      byte[] buffer = new byte[16 * 1024];
      for (int n; (n = in.read(buffer)) >= 0; ) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // One side closed or broke: the pair ends, as it would through a real proxy.
    } finally {
      closeBoth(from, to);
    }
  }

  private void closeBoth(Socket a, Socket b) {
    for (Socket socket : new Socket[] {a, b}) {
      open.remove(socket);
      try {
        socket.close();
      } catch (IOException ignored) {
        // Closing a broken socket: nothing left to release.
      }
    }
  }

  private int closeOpen() {
    int count = 0;
    for (Socket socket : open) {
      open.remove(socket);
      try {
        socket.close();
        count++;
      } catch (IOException ignored) {
        // Already broken: that is what retarget wants.
      }
    }
    return count / 2;
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      LOG.warn("tcp forwarder close failed port={} error={}", port(), e.toString());
    }
    closeOpen();
  }
}

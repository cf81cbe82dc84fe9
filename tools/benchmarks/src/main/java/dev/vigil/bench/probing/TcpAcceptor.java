package dev.vigil.bench.probing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** The probed TCP services: one local port that accepts every connection and closes it. */
final class TcpAcceptor implements AutoCloseable {
  private final ServerSocket listener;
  private final Thread acceptor;

  TcpAcceptor() {
    try {
      listener = new ServerSocket(0, 4096, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the tcp target port", e);
    }
    acceptor = Thread.ofPlatform().name("bench-tcp-acceptor").daemon().start(this::accept);
  }

  private void accept() {
    while (!listener.isClosed()) {
      // An orderly close (FIN), as a real service would: a reset sent at once can reach the
      // prober before its connect has finished and fail it (measured: "failed (SocketException)").
      try (Socket socket = listener.accept()) {
        socket.shutdownOutput();
      } catch (IOException e) {
        // closed at the end of the run, or the prober went away first
      }
    }
  }

  String url() {
    return "tcp://127.0.0.1:" + listener.getLocalPort();
  }

  @Override
  public void close() {
    try {
      listener.close();
      acceptor.join(5_000);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close the tcp target port", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

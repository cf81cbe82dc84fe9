package dev.vigil.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * A loopback port that was free a moment ago, for a server that must be told its port before it
 * starts (a broker's listeners, a child process). Another process may take it in between; callers
 * that can bind port 0 themselves should.
 */
public final class FreePorts {
  private FreePorts() {}

  public static int pick() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port", e);
    }
  }
}

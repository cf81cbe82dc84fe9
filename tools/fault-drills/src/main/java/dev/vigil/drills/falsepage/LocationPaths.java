package dev.vigil.drills.falsepage;

import dev.vigil.harness.failover.TcpForwarder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Each location's network path to the targets: a TCP forwarder of its own on one port at a loopback
 * address of its own (127.0.0.2, .3, …), to which that location's monitor resolves the targets'
 * host name. Cutting a location moves its forwarder to a closed port (connections are refused and
 * the open ones broken); healing moves it back.
 */
final class LocationPaths implements AutoCloseable {
  /** The host name of every target; each location's monitor resolves it differently. */
  static final String HOST = "false-page-target.test";

  private final Map<String, TcpForwarder> paths = new LinkedHashMap<>();
  private final Map<String, String> addresses = new LinkedHashMap<>();
  private final int targetPort;
  private final int closedPort;

  private LocationPaths(int targetPort, int closedPort) {
    this.targetPort = targetPort;
    this.closedPort = closedPort;
  }

  static LocationPaths start(List<String> locations, int targetPort) {
    LocationPaths result = new LocationPaths(targetPort, closedPort());
    int port = 0;
    try {
      for (int i = 0; i < locations.size(); i++) {
        String address = "127.0.0." + (i + 2);
        TcpForwarder path = TcpForwarder.start(InetAddress.getByName(address), port, targetPort);
        port = path.port();
        result.paths.put(locations.get(i), path);
        result.addresses.put(locations.get(i), address);
      }
    } catch (UnknownHostException | RuntimeException e) {
      result.close();
      throw new IllegalStateException("cannot open the locations' paths", e);
    }
    return result;
  }

  /** The port every location's forwarder listens on (at its own address). */
  int port() {
    return paths.values().iterator().next().port();
  }

  /** The loopback address {@code location}'s monitor must resolve {@link #HOST} to. */
  String address(String location) {
    return addresses.get(location);
  }

  void cut(String location) {
    paths.get(location).retarget(closedPort);
  }

  void heal(String location) {
    paths.get(location).retarget(targetPort);
  }

  void healAll() {
    paths.keySet().forEach(this::heal);
  }

  private static int closedPort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a closed port", e);
    }
  }

  @Override
  public void close() {
    paths.values().forEach(TcpForwarder::close);
  }
}

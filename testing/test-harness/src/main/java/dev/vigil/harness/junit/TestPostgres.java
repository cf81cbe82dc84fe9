package dev.vigil.harness.junit;

/**
 * The shared PostgreSQL server as a test sees it: a factory of fresh databases that can also be
 * restarted.
 */
public interface TestPostgres {
  /** A new, empty database with a unique name. */
  TestDatabase newDatabase();

  /** Stops the server: every connection breaks, committed data is kept. */
  void stop();

  /** Starts the server again on the same port with the same data. */
  void start();

  String host();

  int port();
}

package dev.vigil.bench.dbzserver;

import dev.vigil.bench.Infra;
import dev.vigil.bench.relay.VigilRelay;
import dev.vigil.harness.EmbeddedPostgresServer;
import dev.vigil.relay.RelayService;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A relay under test, on its own slot and topic: Vigil's relay in this JVM, or a Debezium Server
 * process.
 */
interface Contender {
  /** What the report calls it: "vigil", "ds default", "ds poll 10ms". */
  String name();

  String topic();

  String slot();

  /** Starts it; for Vigil's relay that returns once it streams, a server is only launched. */
  Running start();

  /** A started relay. */
  interface Running extends AutoCloseable {
    /** The OS process to sample, or -1 for a relay inside this JVM. */
    long pid();

    /** Waits until it reports ready and returns the seconds since its start. */
    double awaitReady(Duration timeout);

    @Override
    void close();
  }

  /** Vigil's relay with its default settings (see {@link VigilRelay}). */
  static Contender vigil(Infra infra, String database) {
    String topic = "bench.dbz.vigil";
    String slot = VigilRelay.settings(infra, database, topic).get("VIGIL_RELAY_SLOT");
    return new Contender() {
      @Override
      public String name() {
        return "vigil";
      }

      @Override
      public String topic() {
        return topic;
      }

      @Override
      public String slot() {
        return slot;
      }

      @Override
      public Running start() {
        long started = System.nanoTime();
        RelayService relay = VigilRelay.start(infra, database, topic);
        double streaming = (System.nanoTime() - started) / 1e9;
        return new Running() {
          @Override
          public long pid() {
            return -1;
          }

          @Override
          public double awaitReady(Duration timeout) {
            return streaming;
          }

          @Override
          public void close() {
            relay.close();
          }
        };
      }
    };
  }

  /**
   * Debezium Server from {@code distDir} with {@code config}; its files go under {@code runDir}.
   */
  static Contender server(
      ServerConfig config, Path distDir, Path runDir, Infra infra, String database) {
    String topic = "bench.dbz." + config.slot();
    return new Contender() {
      @Override
      public String name() {
        return config.name();
      }

      @Override
      public String topic() {
        return topic;
      }

      @Override
      public String slot() {
        return config.slot();
      }

      @Override
      public Running start() {
        int port = ServerProcess.freePort();
        ServerProcess server =
            ServerProcess.start(
                config.name(),
                distDir,
                runDir,
                config.properties(
                    infra.jdbcUrl(database),
                    EmbeddedPostgresServer.USER,
                    infra.bootstrapServers(),
                    Slots.PUBLICATION,
                    topic,
                    runDir.resolve("offsets.dat").toAbsolutePath(),
                    port),
                port);
        return new Running() {
          @Override
          public long pid() {
            return server.pid();
          }

          @Override
          public double awaitReady(Duration timeout) {
            return server.awaitReady(timeout);
          }

          @Override
          public void close() {
            server.close();
          }
        };
      }
    };
  }
}

package dev.vigil.bench.dbzserver;

import dev.vigil.bench.Infra;
import dev.vigil.bench.relay.VigilRelay;
import dev.vigil.harness.EmbeddedPostgresServer;
import dev.vigil.harness.FreePorts;
import dev.vigil.relay.RelayService;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A relay under test, on its own slot and topic: Vigil's relay in this JVM or as its own process,
 * or a Debezium Server process.
 */
interface Contender {
  /** What the report calls it: "vigil", "vigil process", "ds default", "ds poll 10ms". */
  String name();

  String topic();

  String slot();

  /** Starts it; Vigil's relay in this JVM returns once it streams, a process is only launched. */
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

  /** Vigil's relay with its default settings in this JVM (see {@link VigilRelay}). */
  static Contender vigil(Infra infra, String database) {
    String topic = "bench.dbz.vigil";
    String slot = VigilRelay.settings(infra, database, topic).get("VIGIL_RELAY_SLOT");
    return named("vigil", topic, slot, () -> inThisJvm(VigilRelay.start(infra, database, topic)));
  }

  /**
   * Vigil's relay with its default settings as its own JVM ({@code RelayMain} from the benchmark's
   * {@code target/lib}) on a slot of its own: restarted cold like any process, as Debezium Server
   * is.
   */
  static Contender vigilProcess(Infra infra, String database, Path libDir, Path runDir) {
    String topic = "bench.dbz.vigil_process";
    String slot = "bench_dbz_vigil_process";
    Map<String, String> env = new HashMap<>(VigilRelay.settings(infra, database, topic));
    env.put("VIGIL_RELAY_SLOT", slot);
    env.put("VIGIL_INSTANCE_ID", slot);
    String classpath = libDir.toAbsolutePath() + "/*";
    return named(
        "vigil process",
        topic,
        slot,
        () -> ServerProcess.vigilRelay("vigil process", classpath, runDir, env, FreePorts.pick()));
  }

  /**
   * Debezium Server from {@code distDir} with {@code config}; its files go under {@code runDir}.
   */
  static Contender server(
      ServerConfig config, Path distDir, Path runDir, Infra infra, String database) {
    String topic = "bench.dbz." + config.slot();
    return named(
        config.name(),
        topic,
        config.slot(),
        () -> {
          int port = FreePorts.pick();
          return ServerProcess.debeziumServer(
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
        });
  }

  private static Running inThisJvm(RelayService relay) {
    return new Running() {
      @Override
      public long pid() {
        return -1;
      }

      @Override
      public double awaitReady(Duration timeout) {
        return 0; // VigilRelay.start returned once it streams
      }

      @Override
      public void close() {
        relay.close();
      }
    };
  }

  private static Contender named(
      String name, String topic, String slot, Supplier<Running> starter) {
    return new Contender() {
      @Override
      public String name() {
        return name;
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
        return starter.get();
      }
    };
  }
}

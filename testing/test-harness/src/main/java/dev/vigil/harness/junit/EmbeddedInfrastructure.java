package dev.vigil.harness.junit;

import dev.vigil.harness.EmbeddedKafkaBroker;
import dev.vigil.harness.EmbeddedPostgresServer;
import java.nio.file.Path;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * PostgreSQL from the embedded binaries and a KRaft broker in this JVM, both under the build
 * directory.
 */
final class EmbeddedInfrastructure implements Infrastructure {
  private final Path baseDir;
  private final Supplier<EmbeddedPostgresServer> postgresFactory;
  private final Supplier<EmbeddedKafkaBroker> kafkaFactory;
  private EmbeddedPostgresServer postgresServer;
  private EmbeddedKafkaBroker kafkaBroker;

  EmbeddedInfrastructure(Path harnessDir) {
    // A fresh directory per test JVM: no state leaks between runs, nothing lands outside target/.
    this.baseDir = harnessDir.resolve("run-" + UUID.randomUUID().toString().substring(0, 8));
    this.postgresFactory =
        () -> EmbeddedPostgresServer.start(baseDir.resolve("postgres"), 0, false);
    this.kafkaFactory = () -> EmbeddedKafkaBroker.start(baseDir.resolve("kafka"), 0);
  }

  @Override
  public synchronized TestPostgres postgres() {
    if (postgresServer == null) {
      postgresServer = postgresFactory.get();
    }
    EmbeddedPostgresServer server = postgresServer;
    return new TestPostgres() {
      @Override
      public TestDatabase newDatabase() {
        String name = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        server.createDatabase(name);
        return new TestDatabase(
            server.host(), server.port(), name, EmbeddedPostgresServer.USER, "");
      }

      @Override
      public void stop() {
        server.stop();
      }

      @Override
      public void start() {
        server.start();
      }

      @Override
      public String host() {
        return server.host();
      }

      @Override
      public int port() {
        return server.port();
      }
    };
  }

  @Override
  public synchronized TestKafka kafka() {
    if (kafkaBroker == null) {
      kafkaBroker = kafkaFactory.get();
    }
    EmbeddedKafkaBroker broker = kafkaBroker;
    return new TestKafka() {
      @Override
      public String bootstrapServers() {
        return broker.bootstrapServers();
      }

      @Override
      public void stop() {
        broker.stop();
      }

      @Override
      public void start() {
        broker.start();
      }
    };
  }

  @Override
  public synchronized void close() {
    RuntimeException first = null;
    for (AutoCloseable resource : new AutoCloseable[] {kafkaBroker, postgresServer}) {
      if (resource == null) {
        continue;
      }
      try {
        resource.close();
      } catch (Exception e) {
        if (first == null) {
          first = new IllegalStateException("cannot stop test infrastructure", e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}

package dev.vigil.bench.dbzserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerDistTest {
  @TempDir Path target;

  @Test
  void aMissingOrPartlyUnpackedDistributionIsNotFound() throws Exception {
    assertThat(ServerDist.find(target)).isNull();
    Path dist = Files.createDirectories(target.resolve("debezium-server/debezium-server"));
    Files.writeString(dist.resolve("run.sh"), "#!/bin/bash\n");
    assertThat(ServerDist.find(target)).isNull(); // no lib/, no runner jar
    Files.createDirectories(dist.resolve("lib"));
    assertThat(ServerDist.find(target)).isNull(); // no runner jar
  }

  @Test
  void findsTheUnpackedDistributionAndItsVersion() throws Exception {
    Path dist = Files.createDirectories(target.resolve("debezium-server/debezium-server"));
    Files.writeString(dist.resolve("run.sh"), "#!/bin/bash\n");
    Files.createDirectories(dist.resolve("lib"));
    Files.writeString(dist.resolve("debezium-server-dist-3.6.1.Final-runner.jar"), "");

    assertThat(ServerDist.find(target)).isEqualTo(dist.toAbsolutePath());
    assertThat(ServerDist.version(dist)).isEqualTo("3.6.1.Final");
  }
}

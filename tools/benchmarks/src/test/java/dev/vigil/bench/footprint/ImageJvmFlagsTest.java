package dev.vigil.bench.footprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ImageJvmFlagsTest {
  private static final Path DOCKERFILE = Path.of("../../Dockerfile");

  @Test
  void theImagesSetTheirJvmFlagsInOneEnvLineThatTheSuiteReads() throws Exception {
    assertThat(ImageJvmFlags.read(DOCKERFILE)).isNotEmpty().allMatch(f -> f.startsWith("-"));
    // and the entrypoint adds none of its own, so what the suite runs is what the images run
    assertThat(Files.readString(DOCKERFILE))
        .contains("ENTRYPOINT [\"java\", \"-jar\", \"/app/app.jar\"]");
  }

  @Test
  void aDockerfileWithoutTheLineOrWithTwoIsRefused() {
    assertThatThrownBy(() -> ImageJvmFlags.parse("FROM x\nENTRYPOINT [\"java\"]\n", "test"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no ENV JAVA_TOOL_OPTIONS");
    assertThatThrownBy(
            () ->
                ImageJvmFlags.parse(
                    "ENV JAVA_TOOL_OPTIONS=\"-Xss512k\"\nENV JAVA_TOOL_OPTIONS=\"-Xmx1g\"\n",
                    "test"))
        .hasMessageContaining("more than one");
  }

  @Test
  void theArchivePathOfTheImageIsReplacedByTheServicesOwnFile() {
    var image =
        ImageJvmFlags.parse(
            "ENV JAVA_TOOL_OPTIONS=\"-XX:+UseSerialGC -XX:SharedArchiveFile=/app/cds/app.jsa"
                + " -XX:+AutoCreateSharedArchive\"\n",
            "test");
    var local = ImageJvmFlags.withArchive(image, Path.of("/tmp/fp/monitor.jsa"));

    assertThat(ImageJvmFlags.usesArchive(image)).isTrue();
    assertThat(local)
        .containsExactly(
            "-XX:+UseSerialGC",
            "-XX:SharedArchiveFile=/tmp/fp/monitor.jsa",
            "-XX:+AutoCreateSharedArchive");
    var none = ImageJvmFlags.parse("ENV JAVA_TOOL_OPTIONS=\"-XX:+UseSerialGC\"\n", "test");
    assertThat(ImageJvmFlags.usesArchive(none)).isFalse();
    assertThat(ImageJvmFlags.withArchive(none, Path.of("/x.jsa"))).isEqualTo(none);
  }

  @Test
  void somethingThatIsNotAFlagIsRefused() {
    assertThatThrownBy(
            () -> ImageJvmFlags.parse("ENV JAVA_TOOL_OPTIONS=\"-Xss512k rm -rf\"\n", "test"))
        .hasMessageContaining("not a JVM flag: 'rm'");
  }

  @Test
  void anExperimentsEnvironmentIsReadAsNameValuePairsAndAnythingElseIsRefused() {
    String old = System.getProperty(ImageJvmFlags.ENV_OVERRIDE);
    try {
      System.clearProperty(ImageJvmFlags.ENV_OVERRIDE);
      assertThat(ImageJvmFlags.extraEnvironment()).isEmpty();
      System.setProperty(ImageJvmFlags.ENV_OVERRIDE, " MALLOC_ARENA_MAX=2  A=b=c ");
      assertThat(ImageJvmFlags.extraEnvironment())
          .containsExactly(Map.entry("A", "b=c"), Map.entry("MALLOC_ARENA_MAX", "2"));
      System.setProperty(ImageJvmFlags.ENV_OVERRIDE, "MALLOC_ARENA_MAX");
      assertThatThrownBy(ImageJvmFlags::extraEnvironment)
          .hasMessageContaining("not NAME=value: 'MALLOC_ARENA_MAX'");
    } finally {
      if (old == null) {
        System.clearProperty(ImageJvmFlags.ENV_OVERRIDE);
      } else {
        System.setProperty(ImageJvmFlags.ENV_OVERRIDE, old);
      }
    }
  }
}

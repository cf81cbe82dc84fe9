package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.core.dockerfile.Dockerfile;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image build context is the repository minus {@code .dockerignore}: every file the module
 * build inside the image needs must stay in it. {@code **}{@code /target/} once removed the
 * monitor's source package of that name, and the monitor image could not compile; nothing said so
 * until a real engine built it. The context is computed with docker-java's reading of Docker's
 * ignore rules, the one its clients send to a Docker engine.
 */
class ImageBuildContextTest {
  private static final Path REPO_ROOT = Path.of("../..");

  @Test
  void everyFileTheImageBuildNeedsIsInTheBuildContext() throws IOException {
    assertThat(missingFromContext(REPO_ROOT))
        .as("files the image build needs that .dockerignore leaves out of the build context")
        .isEmpty();
  }

  @Test
  void aSourcePackageNamedLikeTheBuildFolderWouldBeMissed(@TempDir Path repo) throws IOException {
    Files.writeString(repo.resolve("Dockerfile"), "FROM scratch\nCOPY . .\n");
    Files.writeString(
        repo.resolve("pom.xml"), "<project><modules><module>app</module></modules></project>");
    Files.createDirectories(repo.resolve("app/src/main/java/x/target"));
    Files.writeString(repo.resolve("app/pom.xml"), "<project/>");
    Files.writeString(repo.resolve("app/src/main/java/x/target/Kept.java"), "class Kept {}");
    Files.createDirectories(repo.resolve("app/target/classes"));
    Files.writeString(repo.resolve("app/target/classes/Built.class"), "output");

    Files.writeString(repo.resolve(".dockerignore"), "**/target/\n");
    assertThat(missingFromContext(repo)).containsExactly("app/src/main/java/x/target/Kept.java");

    Files.writeString(repo.resolve(".dockerignore"), "target\n*/target\n");
    assertThat(missingFromContext(repo)).isEmpty();
    assertThat(context(repo)).doesNotContain("app/target/classes/Built.class");
  }

  @Test
  void buildOutputAndLocalDataStayOutOfTheContext() throws IOException {
    Set<String> context = context(REPO_ROOT);
    assertThat(context).noneMatch(path -> path.startsWith(".git/") || path.startsWith(".vigil/"));
    assertThat(context).noneMatch(ImageBuildContextTest::isBuildOutput);
  }

  @Test
  void everyComposeBuildTargetIsAStageOfItsDockerfile() throws IOException {
    Set<String> stages = new TreeSet<>();
    Matcher from =
        Pattern.compile("(?im)^FROM\\s+\\S+\\s+AS\\s+(\\S+)\\s*$")
            .matcher(Files.readString(REPO_ROOT.resolve("Dockerfile")));
    while (from.find()) {
      stages.add(from.group(1));
    }
    Map<String, Map<String, Object>> services = ComposeFileTest.composeServices();
    services.forEach(
        (name, service) -> {
          if (service.get("build") instanceof Map<?, ?> build && build.get("dockerfile") == null) {
            assertThat(stages)
                .as("build target of compose service %s", name)
                .contains((String) build.get("target"));
          }
        });
  }

  @Test
  void theDockerfileCopiesThePomOfEveryModuleBeforeResolvingDependencies() throws IOException {
    String dockerfile = Files.readString(REPO_ROOT.resolve("Dockerfile"));
    Set<String> copied = new TreeSet<>();
    Matcher copy = Pattern.compile("(?m)^COPY (\\S+)/pom\\.xml \\1/$").matcher(dockerfile);
    while (copy.find()) {
      copied.add(copy.group(1));
    }
    assertThat(copied)
        .as("modules whose pom the Dockerfile copies for the dependency layer")
        .containsExactlyInAnyOrderElementsOf(modules(REPO_ROOT));

    Matcher imageModules = Pattern.compile("VIGIL_IMAGE_MODULES=\"([^\"]+)\"").matcher(dockerfile);
    assertThat(imageModules.find()).as("VIGIL_IMAGE_MODULES in the Dockerfile").isTrue();
    for (String module : imageModules.group(1).split(",")) {
      String name = Path.of(module).getFileName().toString();
      assertThat(dockerfile)
          .as("runtime stage of %s", module)
          .contains("FROM runtime AS " + name + "\nCOPY --from=build /out/" + name + "/ /app/");
    }
  }

  /** The files under {@code root} the image build reads that the build context lacks. */
  private static Set<String> missingFromContext(Path root) throws IOException {
    Set<String> needed = needed(root);
    needed.removeAll(context(root));
    return needed;
  }

  /**
   * What the module build in the image reads: the wrapper and its JDK finder, the root pom, and
   * every module's pom, main sources and resources (the modules the root pom lists). Build output
   * folders (a module's own {@code target/}) are not walked.
   */
  private static Set<String> needed(Path root) throws IOException {
    List<String> modules = modules(root);
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(Files::isRegularFile)
          .map(file -> relative(root, file))
          .filter(path -> !path.startsWith(".git/") && !isBuildOutput(path))
          .filter(
              path ->
                  path.equals("mvnw")
                      || path.startsWith(".mvn/")
                      || path.startsWith("bin/")
                      || path.equals("pom.xml")
                      || modules.stream()
                          .anyMatch(
                              module ->
                                  path.equals(module + "/pom.xml")
                                      || path.startsWith(module + "/src/main/")))
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  /** The modules the root pom lists, as folders. */
  private static List<String> modules(Path root) throws IOException {
    Matcher module =
        Pattern.compile("<module>([^<]+)</module>")
            .matcher(Files.readString(root.resolve("pom.xml")));
    List<String> modules = new ArrayList<>();
    while (module.find()) {
      modules.add(module.group(1).trim());
    }
    return modules;
  }

  /** A file in a {@code target} folder that is not inside a {@code src} folder: Maven's output. */
  private static boolean isBuildOutput(String path) {
    String[] segments = path.split("/");
    for (int i = 0; i < segments.length - 1; i++) {
      if (segments[i].equals("src")) {
        return false;
      }
      if (segments[i].equals("target")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The build context docker-java sends a Docker engine, as the names in its tar: every file not
   * ignored by {@code .dockerignore}.
   */
  private static Set<String> context(Path root) throws IOException {
    File base = root.toFile().getCanonicalFile();
    Set<String> names = new TreeSet<>();
    try (InputStream tar =
            new Dockerfile(new File(base, "Dockerfile"), base).parse().buildDockerFolderTar();
        TarArchiveInputStream entries = new TarArchiveInputStream(new GZIPInputStream(tar))) {
      TarArchiveEntry entry;
      while ((entry = entries.getNextEntry()) != null) {
        if (entry.isFile()) {
          names.add(entry.getName());
        }
      }
    }
    return names;
  }

  private static String relative(Path root, Path file) {
    return root.toAbsolutePath()
        .normalize()
        .relativize(file.toAbsolutePath().normalize())
        .toString()
        .replace(File.separatorChar, '/');
  }
}

package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.vigil.harness.arch.ServiceBoundaries;
import org.junit.jupiter.api.Test;

/** The service's layering, checked on its main classes (see {@link ServiceBoundaries}). */
class ArchitectureTest {
  private static final String ROOT = "dev.vigil.relay";
  private static final JavaClasses MAIN = ServiceBoundaries.mainClasses(ROOT);

  @Test
  void packagesHaveNoCycles() {
    ServiceBoundaries.noPackageCycles(ROOT).check(MAIN);
  }

  @Test
  void httpLayerReachesTheDatabaseOnlyThroughStoresAndQueries() {
    ServiceBoundaries.httpLayerUsesStoresForTheDatabase(ROOT).check(MAIN);
  }

  @Test
  void mainCodeUsesNoHarnessToolOrOtherService() {
    ServiceBoundaries.onlyOwnPackagesAndLibs(ROOT).check(MAIN);
  }

  @Test
  void theBoundaryRuleCatchesAClassThatUsesTheHarness() {
    // Main code cannot even compile against the harness (test scope), so prove the rule on a test
    // class that does use it: the same check must refuse it.
    JavaClasses usesHarness = new ClassFileImporter().importClasses(RelayFixture.class);

    assertThatThrownBy(() -> ServiceBoundaries.onlyOwnPackagesAndLibs(ROOT).check(usesHarness))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("dev.vigil.harness");
  }

  @Test
  void mainClassesAreImported() {
    assertThat(MAIN.contain(RelayService.class)).isTrue();
  }
}

package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.vigil.harness.arch.ServiceArchitectureTest;
import dev.vigil.harness.arch.ServiceBoundaries;
import org.junit.jupiter.api.Test;

/** The service's layering, checked on its main classes (see {@link ServiceArchitectureTest}). */
class ArchitectureTest extends ServiceArchitectureTest {
  ArchitectureTest() {
    super("dev.vigil.relay");
  }

  @Test
  void theBoundaryRuleCatchesAClassThatUsesTheHarness() {
    // Main code cannot even compile against the harness (test scope), so prove the rule on a test
    // class that does use it: the same check must refuse it.
    JavaClasses usesHarness = new ClassFileImporter().importClasses(RelayFixture.class);

    assertThatThrownBy(
            () -> ServiceBoundaries.onlyOwnPackagesAndLibs(rootPackage()).check(usesHarness))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("dev.vigil.harness");
  }

  @Test
  void mainClassesAreImported() {
    assertThat(mainClasses().contain(RelayService.class)).isTrue();
  }
}

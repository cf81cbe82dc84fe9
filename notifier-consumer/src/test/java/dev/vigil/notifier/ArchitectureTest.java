package dev.vigil.notifier;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.vigil.harness.arch.ServiceBoundaries;
import org.junit.jupiter.api.Test;

/** The service's layering, checked on its main classes (see {@link ServiceBoundaries}). */
class ArchitectureTest {
  private static final String ROOT = "dev.vigil.notifier";
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
}

package dev.vigil.harness.arch;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The {@link ServiceBoundaries} checks as tests: a service's {@code ArchitectureTest} extends this
 * with its root package (gruelbox's {@code AbstractAcceptanceTest} + subclass pattern). The main
 * classes are imported once per test class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ServiceArchitectureTest {
  private final String rootPackage;
  private final JavaClasses mainClasses;

  protected ServiceArchitectureTest(String rootPackage) {
    this.rootPackage = rootPackage;
    this.mainClasses = ServiceBoundaries.mainClasses(rootPackage);
  }

  protected final String rootPackage() {
    return rootPackage;
  }

  protected final JavaClasses mainClasses() {
    return mainClasses;
  }

  @Test
  public void packagesHaveNoCycles() {
    ServiceBoundaries.noPackageCycles(rootPackage).check(mainClasses);
  }

  @Test
  public void httpLayerReachesTheDatabaseOnlyThroughStoresAndQueries() {
    ServiceBoundaries.httpLayerUsesStoresForTheDatabase(rootPackage).check(mainClasses);
  }

  @Test
  public void mainCodeUsesNoHarnessToolOrOtherService() {
    ServiceBoundaries.onlyOwnPackagesAndLibs(rootPackage).check(mainClasses);
  }
}

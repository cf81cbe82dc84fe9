package dev.vigil.notifier;

import dev.vigil.harness.arch.ServiceArchitectureTest;

/** The service's layering, checked on its main classes (see {@link ServiceArchitectureTest}). */
class ArchitectureTest extends ServiceArchitectureTest {
  ArchitectureTest() {
    super("dev.vigil.notifier");
  }
}

/**
 * The boundaries every service keeps, as ArchUnit rules that each service's {@code
 * ArchitectureTest} checks against its own main classes.
 */
package dev.vigil.harness.arch;

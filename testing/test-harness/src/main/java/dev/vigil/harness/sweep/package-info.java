/**
 * The hostile-input sweep of the services' documented HTTP routes, shared by the services' sweep
 * tests and the fault drills' bad-input-sweep.
 */
package dev.vigil.harness.sweep;

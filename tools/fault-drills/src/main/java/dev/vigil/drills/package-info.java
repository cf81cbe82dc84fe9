/**
 * Fault drills: the command line, the drill scripts (which fault, when) and the suite that runs
 * them one after another on one stack and writes the results.
 */
package dev.vigil.drills;

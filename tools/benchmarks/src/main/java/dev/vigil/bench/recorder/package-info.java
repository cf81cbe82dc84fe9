/**
 * The monitor's recorder (full state machine, one transaction per result) against plain single-row
 * commits, with 1 and 8 connections and 1 and 10,000 services.
 */
package dev.vigil.bench.recorder;

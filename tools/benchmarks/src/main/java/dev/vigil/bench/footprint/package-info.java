/**
 * Footprint of a process (resident memory, threads, CPU time) sampled from /proc, for the suites
 * that size Vigil's services and the stock baselines they are compared with.
 */
package dev.vigil.bench.footprint;

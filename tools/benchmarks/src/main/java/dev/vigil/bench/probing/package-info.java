/**
 * One monitor instance probing 10,000 HTTP targets every 10 s against a local HTTP server: probes
 * per second, schedule lag, CPU and heap.
 */
package dev.vigil.bench.probing;

/**
 * Footprint of Vigil's services and of the stock baselines they are compared with: resident memory,
 * threads and CPU time sampled from /proc ({@link dev.vigil.bench.footprint.ProcessStats}); each
 * Vigil service run as its own OS process with the JVM flags of its image: RSS, heap after GC, CPU,
 * threads and start-up time, idle and at 1,000 events/s.
 */
package dev.vigil.bench.footprint;

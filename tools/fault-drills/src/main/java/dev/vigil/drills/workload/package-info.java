/**
 * The workload: writer threads that commit outbox rows the way the monitor does, one service per
 * thread, and remember what was committed in which order.
 */
package dev.vigil.drills.workload;

package dev.vigil.contract;

/**
 * The two transitions Vigil announces; stored as the outbox {@code type} column and the {@code
 * kind} header.
 */
public enum AlertKind {
  /** The service crossed its failure threshold and an incident was opened. */
  FAILED,
  /** The service crossed its recovery threshold and the open incident was closed. */
  RECOVERED
}

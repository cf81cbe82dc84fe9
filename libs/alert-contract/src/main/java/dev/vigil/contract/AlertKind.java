package dev.vigil.contract;

/**
 * The transitions Vigil announces; stored as the outbox {@code type} column and the {@code kind}
 * header.
 *
 * <p>Kinds are added within a schema version: a consumer must ignore a kind it does not know
 * ({@link AlertEventJson#read} reports one as {@link UnknownAlertKindException}, so a consumer can
 * tell it from a broken record).
 */
public enum AlertKind {
  /** The service crossed its failure threshold and an incident was opened. */
  FAILED,
  /** The service crossed its recovery threshold and the open incident was closed. */
  RECOVERED,
  /**
   * The incident is still open and its target asked to be reminded: same incident id as its FAILED,
   * a new event id, {@code openedAt} and {@code downtime} so far. Added within schema version 1.
   */
  REMINDER
}

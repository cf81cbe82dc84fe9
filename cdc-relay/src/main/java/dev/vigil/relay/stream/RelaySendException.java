package dev.vigil.relay.stream;

/**
 * Kafka refused a record for good (the producer retries transient errors itself). The batch is not
 * marked processed, so its offsets are not stored and it is sent again after the restart.
 */
final class RelaySendException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  RelaySendException(String message, Throwable cause) {
    super(message, cause);
  }
}

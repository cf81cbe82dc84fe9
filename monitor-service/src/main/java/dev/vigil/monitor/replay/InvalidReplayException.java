package dev.vigil.monitor.replay;

/**
 * A replay refused before anything was written: the field at fault (or null) and why. Either the
 * request is invalid ({@link #invalidRequest()}: a bad value, an unknown service) or it is valid
 * and its selection is refused (nothing matches, or more rows than the limit).
 */
public final class InvalidReplayException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final boolean invalidRequest;

  private InvalidReplayException(String field, String reason, boolean invalidRequest) {
    super(reason);
    this.field = field;
    this.invalidRequest = invalidRequest;
  }

  /** A value that is wrong in itself (field null: the request as a whole). */
  static InvalidReplayException invalid(String field, String reason) {
    return new InvalidReplayException(field, reason, true);
  }

  /** A valid request whose selection is refused: empty, or over the limit. */
  static InvalidReplayException selectionRefused(String reason) {
    return new InvalidReplayException(null, reason, false);
  }

  /** True for a bad value (HTTP 400), false for a refused selection (HTTP 422). */
  public boolean invalidRequest() {
    return invalidRequest;
  }

  /** The request field at fault, or null when the selection as a whole is refused. */
  public String field() {
    return field;
  }
}

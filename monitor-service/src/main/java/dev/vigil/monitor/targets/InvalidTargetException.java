package dev.vigil.monitor.targets;

/**
 * A target definition is invalid. The message names where it came from (file or request), the
 * target and the field, so the person who wrote it can fix it without reading code.
 */
public final class InvalidTargetException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String reason;

  public InvalidTargetException(String source, String target, String field, String reason) {
    super(
        source
            + (target == null || target.isBlank() ? "" : ": target " + target)
            + (field == null ? "" : ": field '" + field + "'")
            + ": "
            + reason);
    this.field = field;
    this.reason = reason;
  }

  /** The offending field, or null when the problem is not about one field. */
  public String field() {
    return field;
  }

  /** Why the field is invalid. */
  public String reason() {
    return reason;
  }
}

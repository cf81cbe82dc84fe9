package dev.vigil.kit.json;

/**
 * JSON from outside that {@link StrictJson} refuses; {@link #field()} names where it went wrong.
 */
public final class InvalidJsonException extends RuntimeException {
  private final String field;
  private final String reason;

  public InvalidJsonException(String field, String reason) {
    super(field + ": " + reason);
    this.field = field;
    this.reason = reason;
  }

  /** The field (dotted path), or the name the caller gave the whole input, or {@code encoding}. */
  public String field() {
    return field;
  }

  /** Why it was refused, without the field name. */
  public String reason() {
    return reason;
  }
}

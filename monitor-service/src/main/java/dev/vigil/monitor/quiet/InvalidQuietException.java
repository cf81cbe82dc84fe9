package dev.vigil.monitor.quiet;

/** A window or silence definition that is refused; names the field (e.g. {@code start}). */
public final class InvalidQuietException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String field;

  public InvalidQuietException(String field, String reason) {
    super(field + ": " + reason);
    this.field = field;
  }

  /** The refused field, as named in the definition. */
  public String field() {
    return field;
  }

  /** The reason without the field name. */
  public String reason() {
    return getMessage().substring(field.length() + 2);
  }
}

package dev.vigil.contract;

/**
 * A record that is not a valid alert event; {@link #field()} names what is wrong, the message says
 * why.
 */
public class InvalidAlertEventException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;

  public InvalidAlertEventException(String field, String reason) {
    super(field + ": " + reason);
    this.field = field;
  }

  /** The offending JSON field, or {@code value} when the whole payload is unusable. */
  public String field() {
    return field;
  }
}

package dev.vigil.contract;

import java.util.Arrays;

/**
 * An event whose {@code kind} this code does not know. Kinds are added within a schema version, so
 * a consumer should skip such an event (and count it), not treat it as a broken record.
 */
public final class UnknownAlertKindException extends InvalidAlertEventException {
  private static final long serialVersionUID = 1L;

  /** At most this many characters of the unknown kind are kept, so hostile input stays short. */
  private static final int MAX_KIND_LENGTH = 40;

  private final String kind;

  public UnknownAlertKindException(String kind) {
    super(
        "kind",
        "unknown kind '"
            + shortened(kind)
            + "' (known: "
            + Arrays.toString(AlertKind.values())
            + ")");
    this.kind = shortened(kind);
  }

  /** The kind as received, cut to 40 characters. */
  public String kind() {
    return kind;
  }

  private static String shortened(String kind) {
    return kind.length() <= MAX_KIND_LENGTH ? kind : kind.substring(0, MAX_KIND_LENGTH) + "…";
  }
}

package dev.vigil.notifier.intake;

import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.InvalidAlertEventException;
import dev.vigil.kit.json.InvalidJsonException;

/**
 * The checks a record value must pass before the contract's reader sees it: the size bound of the
 * contract, then the services' one strict JSON reading ({@link dev.vigil.kit.json.StrictJson}:
 * UTF-8 only, no byte order mark, nothing after the object, no duplicate keys, no lone surrogates).
 * NUL and other control characters inside JSON strings are valid JSON and are allowed here; the
 * canonical JSON written for delivery escapes them.
 */
final class StrictJson {
  private StrictJson() {}

  /**
   * @throws InvalidAlertEventException naming the field and the reason
   */
  static void check(byte[] value) {
    if (value.length > AlertEventJson.MAX_PAYLOAD_BYTES) {
      throw new InvalidAlertEventException(
          "value",
          "payload is " + value.length + " bytes, more than " + AlertEventJson.MAX_PAYLOAD_BYTES);
    }
    try {
      dev.vigil.kit.json.StrictJson.read(value, AlertEventJson.mapper(), "value");
    } catch (InvalidJsonException e) {
      throw new InvalidAlertEventException(e.field(), e.reason());
    }
  }
}

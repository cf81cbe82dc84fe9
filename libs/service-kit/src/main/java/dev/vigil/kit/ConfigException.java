package dev.vigil.kit;

/**
 * A setting is missing or invalid; the message names the key and the reason and never a secret
 * value.
 */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }
}

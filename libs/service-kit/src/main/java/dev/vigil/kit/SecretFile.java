package dev.vigil.kit;

import dev.vigil.kit.json.StrictJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Secrets kept in files (Kubernetes and compose secrets are files). A secret file holds UTF-8 text
 * of at most {@link #MAX_BYTES}; surrounding whitespace (the trailing newline editors add) is
 * dropped. Errors name the file and what is wrong with it, never its content.
 */
public final class SecretFile {
  /**
   * Largest secret file read: secrets are short, and a path to a huge file must not exhaust memory.
   */
  public static final int MAX_BYTES = 64 * 1024;

  private SecretFile() {}

  /**
   * Reads the secret in {@code path}, without surrounding whitespace.
   *
   * @param what the setting or route the secret is for, named in the error
   * @throws IllegalArgumentException naming the file, never its content
   */
  public static String read(String what, Path path) {
    if (!Files.isRegularFile(path)) {
      throw new IllegalArgumentException(
          what + ": cannot read secret file " + path + " (missing or not a regular file)");
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(path)) {
      bytes = in.readNBytes(MAX_BYTES + 1);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(what + ": cannot read secret file " + path + " (missing)");
    } catch (IOException e) {
      throw new IllegalArgumentException(
          what + ": cannot read secret file " + path + " (" + e.getClass().getSimpleName() + ")");
    }
    if (bytes.length > MAX_BYTES) {
      throw new IllegalArgumentException(
          what + ": secret file " + path + " is larger than " + MAX_BYTES + " bytes");
    }
    String text = StrictJson.utf8(bytes);
    if (text == null) {
      throw new IllegalArgumentException(what + ": secret file " + path + " is not UTF-8 text");
    }
    return text.strip();
  }

  /** The part of a {@link #read} failure after "KEY: ", for messages that name the key already. */
  static String reason(RuntimeException e) {
    String message = e.getMessage() == null ? "cannot read secret file" : e.getMessage();
    int colon = message.indexOf(": ");
    return colon < 0 ? message : message.substring(colon + 2);
  }
}

package dev.vigil.kit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Secrets kept in files (Kubernetes and compose secrets are files). */
public final class SecretFile {
  private SecretFile() {}

  /**
   * Reads the secret in {@code path}, without surrounding whitespace.
   *
   * @param what the setting or route the secret is for, named in the error
   * @throws IllegalArgumentException naming the file, never its content
   */
  public static String read(String what, Path path) {
    try {
      return Files.readString(path, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new IllegalArgumentException(what + ": cannot read secret file " + path);
    }
  }
}

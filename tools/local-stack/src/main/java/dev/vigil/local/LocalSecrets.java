package dev.vigil.local;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Properties;

/**
 * Tokens and the webhook signing secret of the local stack: generated on the first run, kept in the
 * data directory so later runs (and deliveries signed before a restart) keep working.
 */
record LocalSecrets(String apiToken, String adminToken, String webhookSecret) {

  static LocalSecrets loadOrCreate(Path dataDir) {
    Path file = dataDir.resolve("secrets.properties");
    Properties props = new Properties();
    try {
      if (Files.exists(file)) {
        try (Reader reader = Files.newBufferedReader(file)) {
          props.load(reader);
        }
      } else {
        SecureRandom random = new SecureRandom();
        props.setProperty("apiToken", token(random));
        props.setProperty("adminToken", token(random));
        byte[] key = new byte[32];
        random.nextBytes(key);
        props.setProperty("webhookSecret", "whsec_" + Base64.getEncoder().encodeToString(key));
        Files.createDirectories(dataDir);
        try (Writer writer = Files.newBufferedWriter(file)) {
          props.store(writer, "Vigil local stack secrets (local use only)");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or write " + file, e);
    }
    return new LocalSecrets(
        props.getProperty("apiToken"),
        props.getProperty("adminToken"),
        props.getProperty("webhookSecret"));
  }

  private static String token(SecureRandom random) {
    byte[] bytes = new byte[18];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  @Override
  public String toString() {
    return "LocalSecrets[<hidden>]";
  }
}

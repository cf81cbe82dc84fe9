package dev.vigil.harness.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority generated in a directory with the JDK's {@code keytool}: a
 * server certificate for {@code localhost} and {@code 127.0.0.1} and a client certificate for one
 * user, each signed by the CA, in the formats the servers and clients read:
 *
 * <ul>
 *   <li>PostgreSQL: {@link #serverCertPem()}, {@link #serverKeyPem()} (mode 0600), {@link
 *       #caPem()};
 *   <li>pgjdbc: {@link #caPem()} as {@code sslrootcert}, {@link #clientCertPem()} and {@link
 *       #clientKeyDer()} (PKCS-8 DER) as {@code sslcert}/{@code sslkey};
 *   <li>Kafka: {@link #serverKeyStore()} and {@link #trustStore()} (PKCS12, {@link #password()}).
 * </ul>
 */
public final class TestCertificates {
  private final Path dir;
  private final String password;

  private TestCertificates(Path dir, String password) {
    this.dir = dir;
    this.password = password;
  }

  /**
   * Generates a CA and its certificates in {@code dir}.
   *
   * @param clientUser the common name of the client certificate (PostgreSQL maps it to the user)
   * @param password the password of every key store generated
   */
  public static TestCertificates generate(Path dir, String clientUser, String password) {
    TestCertificates certs = new TestCertificates(dir, password);
    try {
      Files.createDirectories(dir);
      certs.generateAll(clientUser);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot generate test certificates in " + dir, e);
    }
    return certs;
  }

  private void generateAll(String clientUser) throws IOException {
    String ca = file("ca.p12").toString();
    keytool(
        "-genkeypair",
        "-alias",
        "ca",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        "30",
        "-dname",
        "CN=Vigil Test CA " + dir.getFileName(),
        "-ext",
        "bc:c",
        "-keystore",
        ca,
        "-storetype",
        "PKCS12",
        "-storepass",
        password,
        "-keypass",
        password);
    keytool(
        "-exportcert",
        "-alias",
        "ca",
        "-keystore",
        ca,
        "-storepass",
        password,
        "-rfc",
        "-file",
        caPem().toString());
    signed("server", "CN=localhost", "SAN=dns:localhost,ip:127.0.0.1", "serverAuth");
    signed("client", "CN=" + clientUser, null, "clientAuth");
    keytool(
        "-importcert",
        "-alias",
        "ca",
        "-keystore",
        trustStore().toString(),
        "-storetype",
        "PKCS12",
        "-storepass",
        password,
        "-file",
        caPem().toString(),
        "-noprompt");
    writeKey("server", serverKeyPem(), true);
    writeKey("client", clientKeyDer(), false);
  }

  /** A key pair {@code name}.p12 whose certificate the CA signed, chain included. */
  private void signed(String name, String dname, String san, String usage) throws IOException {
    String store = file(name + ".p12").toString();
    Path csr = file(name + ".csr");
    Path pem = file(name + ".crt.pem");
    keytool(
        "-genkeypair",
        "-alias",
        name,
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        "30",
        "-dname",
        dname,
        "-keystore",
        store,
        "-storetype",
        "PKCS12",
        "-storepass",
        password,
        "-keypass",
        password);
    keytool(
        "-certreq",
        "-alias",
        name,
        "-keystore",
        store,
        "-storepass",
        password,
        "-file",
        csr.toString());
    List<String> gencert =
        new ArrayList<>(
            List.of(
                "-gencert",
                "-alias",
                "ca",
                "-keystore",
                file("ca.p12").toString(),
                "-storepass",
                password,
                "-infile",
                csr.toString(),
                "-outfile",
                pem.toString(),
                "-rfc",
                "-validity",
                "30",
                "-ext",
                "KU=digitalSignature,keyEncipherment",
                "-ext",
                "EKU=" + usage));
    if (san != null) {
      gencert.addAll(List.of("-ext", san));
    }
    keytool(gencert.toArray(String[]::new));
    keytool(
        "-importcert",
        "-alias",
        "ca",
        "-keystore",
        store,
        "-storepass",
        password,
        "-file",
        caPem().toString(),
        "-noprompt");
    keytool(
        "-importcert",
        "-alias",
        name,
        "-keystore",
        store,
        "-storepass",
        password,
        "-file",
        pem.toString(),
        "-noprompt");
  }

  private void writeKey(String name, Path target, boolean pem) throws IOException {
    byte[] encoded;
    try (InputStream in = Files.newInputStream(file(name + ".p12"))) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, password.toCharArray());
      Key key = store.getKey(name, password.toCharArray());
      encoded = key.getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot read the key of " + name, e);
    }
    if (pem) {
      String text =
          "-----BEGIN PRIVATE KEY-----\n"
              + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                  .encodeToString(encoded)
              + "\n-----END PRIVATE KEY-----\n";
      Files.writeString(target, text, StandardCharsets.US_ASCII);
    } else {
      Files.write(target, encoded);
    }
    // PostgreSQL refuses a key file others can read
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
  }

  private void keytool(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(file("keytool.log").toFile())
              .start();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("keytool " + args[0] + " did not finish in 2 minutes");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            "keytool " + args[0] + " failed: " + Files.readString(file("keytool.log")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run keytool " + args[0], e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running keytool", e);
    }
  }

  private Path file(String name) {
    return dir.resolve(name);
  }

  /** Password of every key store here. */
  public String password() {
    return password;
  }

  /** The CA certificate, PEM. */
  public Path caPem() {
    return file("ca.pem");
  }

  /** PKCS12 trust store holding the CA certificate. */
  public Path trustStore() {
    return file("truststore.p12");
  }

  /** PKCS12 key store with the server's key and certificate chain (alias {@code server}). */
  public Path serverKeyStore() {
    return file("server.p12");
  }

  public Path serverCertPem() {
    return file("server.crt.pem");
  }

  /** The server's private key, unencrypted PKCS-8 PEM, mode 0600. */
  public Path serverKeyPem() {
    return file("server.key.pem");
  }

  /** PKCS12 key store with the client's key and certificate chain (alias {@code client}). */
  public Path clientKeyStore() {
    return file("client.p12");
  }

  public Path clientCertPem() {
    return file("client.crt.pem");
  }

  /** The client's private key, unencrypted PKCS-8 DER (what pgjdbc's {@code sslkey} reads). */
  public Path clientKeyDer() {
    return file("client.key.pk8");
  }
}

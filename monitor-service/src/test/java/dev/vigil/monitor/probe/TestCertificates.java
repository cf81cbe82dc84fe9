package dev.vigil.monitor.probe;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Certificates made in the test: a CA, leaves it issues for 127.0.0.1, and self-signed ones. */
final class TestCertificates {
  private static final char[] PASSWORD = "test".toCharArray();
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  /** A key pair with its certificate. */
  record Issued(KeyPair keys, X509Certificate certificate) {}

  private TestCertificates() {}

  static Issued ca(String name) {
    KeyPair keys = keys();
    return new Issued(
        keys, sign(name, name, keys, keys, Instant.now().plus(Duration.ofDays(365)), true));
  }

  /** A certificate for 127.0.0.1 and localhost issued by {@code ca}, valid until {@code until}. */
  static Issued leaf(Issued ca, Instant until) {
    KeyPair keys = keys();
    String issuer = ca.certificate().getSubjectX500Principal().getName();
    return new Issued(keys, sign(issuer, "CN=localhost", ca.keys(), keys, until, false));
  }

  /** A certificate for 127.0.0.1 that signs itself: no client trusts it. */
  static Issued selfSigned() {
    KeyPair keys = keys();
    return new Issued(
        keys,
        sign(
            "CN=localhost",
            "CN=localhost",
            keys,
            keys,
            Instant.now().plus(Duration.ofDays(90)),
            false));
  }

  /** A server context presenting {@code leaf} (with {@code chain} after it). */
  static SSLContext server(Issued leaf, X509Certificate... chain) {
    try {
      X509Certificate[] all = new X509Certificate[chain.length + 1];
      all[0] = leaf.certificate();
      System.arraycopy(chain, 0, all, 1, chain.length);
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("server", leaf.keys().getPrivate(), PASSWORD, all);
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, PASSWORD);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return context;
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalStateException("cannot build the server TLS context", e);
    }
  }

  /** A client context that trusts {@code ca} only. */
  static SSLContext trusting(X509Certificate ca) {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setCertificateEntry("ca", ca);
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalStateException("cannot build the client TLS context", e);
    }
  }

  private static KeyPair keys() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(256);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot make a key pair", e);
    }
  }

  private static X509Certificate sign(
      String issuer, String subject, KeyPair signer, KeyPair owner, Instant until, boolean ca) {
    try {
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              new X500Name(issuer),
              BigInteger.valueOf(SERIAL.incrementAndGet()),
              Date.from(Instant.now().minus(Duration.ofDays(1))),
              Date.from(until),
              new X500Name(subject),
              owner.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
      if (!ca) {
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(
                new GeneralName[] {
                  new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                  new GeneralName(GeneralName.dNSName, "localhost")
                }));
      }
      return new JcaX509CertificateConverter()
          .getCertificate(
              builder.build(
                  new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
    } catch (GeneralSecurityException | OperatorCreationException | java.io.IOException e) {
      throw new IllegalStateException("cannot sign a test certificate", e);
    }
  }
}

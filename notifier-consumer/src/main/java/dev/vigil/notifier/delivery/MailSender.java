package dev.vigil.notifier.delivery;

import dev.vigil.contract.AlertEvent;
import dev.vigil.kit.SafeText;
import dev.vigil.kit.tracing.TraceParent;
import dev.vigil.notifier.channel.Channel;
import dev.vigil.notifier.channel.EmailChannel;
import dev.vigil.notifier.channel.EmailMessage;
import jakarta.mail.AuthenticationFailedException;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;
import org.eclipse.angus.mail.smtp.SMTPSenderFailedException;

/**
 * Sends the mails of {@link EmailChannel}s over SMTP (Jakarta Mail, Eclipse Angus). Jakarta Mail
 * blocks, so mails go out on a few threads of their own, one connection per mail (an alert mail is
 * rare enough that a kept-open SMTP session would mostly time out). Connect, read and write each
 * have the delivery's timeouts. Never throws: every failure becomes an {@link Outcome}, classified
 * by the SMTP reply code: 2xx delivered (the code is recorded, 250), 4xx retried, 5xx permanent
 * (the delivery is dead at once), no reply (connection refused, timeout, TLS failure) retried.
 *
 * <p>At-least-once, like every channel: a mail the server accepted whose reply was lost is sent
 * again with the same {@code Message-ID}.
 */
final class MailSender implements AutoCloseable {
  private static final int THREADS = 4;
  private static final Pattern REPLY = Pattern.compile("^\\s*([2-5][0-9][0-9])[ -]");

  private final Map<String, Session> sessions = new HashMap<>();
  private final ExecutorService executor;

  MailSender(Map<String, Channel> channels, Duration connectTimeout, Duration readTimeout) {
    for (Channel channel : channels.values()) {
      if (channel instanceof EmailChannel email) {
        sessions.put(email.name(), session(email.server(), connectTimeout, readTimeout));
      }
    }
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            THREADS,
            THREADS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            task -> {
              Thread thread = new Thread(task, "notifier-smtp");
              thread.setDaemon(true);
              return thread;
            });
    pool.allowCoreThreadTimeOut(true);
    this.executor = pool;
  }

  /**
   * Sends {@code event}'s mail (carrying {@code trace}, may be null) on a mail thread; the outcome
   * completes when SMTP has answered.
   */
  CompletableFuture<Outcome> send(EmailChannel channel, AlertEvent event, TraceParent trace) {
    return send(channel, channel.message(event, trace));
  }

  /** Sends {@code message} (a grouped mail) on a mail thread, as above. */
  CompletableFuture<Outcome> send(EmailChannel channel, EmailMessage message) {
    Session session = sessions.get(channel.name());
    return CompletableFuture.supplyAsync(
        () -> deliver(channel.server(), session, message), executor);
  }

  private static Outcome deliver(EmailChannel.Server server, Session session, EmailMessage mail) {
    String protocol = server.tls() == EmailChannel.Tls.TLS ? "smtps" : "smtp";
    try {
      MimeMessage message = new FixedIdMessage(session, mail.messageId());
      message.setFrom(new InternetAddress(mail.from(), true));
      for (String to : mail.to()) {
        message.addRecipient(Message.RecipientType.TO, new InternetAddress(to, true));
      }
      message.setSubject(mail.subject(), "UTF-8");
      message.setSentDate(new Date());
      for (Map.Entry<String, String> header : mail.headers().entrySet()) {
        message.setHeader(header.getKey(), header.getValue());
      }
      message.setText(mail.body(), "UTF-8");
      message.saveChanges();
      try (Transport transport = session.getTransport(protocol)) {
        transport.connect(server.host(), server.port(), server.username(), server.password());
        transport.sendMessage(message, message.getAllRecipients());
      }
      return new Outcome.Delivered(250);
    } catch (MessagingException e) {
      return ofFailure(e);
    } catch (RuntimeException e) {
      return new Outcome.Retryable(0, "SMTP: " + describe(e), null);
    }
  }

  /** 5xx permanent, 4xx retried, no reply code (connection, timeout, TLS) retried. */
  static Outcome ofFailure(MessagingException failure) {
    int code = replyCode(failure);
    String text = "SMTP " + (code == 0 ? "" : code + " ") + describe(failure);
    if (code >= 500) {
      return new Outcome.Permanent(code, text);
    }
    return new Outcome.Retryable(code, text, null);
  }

  /**
   * The SMTP reply code in {@code failure} or its nested exceptions; 0 when the server gave none.
   */
  static int replyCode(Exception failure) {
    for (Exception e = failure; e != null; ) {
      switch (e) {
        case SMTPSendFailedException f -> {
          return f.getReturnCode();
        }
        case SMTPAddressFailedException f -> {
          return f.getReturnCode();
        }
        case SMTPSenderFailedException f -> {
          return f.getReturnCode();
        }
        case AuthenticationFailedException f -> {
          Matcher m = REPLY.matcher(String.valueOf(f.getMessage()));
          return m.find() ? Integer.parseInt(m.group(1)) : 0;
        }
        default -> {}
      }
      e = e instanceof MessagingException m ? m.getNextException() : null;
    }
    return 0;
  }

  /** The failure and its cause, one line, bounded, control characters escaped. */
  private static String describe(Exception failure) {
    String text = failure.getClass().getSimpleName() + ": " + failure.getMessage();
    Throwable cause = failure.getCause();
    if (cause != null && cause != failure) {
      text += " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")";
    }
    return SafeText.text(text.strip(), 300);
  }

  private static Session session(
      EmailChannel.Server server, Duration connectTimeout, Duration readTimeout) {
    String p = server.tls() == EmailChannel.Tls.TLS ? "mail.smtps" : "mail.smtp";
    Properties props = new Properties();
    props.put(p + ".host", server.host());
    props.put(p + ".port", String.valueOf(server.port()));
    props.put(p + ".connectiontimeout", String.valueOf(Math.max(1, connectTimeout.toMillis())));
    props.put(p + ".timeout", String.valueOf(Math.max(1, readTimeout.toMillis())));
    props.put(p + ".writetimeout", String.valueOf(Math.max(1, readTimeout.toMillis())));
    props.put(p + ".auth", String.valueOf(server.username() != null));
    props.put(p + ".ssl.checkserveridentity", "true");
    if (server.tls() == EmailChannel.Tls.STARTTLS) {
      // never falls back to plain text when the server does not offer STARTTLS
      props.put(p + ".starttls.enable", "true");
      props.put(p + ".starttls.required", "true");
    }
    if (server.tls() == EmailChannel.Tls.TLS) {
      props.put(p + ".ssl.enable", "true");
    }
    if (!server.trusted().isEmpty()) {
      props.put(p + ".ssl.socketFactory", trusting(server).getSocketFactory());
    }
    return Session.getInstance(props);
  }

  /** A TLS context trusting only the channel's {@code caFile} certificates. */
  private static SSLContext trusting(EmailChannel.Server server) {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      int i = 0;
      for (X509Certificate certificate : server.trusted()) {
        store.setCertificateEntry("ca-" + i++, certificate);
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalStateException("cannot build the TLS context of an email channel: " + e, e);
    }
  }

  /** Keeps the Message-ID derived from the event id (Jakarta Mail would make a random one). */
  private static final class FixedIdMessage extends MimeMessage {
    private final String messageId;

    FixedIdMessage(Session session, String messageId) {
      super(session);
      this.messageId = messageId;
    }

    @Override
    protected void updateMessageID() throws MessagingException {
      setHeader("Message-ID", messageId);
    }
  }

  @Override
  public void close() {
    executor.shutdownNow(); // a mail in flight is retried after its lease, same Message-ID
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

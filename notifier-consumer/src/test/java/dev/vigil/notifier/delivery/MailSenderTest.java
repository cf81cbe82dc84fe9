package dev.vigil.notifier.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.mail.Address;
import jakarta.mail.AuthenticationFailedException;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.internet.InternetAddress;
import java.net.ConnectException;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;
import org.junit.jupiter.api.Test;

/** SMTP answers become the same outcomes as HTTP ones: 4xx and no answer retried, 5xx dead. */
class MailSenderTest {
  private static final Address[] NONE = new Address[0];

  @Test
  void a5xxAnswerIsPermanent() {
    Outcome outcome =
        MailSender.ofFailure(
            new SMTPSendFailedException(
                "DATA", 554, "554 5.7.1 message refused", null, NONE, NONE, NONE));
    assertThat(outcome).isInstanceOf(Outcome.Permanent.class);
    assertThat(((Outcome.Permanent) outcome).status()).isEqualTo(554);
    assertThat(((Outcome.Permanent) outcome).error()).startsWith("SMTP 554");
  }

  @Test
  void aRefusedRecipientInsideSendFailedIsPermanentAndATemporaryOneRetried() throws Exception {
    InternetAddress to = new InternetAddress("ops@example.com");
    SendFailedException unknown =
        new SendFailedException(
            "Invalid Addresses",
            new SMTPAddressFailedException(
                to, "RCPT TO:<ops@example.com>", 550, "550 no such user"));
    assertThat(MailSender.ofFailure(unknown)).isInstanceOf(Outcome.Permanent.class);

    SendFailedException greylisted =
        new SendFailedException(
            "Invalid Addresses",
            new SMTPAddressFailedException(
                to, "RCPT TO:<ops@example.com>", 451, "451 4.7.1 greylisted, try later"));
    Outcome outcome = MailSender.ofFailure(greylisted);
    assertThat(outcome).isInstanceOf(Outcome.Retryable.class);
    assertThat(((Outcome.Retryable) outcome).status()).isEqualTo(451);
  }

  @Test
  void authenticationAnswersAreReadFromTheServersReply() {
    assertThat(
            MailSender.ofFailure(
                new AuthenticationFailedException("535 5.7.8 Authentication credentials invalid")))
        .isInstanceOf(Outcome.Permanent.class);
    assertThat(
            MailSender.ofFailure(
                new AuthenticationFailedException("454 4.7.0 Temporary authentication failure")))
        .isInstanceOf(Outcome.Retryable.class);
  }

  @Test
  void noAnswerAtAllIsRetried() {
    Outcome outcome =
        MailSender.ofFailure(
            new MessagingException(
                "Couldn't connect to host, port: localhost, 1; timeout 10000",
                new ConnectException("Connection refused")));
    assertThat(outcome).isInstanceOf(Outcome.Retryable.class);
    assertThat(((Outcome.Retryable) outcome).status()).isZero();
    assertThat(((Outcome.Retryable) outcome).error()).contains("Connection refused");
  }
}

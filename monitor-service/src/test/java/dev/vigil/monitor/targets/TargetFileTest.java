package dev.vigil.monitor.targets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TargetFileTest {
  @TempDir Path dir;

  @Test
  void readsTargetsWithDefaults() throws IOException {
    Path file =
        write(
            """
            targets:
              - name: " Payments "
                url: https://payments.internal/health
                interval: 10s
                timeout: 2s
                acceptedStatus: [200, "300-302"]
              - name: nightly-batch
                type: push
                failureThreshold: 1
                recoveryThreshold: 2
            """);
    List<TargetSpec> targets = TargetFile.load(file);

    assertThat(targets).hasSize(2);
    TargetSpec payments = targets.get(0);
    assertThat(payments.name()).isEqualTo("payments");
    assertThat(payments.kind()).isEqualTo(TargetKind.HTTP);
    assertThat(payments.url()).isEqualTo(URI.create("https://payments.internal/health"));
    assertThat(payments.timeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(payments.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(payments.failureThreshold()).isEqualTo(3);
    assertThat(payments.recoveryThreshold()).isEqualTo(1);
    assertThat(payments.followRedirects()).isFalse();
    assertThat(payments.acceptedStatus().accepts(301)).isTrue();
    assertThat(payments.acceptedStatus().accepts(204)).isFalse();
    assertThat(targets.get(1).kind()).isEqualTo(TargetKind.PUSH);
    assertThat(targets.get(1).recoveryThreshold()).isEqualTo(2);
  }

  @Test
  void badFieldIsReportedWithFileTargetAndField() throws IOException {
    Path file =
        write(
            """
            targets:
              - name: ok
                url: http://localhost/ok
              - name: payments
                url: http://localhost/pay
                interval: 10 parsecs
            """);
    assertThatThrownBy(() -> TargetFile.load(file))
        .isInstanceOf(InvalidTargetException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("#2 'payments'")
        .hasMessageContaining("field 'interval'")
        .hasMessageContaining("duration");
  }

  @Test
  void misspelledFieldIsRejectedRatherThanDefaulted() throws IOException {
    Path file =
        write(
            """
            targets:
              - name: payments
                url: http://localhost/pay
                failureTreshold: 5
            """);
    assertThatThrownBy(() -> TargetFile.load(file))
        .hasMessageContaining("field 'failureTreshold'")
        .hasMessageContaining("unknown field");
  }

  @Test
  void invalidNameUrlThresholdAndDuplicatesAreRejected() throws IOException {
    assertThatThrownBy(
            () -> TargetFile.load(write("targets:\n  - name: -bad\n    url: http://x/\n")))
        .hasMessageContaining("field 'name'");
    assertThatThrownBy(() -> TargetFile.load(write("targets:\n  - name: a\n    url: ftp://x/\n")))
        .hasMessageContaining("field 'url'");
    assertThatThrownBy(
            () ->
                TargetFile.load(
                    write("targets:\n  - name: a\n    url: http://x/\n    failureThreshold: 0\n")))
        .hasMessageContaining("field 'failureThreshold'")
        .hasMessageContaining("between 1 and 100");
    assertThatThrownBy(
            () ->
                TargetFile.load(
                    write("targets:\n  - name: a\n    type: push\n  - name: A\n    type: push\n")))
        .hasMessageContaining("#2 'a'")
        .hasMessageContaining("declared twice");
    assertThatThrownBy(
            () ->
                TargetFile.load(
                    write(
                        "targets:\n  - name: a\n    url: http://x/\n    interval: 2s\n    timeout: 5s\n")))
        .hasMessageContaining("field 'timeout'")
        .hasMessageContaining("must not exceed the interval");
  }

  @Test
  void malformedYamlNamesTheFileAndLine() throws IOException {
    Path file = write("targets:\n  - name: a\n   url: [unclosed\n");
    assertThatThrownBy(() -> TargetFile.load(file))
        .hasMessageContaining(file.toString())
        .hasMessageContaining("not valid YAML");
  }

  private Path write(String yaml) throws IOException {
    Path file = Files.createTempFile(dir, "targets", ".yaml");
    Files.writeString(file, yaml);
    return file;
  }
}

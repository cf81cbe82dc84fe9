package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LocalStackMainTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cli = LocalStackMain.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void helpListsEveryOptionAndExitsZero() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("--data", "--targets", "--webhook", "--base-port", "18080");
  }

  @Test
  void aTypoInAnOptionIsAnErrorWithExitTwo() {
    assertThat(run("--base-prot", "28080")).isEqualTo(2);
    assertThat(err.toString()).contains("'--base-prot'", "Possible solutions: --base-port");
  }

  @Test
  void aBadValueIsAnErrorWithExitTwo() {
    assertThat(run("--base-port", "eighty")).isEqualTo(2);
    assertThat(err.toString()).contains("--base-port");
    assertThat(run("--base-port", "80")).isEqualTo(2);
    assertThat(err.toString()).contains("between 1024 and 65000");
    assertThat(run("--webhook", "ftp://example.com/hook")).isEqualTo(2);
    assertThat(err.toString()).contains("must be an http or https URL");
  }

  @Test
  void missingTargetsFileIsAnErrorWithExitTwo() {
    assertThat(run("--targets", Path.of("no-such-targets.yaml").toString())).isEqualTo(2);
    assertThat(err.toString()).contains("--targets: no such file");
  }

  @Test
  void anUnexpectedArgumentIsAnError() {
    assertThat(run("start")).isEqualTo(2);
    assertThat(err.toString()).contains("Unmatched argument");
  }
}

package dev.vigil.drills;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DrillMainTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cli = DrillMain.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void helpListsTheOptionsAndTheDrillsAndExitsZero() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString())
        .contains("--full", "--short", "--drills", "--results", "relay-failover", "receiver-chaos");
  }

  @Test
  void anUnknownOptionIsAnErrorInsteadOfBeingIgnored() {
    assertThat(run("--ful")).isEqualTo(2);
    assertThat(err.toString()).contains("Unknown option: '--ful'");
  }

  @Test
  void anUnknownDrillIsAnErrorNamingTheKnownOnes() {
    assertThat(run("--drills", "relay-failover,kafka-restrat")).isEqualTo(2);
    assertThat(err.toString()).contains("unknown drill 'kafka-restrat'", "relay-kill");
  }

  @Test
  void fullAndShortTogetherAreAnError() {
    assertThat(run("--full", "--short")).isEqualTo(2);
    assertThat(err.toString()).contains("mutually exclusive");
  }

  @Test
  void aMissingValueIsAnError() {
    assertThat(run("--results")).isEqualTo(2);
    assertThat(err.toString()).contains("Missing required parameter");
  }
}

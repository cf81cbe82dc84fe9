package dev.vigil.drills;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class FalsePageCommandTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cli = DrillMain.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void helpNamesTheDurationAndQuorumOptions() {
    assertThat(run("false-page", "--help")).isZero();
    assertThat(out.toString()).contains("--duration", "--quorum", "--targets", "majority");
  }

  @Test
  void theDefaultsAreTheIssuesDrill() {
    CommandLine cli = DrillMain.commandLine();
    cli.parseArgs("false-page");
    FalsePageCommand command = cli.getSubcommands().get("false-page").getCommand();
    var options = command.options();
    assertThat(options.targets()).isEqualTo(200);
    assertThat(options.locations()).hasSize(3);
    assertThat(options.duration()).isEqualTo(Duration.ofMinutes(30));
    assertThat(options.effectiveQuorum()).isEqualTo(2);
    assertThat(options.outages()).isEqualTo(2);
  }

  @Test
  void aShortRunWithQuorumOneParses() {
    CommandLine cli = DrillMain.commandLine();
    cli.parseArgs("false-page", "--duration", "60s", "--quorum", "1", "--targets", "40");
    FalsePageCommand command = cli.getSubcommands().get("false-page").getCommand();
    assertThat(command.options().duration()).isEqualTo(Duration.ofSeconds(60));
    assertThat(command.options().effectiveQuorum()).isEqualTo(1);
  }

  @Test
  void aBadQuorumOrDurationIsAUsageError() {
    assertThat(run("false-page", "--quorum", "most")).isEqualTo(2);
    assertThat(err.toString()).contains("--quorum");
    assertThat(run("false-page", "--quorum", "5")).isEqualTo(2);
    assertThat(err.toString()).contains("quorum must be between 1 and 3");
    assertThat(run("false-page", "--duration", "10x")).isEqualTo(2);
    assertThat(run("false-page", "--duration", "20s")).isEqualTo(2);
    assertThat(err.toString()).contains("too short");
  }
}

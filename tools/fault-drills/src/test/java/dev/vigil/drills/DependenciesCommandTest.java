package dev.vigil.drills;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.drills.dependencies.DependenciesOptions;
import dev.vigil.drills.dependencies.GatewayCounts;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DependenciesCommandTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cli = DrillMain.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  private static DependenciesCommand parsed(String... args) {
    CommandLine cli = DrillMain.commandLine();
    String[] all = new String[args.length + 1];
    all[0] = "dependencies";
    System.arraycopy(args, 0, all, 1, args.length);
    cli.parseArgs(all);
    return cli.getSubcommands().get("dependencies").getCommand();
  }

  @Test
  void helpNamesTheSizeOptions() {
    assertThat(run("dependencies", "--help")).isZero();
    assertThat(out.toString())
        .contains("--quick", "--children", "--services", "--maintenance", "--scenarios");
  }

  @Test
  void theDefaultsAreTheIssuesSizes() {
    DependenciesCommand command = parsed();
    DependenciesOptions options = command.options();
    assertThat(options.children()).isEqualTo(200);
    assertThat(options.independents()).isEqualTo(20);
    assertThat(options.stayDown()).isEqualTo(3);
    assertThat(options.maintenance()).isEqualTo(600);
    assertThat(options.stormServices()).isEqualTo(10_000);
    assertThat(options.stormParents()).isEqualTo(10);
    assertThat(options.scenarios()).containsExactlyInAnyOrder("a", "b", "c", "d");
    assertThat(command.baseName()).isEqualTo("dependencies");
  }

  @Test
  void quickIsSmallerButKeepsTheWindowOverOneAnnouncerBatchAndSizesOverrideIt() {
    DependenciesCommand command = parsed("--quick", "--services", "500", "--scenarios", "a,d");
    DependenciesOptions options = command.options();
    assertThat(options.children()).isEqualTo(40);
    assertThat(options.maintenance()).isGreaterThan(500);
    assertThat(options.stormServices()).isEqualTo(500);
    assertThat(options.announceInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(options.scenarios()).containsExactlyInAnyOrder("a", "d");
    assertThat(command.baseName()).isEqualTo("dependencies-quick");
  }

  @Test
  void badSizesAreUsageErrorsNamingTheOption() {
    assertThat(run("dependencies", "--stay-down", "300")).isEqualTo(2);
    assertThat(err.toString()).contains("--stay-down");
    assertThat(run("dependencies", "--scenarios", "a,e")).isEqualTo(2);
    assertThat(err.toString()).contains("--scenarios");
    assertThat(run("dependencies", "--services", "15")).isEqualTo(2);
    assertThat(err.toString()).contains("--services");
  }

  @Test
  void theGatewayScenarioPassesOnlyOnTheIssuesCounts() {
    DependenciesOptions o = DependenciesOptions.issueSized();
    GatewayCounts good = new GatewayCounts(1, 200, 0, 200, 1, 7, 3, 5, 5, 0);
    assertThat(good.passed(o)).isTrue();
    assertThat(new GatewayCounts(1, 150, 0, 200, 1, 7, 3, 5, 5, 0).passed(o))
        .as("impact short of the children")
        .isFalse();
    assertThat(new GatewayCounts(1, 200, 1, 199, 1, 7, 3, 5, 5, 0).passed(o))
        .as("a child paged while the gateway was down")
        .isFalse();
    assertThat(new GatewayCounts(2, 200, 0, 200, 1, 7, 3, 5, 5, 0).passed(o))
        .as("a repeated FAILED")
        .isFalse();
    assertThat(new GatewayCounts(1, 200, 0, 200, 1, 7, 2, 5, 5, 0).passed(o))
        .as("a skipped child FAILED")
        .isFalse();
    assertThat(new GatewayCounts(1, 200, 0, 200, 1, 7, 3, 4, 5, 0).passed(o))
        .as("an independent outage not paged")
        .isFalse();
    assertThat(new GatewayCounts(1, 200, 0, 200, 1, 7, 3, 5, 5, 1).passed(o))
        .as("an independent service paged without an outage")
        .isFalse();
  }
}

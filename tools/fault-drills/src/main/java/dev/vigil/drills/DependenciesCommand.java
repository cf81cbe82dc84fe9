package dev.vigil.drills;

import dev.vigil.drills.dependencies.DependenciesDrill;
import dev.vigil.drills.dependencies.DependenciesOptions;
import dev.vigil.drills.dependencies.DependenciesReport;
import dev.vigil.drills.dependencies.DependenciesResult;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code fault-drills dependencies}: the acceptance scenarios of issue 30 on a stack of their own
 * (probing monitors against a farm of HTTP services, pages counted at the receiver). The sizes
 * default to the issue's; {@code --quick} takes smaller ones, and each size option overrides
 * either. Exit 0 when every scenario passed, 1 otherwise, 2 for bad options.
 */
@Command(
    name = "dependencies",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description =
        "A gateway and its children (one monitor, then two with a kill -9), a maintenance window"
            + " beside an ending silence, a storm behind parents; pages counted at the receiver.")
final class DependenciesCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(names = "--quick", description = "smaller sizes and a 2 s announce interval")
  private boolean quick;

  @Option(names = "--children", paramLabel = "N", description = "children of the gateway (200)")
  private Integer children;

  @Option(names = "--independents", paramLabel = "N", description = "independent services (20)")
  private Integer independents;

  @Option(
      names = "--stay-down",
      paramLabel = "N",
      description = "children still down when the gateway recovers (3)")
  private Integer stayDown;

  @Option(
      names = "--maintenance",
      paramLabel = "N",
      description = "services in the maintenance window (600)")
  private Integer maintenance;

  @Option(names = "--services", paramLabel = "N", description = "services of the storm (10000)")
  private Integer services;

  @Option(names = "--storm-parents", paramLabel = "N", description = "parents of the storm (10)")
  private Integer stormParents;

  @Option(
      names = "--interval",
      paramLabel = "TIME",
      converter = FalsePageCommand.DurationConverter.class,
      description = "probe interval (5s; --quick 3s)")
  private Duration interval;

  @Option(
      names = "--announce-interval",
      paramLabel = "TIME",
      converter = FalsePageCommand.DurationConverter.class,
      description = "the monitors' announce interval (10s, the service default; --quick 2s)")
  private Duration announceInterval;

  @Option(
      names = "--scenarios",
      paramLabel = "a,b,c,d",
      split = ",",
      description = "only these scenarios (default: all)")
  private List<String> scenarios;

  @Option(
      names = "--results",
      paramLabel = "DIR",
      description = "where dependencies[-quick].md/.json go (default: the module's target/)")
  private Path results;

  /** The options as a record; a bad value is a usage error naming it. */
  DependenciesOptions options() {
    DependenciesOptions base =
        quick ? DependenciesOptions.quick() : DependenciesOptions.issueSized();
    try {
      return new DependenciesOptions(
          or(children, base.children()),
          or(independents, base.independents()),
          or(stayDown, base.stayDown()),
          or(maintenance, base.maintenance()),
          or(services, base.stormServices()),
          or(stormParents, base.stormParents()),
          interval != null ? interval : base.interval(),
          announceInterval != null ? announceInterval : base.announceInterval(),
          scenarios != null ? Set.copyOf(scenarios) : base.scenarios());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** The report's name: {@code dependencies-quick} for --quick, {@code dependencies} otherwise. */
  String baseName() {
    return quick ? "dependencies-quick" : "dependencies";
  }

  private static int or(Integer value, int otherwise) {
    return value != null ? value : otherwise;
  }

  @Override
  public Integer call() {
    DependenciesOptions options = options();
    Path target = DrillMain.moduleDir().resolve("target");
    String run =
        "dependencies-"
            + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                .withZone(ZoneOffset.UTC)
                .format(Instant.now());
    DependenciesResult result =
        DependenciesDrill.run(options, target.resolve("drill-work").resolve(run).toAbsolutePath());
    String command =
        FalsePageCommand.COMMAND
            + " "
            + String.join(" ", spec.commandLine().getParseResult().originalArgs());
    DependenciesReport.write(
        results != null ? results : target,
        baseName(),
        result,
        command.strip(),
        Report.loadAverage(),
        Report.codeVersion());
    System.out.println(DependenciesReport.lines(result));
    return result.passed() ? 0 : 1;
  }
}

package dev.vigil.harness.junit;

import java.nio.file.Path;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves {@link TestPostgres}, {@link TestDatabase} (a fresh database for each parameter) and
 * {@link TestKafka} parameters. The servers start lazily, once per test JVM, and stop when the
 * JVM's test plan ends.
 *
 * <p>System properties: {@code vigil.infra} = {@code embedded} (default) or {@code containers};
 * {@code vigil.harness.dir} = where embedded servers keep their files (default {@code
 * target/harness}).
 */
public final class VigilInfraExtension implements ParameterResolver, ExecutionCondition {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(VigilInfraExtension.class);

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    if (!usesContainers()) {
      return ConditionEvaluationResult.enabled("embedded infrastructure");
    }
    String reason =
        context
            .getRoot()
            .getStore(NAMESPACE)
            .computeIfAbsent(
                "docker-check",
                key -> {
                  String why = ContainerInfrastructure.unavailableReason();
                  if (why != null) {
                    // Printed once per test JVM so the skip is visible in the build log, not only
                    // in reports.
                    System.err.println("[vigil] " + why);
                  }
                  return why == null ? "" : why;
                },
                String.class);
    return reason.isEmpty()
        ? ConditionEvaluationResult.enabled("Docker available")
        : ConditionEvaluationResult.disabled(reason);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == TestPostgres.class || type == TestDatabase.class || type == TestKafka.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Infrastructure infrastructure = infrastructure(context);
    Class<?> type = parameter.getParameter().getType();
    if (type == TestKafka.class) {
      return infrastructure.kafka();
    }
    TestPostgres postgres = infrastructure.postgres();
    return type == TestDatabase.class ? postgres.newDatabase() : postgres;
  }

  private static Infrastructure infrastructure(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .computeIfAbsent(
            Infrastructure.class,
            key ->
                usesContainers()
                    ? new ContainerInfrastructure()
                    : new EmbeddedInfrastructure(
                        Path.of(System.getProperty("vigil.harness.dir", "target/harness"))),
            Infrastructure.class);
  }

  private static boolean usesContainers() {
    return "containers".equals(System.getProperty("vigil.infra", "embedded"));
  }
}

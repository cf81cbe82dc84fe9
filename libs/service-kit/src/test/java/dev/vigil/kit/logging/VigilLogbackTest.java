package dev.vigil.kit.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.joran.spi.JoranException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The shared vigil-logback.xml, configured as a service's logback.xml does. */
class VigilLogbackTest {
  private static String logOneLine(String appender) throws JoranException {
    String config =
        """
        <configuration>
          <include resource="vigil-logback.xml"/>
          <property name="VIGIL_LOG_APPENDER" value="%s"/>
          <root level="INFO"><appender-ref ref="${VIGIL_LOG_APPENDER}"/></root>
        </configuration>
        """
            .formatted(appender);
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    try {
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(new ByteArrayInputStream(config.getBytes(StandardCharsets.UTF_8)));
      context
          .getLogger("dev.vigil.test")
          .info("probe failed service={} error=\"{}\"", "web", "x\"y");
    } finally {
      context.stop();
      System.setOut(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  @Test
  void jsonFormatWritesOneJsonObjectPerEvent() throws Exception {
    String out = logOneLine("VIGIL_json").strip();

    assertThat(out.lines()).hasSize(1);
    JsonNode event = new ObjectMapper().readTree(out);
    assertThat(event.get("level").asText()).isEqualTo("INFO");
    assertThat(event.get("loggerName").asText()).isEqualTo("dev.vigil.test");
    assertThat(event.get("formattedMessage").asText())
        .isEqualTo("probe failed service=web error=\"x\"y\"");
    assertThat(event.get("arguments")).hasSize(2);
  }

  @Test
  void textFormatWritesOneReadableLinePerEvent() throws Exception {
    String out = logOneLine("VIGIL_text").strip();

    assertThat(out.lines()).hasSize(1);
    assertThat(out).contains("INFO", "dev.vigil.test - probe failed service=web error=\"x\"y\"");
  }
}

package dev.vigil.kit.logging;

import ch.qos.logback.core.PropertyDefinerBase;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * Chooses the console appender from {@code VIGIL_LOG_FORMAT}: {@code text} (default, one readable
 * line per event) or {@code json} (one JSON object per line, logback's {@code JsonEncoder}, for log
 * pipelines). Used in logback.xml as {@code <define name="VIGIL_LOG_APPENDER"
 * class="dev.vigil.kit.logging.LogFormat"/>}. An unknown value keeps text and says so in logback's
 * status output (printed at start), so a typo never silences the logs.
 */
public final class LogFormat extends PropertyDefinerBase {
  /** The environment variable that selects the format. */
  public static final String KEY = "VIGIL_LOG_FORMAT";

  private final UnaryOperator<String> environment;

  public LogFormat() {
    this(System::getenv);
  }

  LogFormat(UnaryOperator<String> environment) {
    this.environment = environment;
  }

  /** The name of the appender to use: {@code VIGIL_text} or {@code VIGIL_json}. */
  @Override
  public String getPropertyValue() {
    String raw = environment.apply(KEY);
    String format = raw == null || raw.isBlank() ? "text" : raw.strip().toLowerCase(Locale.ROOT);
    if (!format.equals("text") && !format.equals("json")) {
      addWarn(KEY + "='" + raw + "' is invalid: must be text or json; logging as text");
      format = "text";
    }
    return "VIGIL_" + format;
  }
}

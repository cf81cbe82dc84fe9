package dev.vigil.local;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Everything a service running in this JVM prints: standard output and error (teed, so the test log
 * still shows them) and every log event from INFO up (Vigil's own from DEBUG), with stack traces.
 * {@link #close()} restores the streams and the log levels.
 */
final class Capture implements AutoCloseable {
  private static final List<String> LOGGERS =
      List.of("dev.vigil", "org.apache.kafka", "kafka", "io.debezium", "io.zonky", "com.zaxxer");

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = System.out;
  private final PrintStream err = System.err;
  private final Map<String, Level> levels = new HashMap<>();
  private final OutputStreamAppender<ch.qos.logback.classic.spi.ILoggingEvent> appender =
      new OutputStreamAppender<>();
  private final StringBuilder extra = new StringBuilder();

  Capture() {
    System.setOut(new PrintStream(tee(out), true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(tee(err), true, StandardCharsets.UTF_8));
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    for (String name : LOGGERS) {
      Logger logger = context.getLogger(name);
      levels.put(name, logger.getLevel());
      logger.setLevel(name.equals("dev.vigil") ? Level.DEBUG : Level.INFO);
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%level [%thread] %logger - %msg %mdc%n%ex");
    encoder.start();
    appender.setContext(context);
    appender.setEncoder(encoder);
    appender.setOutputStream(syncOut());
    appender.start();
    context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
  }

  private OutputStream syncOut() {
    return new OutputStream() {
      @Override
      public void write(int b) {
        synchronized (bytes) {
          bytes.write(b);
        }
      }

      @Override
      public void write(byte[] b, int off, int len) {
        synchronized (bytes) {
          bytes.write(b, off, len);
        }
      }
    };
  }

  private OutputStream tee(PrintStream original) {
    OutputStream copy = syncOut();
    return new OutputStream() {
      @Override
      public void write(int b) {
        original.write(b);
        try {
          copy.write(b);
        } catch (java.io.IOException e) {
          throw new IllegalStateException(e);
        }
      }

      @Override
      public void write(byte[] b, int off, int len) {
        original.write(b, off, len);
        try {
          copy.write(b, off, len);
        } catch (java.io.IOException e) {
          throw new IllegalStateException(e);
        }
      }
    };
  }

  /** Adds what a service showed elsewhere: a /health body, a config dump, an error message. */
  synchronized void add(String what, String text) {
    extra.append("\n--- ").append(what).append(" ---\n").append(text).append('\n');
  }

  /** Everything captured so far. */
  String text() {
    String printed;
    synchronized (bytes) {
      printed = bytes.toString(StandardCharsets.UTF_8);
    }
    synchronized (this) {
      return printed + extra;
    }
  }

  @Override
  public void close() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(appender);
    appender.stop();
    levels.forEach((name, level) -> context.getLogger(name).setLevel(level));
    System.setOut(out);
    System.setErr(err);
  }
}

package dev.vigil.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.common.utils.AppInfoParser;

/** What the numbers were measured on; written at the top of every report. */
public record MachineFacts(
    String date,
    int cores,
    String cpu,
    long memoryMiB,
    String os,
    String jdk,
    String jvmArgs,
    String postgres,
    String postgresSettings,
    String kafka,
    String build) {

  /** Collects the facts of this machine and of the servers behind {@code db}. */
  public static MachineFacts collect(DataSource db) {
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    return new MachineFacts(
        Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
        Runtime.getRuntime().availableProcessors(),
        cpuModel(),
        os.getTotalMemorySize() / (1024 * 1024),
        System.getProperty("os.name") + " " + System.getProperty("os.version"),
        System.getProperty("java.vm.vendor")
            + " "
            + System.getProperty("java.vm.name")
            + " "
            + Runtime.version(),
        String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()),
        query(db, "select version()"),
        query(
            db,
            "select string_agg(name || '=' || setting, ', ' order by name) from pg_settings where"
                + " name in ('fsync','synchronous_commit','wal_level','shared_buffers',"
                + "'full_page_writes','max_connections')"),
        "Apache Kafka " + AppInfoParser.getVersion() + " (single KRaft node in the benchmark JVM)",
        gitHead());
  }

  Map<String, Object> asMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("date", date);
    m.put("cores", cores);
    m.put("cpu", cpu);
    m.put("memoryMiB", memoryMiB);
    m.put("os", os);
    m.put("jdk", jdk);
    m.put("jvmArgs", jvmArgs);
    m.put("postgres", postgres);
    m.put("postgresSettings", postgresSettings);
    m.put("kafka", kafka);
    m.put("build", build);
    return m;
  }

  /** The commit the benchmark was built from, as far as git in the working directory knows. */
  private static String gitHead() {
    try {
      Process p =
          new ProcessBuilder("git", "log", "-1", "--format=%h %s")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      return p.waitFor() == 0 ? out : "unknown";
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown");
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static String query(DataSource db, String sql) {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}

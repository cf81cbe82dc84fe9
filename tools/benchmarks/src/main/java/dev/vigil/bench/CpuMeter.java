package dev.vigil.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** CPU time of this JVM and of the PostgreSQL server processes, in seconds. */
public final class CpuMeter {
  private static final double TICKS_PER_SECOND = 100.0; // USER_HZ on Linux

  private CpuMeter() {}

  /** CPU seconds used by this JVM so far (every thread: the suite, the services, the broker). */
  public static double processCpuSeconds() {
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    return os.getProcessCpuTime() / 1e9;
  }

  /**
   * CPU seconds used so far by the postmaster whose data directory is {@code dataDir} and its
   * living children (backends that already exited are not counted); NaN if unreadable.
   */
  public static double postgresCpuSeconds(Path dataDir) {
    try {
      long pid =
          Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).getFirst().trim());
      List<Long> pids = new ArrayList<>();
      pids.add(pid);
      ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> pids.add(d.pid())));
      long ticks = 0;
      for (long p : pids) {
        ticks += ticks(p);
      }
      return ticks / TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** CPU seconds (user + system) used so far by the process {@code pid}; NaN once it has ended. */
  public static double processCpuSeconds(long pid) {
    return Files.isReadable(Path.of("/proc/" + pid + "/stat"))
        ? ticks(pid) / TICKS_PER_SECOND
        : Double.NaN;
  }

  private static long ticks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
    } catch (IOException | RuntimeException e) {
      return 0; // the process ended meanwhile
    }
  }
}

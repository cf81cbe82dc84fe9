package dev.vigil.bench.footprint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One sample of a Linux process from /proc: resident memory, thread count and CPU time used so far.
 *
 * @param rssBytes resident set size ({@code VmRSS} of /proc/PID/status)
 * @param threads {@code Threads} of /proc/PID/status
 * @param cpuSeconds user + system CPU time (/proc/PID/stat utime + stime at 100 ticks per second)
 */
public record ProcessStats(long rssBytes, int threads, double cpuSeconds) {

  /**
   * Reads the process {@code pid} now.
   *
   * @throws UncheckedIOException if the process does not exist (any more) or /proc is unreadable
   * @throws IllegalStateException if /proc's content is not what Linux writes
   */
  public static ProcessStats of(long pid) {
    Path proc = Path.of("/proc", Long.toString(pid));
    try {
      long rssKb = -1;
      int threads = -1;
      for (String line : Files.readAllLines(proc.resolve("status"))) {
        if (line.startsWith("VmRSS:")) {
          rssKb = Long.parseLong(line.substring(6).replace("kB", "").strip());
        } else if (line.startsWith("Threads:")) {
          threads = Integer.parseInt(line.substring(8).strip());
        }
      }
      // The command name (field 2) may contain spaces and parentheses: count from the last ')'.
      String stat = Files.readString(proc.resolve("stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
      if (rssKb < 0 || threads < 0) {
        throw new IllegalStateException("no VmRSS or Threads in " + proc.resolve("status"));
      }
      return new ProcessStats(rssKb * 1024, threads, ticks / 100.0); // USER_HZ = 100 on Linux
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + proc, e);
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      throw new IllegalStateException("unexpected content in " + proc + ": " + e.getMessage(), e);
    }
  }
}

package dev.vigil.bench.footprint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What {@code /proc} says about one process at one moment: resident memory, threads and CPU time
 * used so far (user + system).
 *
 * @param rssBytes resident set size ({@code VmRSS} of {@code /proc/<pid>/status})
 * @param threads threads of the process ({@code Threads} of {@code /proc/<pid>/status})
 * @param cpuSeconds utime + stime of {@code /proc/<pid>/stat}, at 100 clock ticks per second
 */
public record ProcessStats(long rssBytes, int threads, double cpuSeconds) {
  /**
   * Reads the stats of {@code pid}.
   *
   * @throws UncheckedIOException when the process does not exist (any more) or /proc is unreadable
   * @throws IllegalStateException when /proc holds something this parser does not understand
   */
  public static ProcessStats of(long pid) {
    Path proc = Path.of("/proc", Long.toString(pid));
    try {
      long rssKib = -1;
      int threads = -1;
      for (String line : Files.readAllLines(proc.resolve("status"))) {
        if (line.startsWith("VmRSS:")) {
          rssKib = Long.parseLong(line.substring(6).replace("kB", "").strip());
        } else if (line.startsWith("Threads:")) {
          threads = Integer.parseInt(line.substring(8).strip());
        }
      }
      // the command name in field 2 may contain spaces and parentheses: fields follow the last ')'
      String stat = Files.readString(proc.resolve("stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).strip().split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
      if (rssKib < 0 || threads < 0) {
        throw new IllegalStateException("no VmRSS or Threads in " + proc.resolve("status"));
      }
      return new ProcessStats(rssKib * 1024, threads, ticks / 100.0 /* USER_HZ */);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + proc, e);
    } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
      throw new IllegalStateException("cannot parse " + proc + ": " + e.getMessage(), e);
    }
  }
}

package dev.vigil.bench.footprint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live heap of another JVM: {@code jcmd <pid> GC.run} (a full collection, as {@code
 * System.gc()}), then the used heap from {@code jcmd <pid> GC.heap_info}.
 */
final class HeapAfterGc {
  /**
   * "used 12345K" of a heap line: "garbage-first heap total …, used 12345K" (G1) or one per
   * generation (Serial, Parallel); their spaces say "11% used", which does not match.
   */
  private static final Pattern USED = Pattern.compile("\\bused (\\d+)K");

  private HeapAfterGc() {}

  /** MiB of heap in use right after a full GC of {@code pid}; NaN when jcmd fails. */
  static double mib(long pid) {
    try {
      jcmd(pid, "GC.run");
      return usedKib(jcmd(pid, "GC.heap_info")) / 1024.0;
    } catch (IllegalStateException | UncheckedIOException e) {
      return Double.NaN;
    }
  }

  /**
   * Sums "used NK" of the heap lines of {@code GC.heap_info} (G1: one line; Serial and Parallel:
   * one per generation); Metaspace and class space are not heap.
   */
  static long usedKib(String heapInfo) {
    long kib = 0;
    boolean found = false;
    for (String line : heapInfo.split("\n")) {
      if (line.contains("Metaspace") || line.contains("class space")) {
        continue;
      }
      Matcher m = USED.matcher(line);
      if (m.find()) {
        kib += Long.parseLong(m.group(1));
        found = true;
      }
    }
    if (!found) {
      throw new IllegalStateException("no heap usage in GC.heap_info output: " + heapInfo);
    }
    return kib;
  }

  private static String jcmd(long pid, String command) {
    Path jcmd = Path.of(ServiceProcess.java()).resolveSibling("jcmd");
    ProcessBuilder builder =
        new ProcessBuilder(jcmd.toString(), Long.toString(pid), command).redirectErrorStream(true);
    builder.environment().remove("JAVA_TOOL_OPTIONS");
    try {
      Process p = builder.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("jcmd " + pid + " " + command + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + jcmd, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running jcmd", e);
    }
  }
}

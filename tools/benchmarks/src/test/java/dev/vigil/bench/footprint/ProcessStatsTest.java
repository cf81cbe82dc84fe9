package dev.vigil.bench.footprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class ProcessStatsTest {
  @Test
  void readsThisJvmsResidentMemoryThreadsAndCpuTime() {
    ProcessStats stats = ProcessStats.of(ProcessHandle.current().pid());

    long heapCommitted = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
    assertThat(stats.rssBytes()).isGreaterThan(8L * 1024 * 1024);
    // RSS in bytes, not kB or pages: never more than the heap plus a few hundred MiB here
    assertThat(stats.rssBytes()).isLessThan(heapCommitted + 2L * 1024 * 1024 * 1024);
    assertThat(stats.threads())
        .isGreaterThanOrEqualTo(ManagementFactory.getThreadMXBean().getThreadCount());
    assertThat(stats.cpuSeconds()).isPositive();
  }

  @Test
  void cpuTimeGrowsWithWork() {
    long pid = ProcessHandle.current().pid();
    double before = ProcessStats.of(pid).cpuSeconds();
    double cpuBefore =
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    long x = 0;
    while (((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        < cpuBefore + 300_000_000L) {
      x += Long.numberOfTrailingZeros(System.nanoTime());
    }
    assertThat(x).isNotNegative();
    assertThat(ProcessStats.of(pid).cpuSeconds()).isGreaterThan(before + 0.1);
  }

  @Test
  void aProcessThatDoesNotExistIsAnError() {
    assertThatThrownBy(() -> ProcessStats.of(Long.MAX_VALUE))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("/proc/" + Long.MAX_VALUE);
  }
}

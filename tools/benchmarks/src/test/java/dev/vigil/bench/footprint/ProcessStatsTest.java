package dev.vigil.bench.footprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

class ProcessStatsTest {
  @Test
  void readsResidentMemoryThreadsAndCpuOfThisJvm() {
    ProcessStats stats = ProcessStats.of(ProcessHandle.current().pid());

    long heapInUse = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
    assertThat(stats.rssBytes()).isGreaterThan(heapInUse / 4).isLessThan(64L << 30);
    assertThat(stats.threads())
        .isGreaterThanOrEqualTo(Thread.getAllStackTraces().size() / 2)
        .isGreaterThan(1);
    assertThat(stats.cpuSeconds()).isPositive();
  }

  @Test
  void cpuSecondsGrowWithWork() {
    long pid = ProcessHandle.current().pid();
    double before = ProcessStats.of(pid).cpuSeconds();
    long end = System.nanoTime() + 300_000_000L;
    long x = 0;
    while (System.nanoTime() < end) {
      x += Long.numberOfTrailingZeros(x + System.nanoTime());
    }
    assertThat(x).isNotNegative();
    assertThat(ProcessStats.of(pid).cpuSeconds()).isGreaterThan(before);
  }

  @Test
  void aProcessThatDoesNotExistIsAnError() {
    assertThatThrownBy(() -> ProcessStats.of(Long.MAX_VALUE))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("/proc/" + Long.MAX_VALUE);
  }
}

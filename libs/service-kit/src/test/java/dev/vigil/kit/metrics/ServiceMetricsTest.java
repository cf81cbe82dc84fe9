package dev.vigil.kit.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Counter;
import org.junit.jupiter.api.Test;

class ServiceMetricsTest {
  @Test
  void exposesOwnMetersAsVigilServiceUnderscoreNames() {
    try (ServiceMetrics metrics = ServiceMetrics.create("relay")) {
      Counter.builder(metrics.name("events.relayed")).register(metrics.registry()).increment();

      assertThat(metrics.scrape()).contains("vigil_relay_events_relayed_total 1.0");
    }
  }

  @Test
  void refusesOwnMetersOutsideTheScheme() {
    try (ServiceMetrics metrics = ServiceMetrics.create("notifier")) {
      assertThatThrownBy(() -> metrics.registry().counter("vigil_notifier_receipts_total"))
          .hasMessageContaining("breaks the naming scheme vigil.notifier.<what>");
      assertThatThrownBy(() -> metrics.registry().counter("vigil.monitor.probes"))
          .hasMessageContaining("breaks the naming scheme");
    }
  }

  @Test
  void wiresTheJvmBinders() {
    try (ServiceMetrics metrics = ServiceMetrics.create("monitor")) {
      assertThat(metrics.scrape())
          .contains(
              "jvm_memory_used_bytes",
              "jvm_threads_live_threads",
              "jvm_classes_loaded_classes",
              "system_cpu_count",
              "process_uptime_seconds");
    }
  }

  @Test
  void refusesAServiceNameThatWouldBreakTheScheme() {
    assertThatThrownBy(() -> ServiceMetrics.create("Cdc-Relay"))
        .hasMessageContaining("lower-case letters and digits");
  }
}

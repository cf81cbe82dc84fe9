package dev.vigil.kit.metrics;

import com.zaxxer.hikari.HikariDataSource;
import dev.vigil.kit.lifecycle.Closer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * A service's meter registry. The service's own meters are named {@code vigil.<service>.<what>} in
 * dotted lower case, which Prometheus shows as {@code vigil_<service>_<what>} (plus {@code _total},
 * {@code _seconds} … by meter type); registering a {@code vigil…} meter that breaks the scheme
 * fails at once with the name, so the scheme cannot drift. The ready-made binders are wired here:
 * JVM memory, GC, threads, class loading, processor and uptime at creation; the connection pool
 * ({@link #bindPool}) and Kafka clients ({@link #bind}, e.g. {@code KafkaClientMetrics}) when the
 * service has them. Their names ({@code jvm_…}, {@code hikaricp_…}, {@code kafka_…}) stay the
 * standard ones, so stock dashboards work.
 */
public final class ServiceMetrics implements AutoCloseable {
  private static final Pattern SERVICE = Pattern.compile("[a-z][a-z0-9]*");

  private final String prefix;
  private final PrometheusMeterRegistry registry;
  private final Closer binders = new Closer("metrics");

  private ServiceMetrics(String service) {
    this.prefix = "vigil." + service + ".";
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().meterFilter(namingScheme(service));
    for (MeterBinder binder :
        List.of(
            new JvmMemoryMetrics(),
            new JvmThreadMetrics(),
            new ClassLoaderMetrics(),
            new ProcessorMetrics(),
            new UptimeMetrics())) {
      binder.bindTo(registry);
    }
    bind(new JvmGcMetrics());
  }

  /**
   * A registry for {@code service} (lower case letters and digits, e.g. {@code notifier}) with the
   * JVM binders bound.
   */
  public static ServiceMetrics create(String service) {
    if (service == null || !SERVICE.matcher(service).matches()) {
      throw new IllegalArgumentException(
          "service name for metrics must be lower-case letters and digits, was " + service);
    }
    return new ServiceMetrics(service);
  }

  /** The registry the service's own meters are registered with. */
  public MeterRegistry registry() {
    return registry;
  }

  /** {@code vigil.<service>.<what>}: the name of one of the service's own meters. */
  public String name(String what) {
    return prefix + what;
  }

  /**
   * Binds {@code binder} and, if it holds resources ({@code KafkaClientMetrics}, {@code
   * JvmGcMetrics}), closes it with this registry.
   */
  public <B extends MeterBinder> B bind(B binder) {
    binder.bindTo(registry);
    if (binder instanceof AutoCloseable closeable) {
      binders.add(binder.getClass().getSimpleName(), closeable);
    }
    return binder;
  }

  /**
   * Exposes the connection pool's metrics ({@code hikaricp_connections_…}, tagged with the pool
   * name). A data source that is not a HikariCP pool is left alone.
   */
  public void bindPool(DataSource dataSource) {
    if (dataSource instanceof HikariDataSource hikari && hikari.getMetricRegistry() == null) {
      hikari.setMetricRegistry(registry);
    }
  }

  /** The Prometheus text exposition of every meter. */
  public String scrape() {
    return registry.scrape();
  }

  @Override
  public void close() {
    try {
      binders.close();
    } finally {
      registry.close();
    }
  }

  static MeterFilter namingScheme(String service) {
    Pattern own = Pattern.compile("vigil\\." + service + "(\\.[a-z0-9]+)+");
    return new MeterFilter() {
      @Override
      public Meter.Id map(Meter.Id id) {
        String name = id.getName();
        if (name.startsWith("vigil") && !own.matcher(name).matches()) {
          throw new IllegalArgumentException(
              "meter "
                  + name
                  + " breaks the naming scheme vigil."
                  + service
                  + ".<what> (dotted lower case; Prometheus shows vigil_"
                  + service
                  + "_<what>)");
        }
        return id;
      }
    };
  }
}

package dev.vigil.monitor.quiet;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * An ad-hoc silence of one service or of every service whose name starts with {@code prefix}.
 *
 * @param id the silence's id
 * @param service the silenced service, or null when {@code prefix} is set
 * @param prefix the silenced name prefix, or null when {@code service} is set
 * @param createdBy who asked for it
 * @param reason why
 * @param createdAt when it was stored (database clock)
 * @param endsAt when it ends (exclusive)
 */
public record Silence(
    UUID id,
    String service,
    String prefix,
    String createdBy,
    String reason,
    Instant createdAt,
    Instant endsAt) {
  public Silence {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(endsAt, "endsAt");
    if ((service == null) == (prefix == null)) {
      throw new IllegalArgumentException("a silence has either a service or a prefix");
    }
  }

  /** Whether this silence applies to {@code name} at {@code instant}. */
  public boolean covers(String name, Instant instant) {
    boolean matches = service != null ? service.equals(name) : name.startsWith(prefix);
    return matches && instant.isBefore(endsAt) && !instant.isBefore(createdAt);
  }
}

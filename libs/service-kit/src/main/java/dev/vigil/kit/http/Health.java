package dev.vigil.kit.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The one {@code /health} body of every Vigil server: an overall status and named checks, e.g.
 * {@code {"status":"DOWN","checks":{"database":{"status":"DOWN","detail":"no answer within 2
 * s"}}}}. The overall status is {@code UP} when every check is up and {@code DOWN} otherwise; the
 * HTTP status is 200 when up and 503 when down, so a load balancer needs only the code.
 *
 * @param status {@code UP} or {@code DOWN}
 * @param checks each check by name, in the order added
 */
public record Health(String status, Map<String, Check> checks) {
  public static final String UP = "UP";
  public static final String DOWN = "DOWN";

  public Health {
    Objects.requireNonNull(status, "status");
    checks = Collections.unmodifiableMap(new LinkedHashMap<>(checks));
  }

  /**
   * One named check. {@code status} is {@code UP} or {@code DOWN}, or another state a service
   * documents that counts as up (the relay's {@code STANDBY}); only {@code DOWN} makes the body
   * down. {@code detail} is a human-readable reason (never a secret) or null; {@code data} holds
   * facts worth showing (e.g. the relay's instance id), left out when empty.
   */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Check(String status, String detail, Map<String, Object> data) {
    public Check {
      Objects.requireNonNull(status, "status");
      data = data == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(data));
    }

    /** A check that is up or down, without detail. */
    public static Check of(boolean up) {
      return of(up, null);
    }

    /** A check that is up or down, with a reason (or null). */
    public static Check of(boolean up, String detail) {
      return new Check(up ? UP : DOWN, detail, Map.of());
    }

    /** Whether this check counts as up: any status but {@code DOWN}. */
    public boolean up() {
      return !DOWN.equals(status);
    }
  }

  /** Starts a body; add checks with {@link Builder#check}. */
  public static Builder builder() {
    return new Builder();
  }

  /** Whether every check is up (a body without checks is up: the process answers). */
  public boolean up() {
    return UP.equals(status);
  }

  /** 200 when up, 503 when down. */
  public int httpStatus() {
    return up() ? 200 : 503;
  }

  /** Collects named checks in order. */
  public static final class Builder {
    private final Map<String, Check> checks = new LinkedHashMap<>();

    private Builder() {}

    public Builder check(String name, Check check) {
      checks.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(check, "check"));
      return this;
    }

    public Builder check(String name, boolean up) {
      return check(name, Check.of(up));
    }

    public Health build() {
      boolean up = checks.values().stream().allMatch(Check::up);
      return new Health(up ? UP : DOWN, checks);
    }
  }
}

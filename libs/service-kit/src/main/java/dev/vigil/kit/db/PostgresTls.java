package dev.vigil.kit.db;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The TLS parameters of a PostgreSQL JDBC URL ({@code sslmode}, {@code sslrootcert}, {@code
 * sslcert}, {@code sslkey}, {@code sslpassword}), for clients that are not given the URL itself:
 * Debezium builds its replication and JDBC connections from host, port and database, and takes TLS
 * as {@code database.ssl*} properties.
 */
public final class PostgresTls {
  /** The parameters handed on, as pgjdbc names them. */
  public static final List<String> PARAMETERS =
      List.of("sslmode", "sslrootcert", "sslcert", "sslkey", "sslpassword");

  /** The values pgjdbc accepts for {@code sslmode}. */
  public static final List<String> MODES =
      List.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full");

  private PostgresTls() {}

  /**
   * The TLS parameters present in {@code jdbcUrl}'s query, URL-decoded, by name; the last one wins
   * when a parameter repeats (as in pgjdbc). Empty when the URL has none.
   *
   * @throws IllegalArgumentException when a value is not valid URL encoding
   */
  public static Map<String, String> fromJdbcUrl(String jdbcUrl) {
    Map<String, String> found = new LinkedHashMap<>();
    queryParameters(jdbcUrl)
        .forEach(
            (name, raw) -> {
              if (raw != null && PARAMETERS.contains(name)) {
                found.put(name, URLDecoder.decode(raw, StandardCharsets.UTF_8));
              }
            });
    return found;
  }

  /**
   * The query parameters of {@code jdbcUrl}, names lower-cased (as pgjdbc matches them), values as
   * written (null for a name without {@code =}); the last one wins when a name repeats.
   */
  public static Map<String, String> queryParameters(String jdbcUrl) {
    Map<String, String> found = new LinkedHashMap<>();
    int query = jdbcUrl.indexOf('?');
    if (query < 0) {
      return found;
    }
    for (String pair : jdbcUrl.substring(query + 1).split("&")) {
      int equals = pair.indexOf('=');
      String name = (equals < 0 ? pair : pair.substring(0, equals)).toLowerCase(Locale.ROOT);
      found.put(name, equals < 0 ? null : pair.substring(equals + 1));
    }
    return found;
  }

  /** Debezium's PostgreSQL connector properties for the TLS parameters of {@code jdbcUrl}. */
  public static Map<String, String> debeziumProperties(String jdbcUrl) {
    Map<String, String> props = new LinkedHashMap<>();
    fromJdbcUrl(jdbcUrl).forEach((name, value) -> props.put("database." + name, value));
    return props;
  }
}

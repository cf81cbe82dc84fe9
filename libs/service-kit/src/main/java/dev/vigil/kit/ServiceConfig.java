package dev.vigil.kit;

import dev.vigil.kit.db.Database;
import java.net.URI;
import java.util.Map;

/**
 * Base of each service's configuration: the parsed {@link Values} of its {@link ConfigDef} and the
 * accessors of the {@link CommonSettings}. A service's config class is its list of declarations;
 * code reads a setting with the typed {@link #get(Setting)}, and the class adds an accessor only
 * where a value is derived (a path, a parsed route table). {@link #toString()} never shows a secret
 * or URL credentials.
 *
 * <p>The common accessors throw IllegalArgumentException when the service does not declare that
 * setting (the receiver has no Kafka): a wiring mistake, found by the service's first test.
 */
public abstract class ServiceConfig {
  private final Values values;

  /**
   * Reads {@code definition} from {@code source}.
   *
   * @throws ConfigException listing every missing or invalid key
   */
  protected ServiceConfig(ConfigDef definition, Settings source) {
    this.values = definition.parse(source);
  }

  /**
   * The typed value of one of this service's settings (null when optional and unset), e.g. {@code
   * config.get(RelayConfig.SLOT)}: Kafka's {@code config.getInt(KEY)}, typed by the declaration.
   *
   * @throws IllegalArgumentException if {@code setting} is not declared by this service
   */
  public final <T> T get(Setting<T> setting) {
    return values.get(setting);
  }

  /**
   * The pass-through variables {@code <prefix><name>} of a family this service declares (see {@link
   * ConfigDef#prefixed}), by name. Never log the values.
   */
  public final Map<String, String> prefixed(String prefix) {
    return values.prefixed(prefix);
  }

  public final String dbUrl() {
    return get(CommonSettings.DB_URL);
  }

  public final String dbUser() {
    return get(CommonSettings.DB_USER);
  }

  /** The database password, {@code ""} when none is set. */
  public final String dbPassword() {
    String password = get(CommonSettings.DB_PASSWORD);
    return password == null ? "" : password;
  }

  /**
   * Options to open this service's database with the common {@code VIGIL_DB_*} settings.
   *
   * @param migrations Flyway location, e.g. {@code classpath:db/notifier}
   * @param historyTable Flyway history table of this service
   */
  public final Database.Options database(
      int poolSize, String poolName, String migrations, String historyTable) {
    return new Database.Options(
        dbUrl(), dbUser(), dbPassword(), poolSize, poolName, migrations, historyTable);
  }

  /** Host of the database, from {@link #dbUrl()}. */
  public final String dbHost() {
    return jdbcUri().getHost();
  }

  /** Port of the database, from {@link #dbUrl()} (5432 when absent). */
  public final int dbPort() {
    int port = jdbcUri().getPort();
    return port == -1 ? 5432 : port;
  }

  /** Database name, from {@link #dbUrl()}. */
  public final String dbName() {
    return jdbcUri().getPath().substring(1);
  }

  public final int dbPoolSize() {
    return get(CommonSettings.DB_POOL_SIZE);
  }

  public final int httpPort() {
    return get(CommonSettings.HTTP_PORT);
  }

  public final String kafkaBootstrapServers() {
    return get(CommonSettings.KAFKA_BOOTSTRAP_SERVERS);
  }

  public final String topic() {
    return get(CommonSettings.TOPIC);
  }

  public final String instanceId() {
    return get(CommonSettings.INSTANCE_ID);
  }

  /**
   * The signing secrets as text, from {@code VIGIL_WEBHOOK_SECRETS} or the file named by {@code
   * VIGIL_WEBHOOK_SECRETS_FILE}.
   *
   * @throws ConfigException when neither is set
   */
  public final String webhookSecrets() {
    String secrets = get(CommonSettings.WEBHOOK_SECRETS);
    if (secrets == null || secrets.replaceAll("[,\\s]", "").isEmpty()) {
      throw new ConfigException(
          CommonSettings.WEBHOOK_SECRETS.key()
              + " (or "
              + CommonSettings.WEBHOOK_SECRETS.fileKey()
              + ") is required");
    }
    return secrets;
  }

  private URI jdbcUri() {
    return URI.create(dbUrl().substring("jdbc:".length()));
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + values + "]";
  }
}

package dev.vigil.harness.junit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A database of its own for one test, on the shared PostgreSQL server. Tests never see each other's
 * tables, slots or publications because each gets a fresh database.
 */
public record TestDatabase(String host, int port, String name, String user, String password) {
  /**
   * Bounds the test's own connection attempts: a paused database container (the Testcontainers
   * backend's outage) accepts the TCP connection but never answers, and would hang them forever.
   */
  private static final int LOGIN_TIMEOUT_SECONDS = 10;

  public String jdbcUrl() {
    return "jdbc:postgresql://" + host + ":" + port + "/" + name;
  }

  /**
   * A non-pooled data source; services under test build their own pools from {@link #jdbcUrl()}.
   */
  public DataSource dataSource() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(jdbcUrl());
    dataSource.setUser(user);
    dataSource.setPassword(password);
    dataSource.setLoginTimeout(LOGIN_TIMEOUT_SECONDS);
    dataSource.setConnectTimeout(LOGIN_TIMEOUT_SECONDS);
    return dataSource;
  }

  public Connection connect() throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", user);
    properties.setProperty("password", password);
    properties.setProperty("loginTimeout", String.valueOf(LOGIN_TIMEOUT_SECONDS));
    properties.setProperty("connectTimeout", String.valueOf(LOGIN_TIMEOUT_SECONDS));
    return DriverManager.getConnection(jdbcUrl(), properties);
  }
}

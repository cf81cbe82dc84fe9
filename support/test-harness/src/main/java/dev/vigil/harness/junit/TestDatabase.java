package dev.vigil.harness.junit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A database of its own for one test, on the shared PostgreSQL server. Tests never see each other's
 * tables, slots or publications because each gets a fresh database.
 */
public record TestDatabase(String host, int port, String name, String user, String password) {

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
    return dataSource;
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), user, password);
  }
}

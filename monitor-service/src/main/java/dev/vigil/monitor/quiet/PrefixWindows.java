package dev.vigil.monitor.quiet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.kit.db.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Recurring windows for every service whose name starts with a prefix, from the API or the targets
 * file. The file's windows are replaced as a whole at every start; the API's stay until deleted.
 */
public final class PrefixWindows {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A stored prefix window. */
  public record Entry(UUID id, String prefix, Window window, String source) {}

  private final DataSource dataSource;

  public PrefixWindows(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Stores a window from the API. */
  public Entry add(String prefix, Window window) {
    Entry entry = new Entry(UUID.randomUUID(), prefix, window, "api");
    Database.inTransaction(
        dataSource,
        "adding a maintenance window",
        connection -> {
          insert(connection, entry);
          return null;
        });
    return entry;
  }

  /** Replaces every window that came from the targets file with {@code windows}, all or nothing. */
  public void replaceFromFile(List<Entry> windows) {
    Database.inTransaction(
        dataSource,
        "storing the file's maintenance windows",
        connection -> {
          try (PreparedStatement statement =
              connection.prepareStatement(
                  "delete from maintenance_windows where source = 'file'")) {
            statement.executeUpdate();
          }
          for (Entry entry : windows) {
            insert(connection, new Entry(entry.id(), entry.prefix(), entry.window(), "file"));
          }
          QuietRules.recheckHeld(connection, null, ""); // read at start: every service
          return null;
        });
  }

  /** Every stored prefix window, by prefix. */
  public List<Entry> list() {
    return Database.inTransaction(
        dataSource,
        "listing maintenance windows",
        connection -> {
          List<Entry> entries = new ArrayList<>();
          try (PreparedStatement statement =
                  connection.prepareStatement(
                      """
                      select id, prefix, definition::text, source from maintenance_windows
                       order by prefix, created_at, id limit 1000
                      """);
              ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
              entries.add(
                  new Entry(
                      rs.getObject(1, UUID.class),
                      rs.getString(2),
                      WindowForm.read(read(rs.getString(3)), "", Set.of()),
                      rs.getString(4)));
            }
          }
          return entries;
        });
  }

  /** Deletes a window added through the API; false when there is none with that id. */
  public boolean delete(UUID id) {
    return Database.inTransaction(
        dataSource,
        "deleting maintenance window " + id,
        connection -> {
          try (PreparedStatement statement =
              connection.prepareStatement(
                  "delete from maintenance_windows where id = ? and source = 'api' returning prefix")) {
            statement.setObject(1, id);
            try (java.sql.ResultSet rs = statement.executeQuery()) {
              if (!rs.next()) {
                return false;
              }
              QuietRules.recheckHeld(connection, null, rs.getString(1));
            }
          }
          return true;
        });
  }

  private static void insert(Connection connection, Entry entry) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            insert into maintenance_windows (id, prefix, definition, source)
            values (?, ?, ?::jsonb, ?)
            """)) {
      statement.setObject(1, entry.id());
      statement.setString(2, entry.prefix());
      statement.setString(3, WindowForm.write(entry.window()).toString());
      statement.setString(4, entry.source());
      statement.executeUpdate();
    }
  }

  private static com.fasterxml.jackson.databind.JsonNode read(String text) {
    try {
      return JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a stored maintenance window is not JSON", e);
    }
  }
}

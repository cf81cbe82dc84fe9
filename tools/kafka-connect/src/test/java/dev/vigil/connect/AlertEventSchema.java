package dev.vigil.connect;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The alert event JSON Schema shipped in alert-contract ({@value #RESOURCE}), as a consumer outside
 * Vigil would apply it: a standard draft 2020-12 validator, no Vigil code.
 */
final class AlertEventSchema {
  static final String RESOURCE = "/contract/alert-event.schema.json";

  private final Schema schema;

  AlertEventSchema() {
    try (InputStream in = AlertEventSchema.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is not on the class path");
      }
      schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  /** What is wrong with {@code json} (empty when it is a valid alert event). */
  List<String> violations(String json) {
    return schema.validate(json, InputFormat.JSON).stream().map(Error::toString).toList();
  }
}

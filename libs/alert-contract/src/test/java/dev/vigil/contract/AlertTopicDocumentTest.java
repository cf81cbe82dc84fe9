package dev.vigil.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The AsyncAPI document and the code name the same record headers. */
class AlertTopicDocumentTest {

  @Test
  void theAsyncApiDocumentRequiresExactlyTheHeadersTheTopicCarries() throws Exception {
    JsonNode headers;
    try (InputStream in = getClass().getResourceAsStream("/contract/alert-topic.asyncapi.yaml")) {
      assertThat(in).isNotNull();
      headers =
          new ObjectMapper(new YAMLFactory())
              .readTree(in)
              .at("/components/messages/alertEvent/headers");
    }
    List<String> required = new ArrayList<>();
    headers.path("required").forEach(name -> required.add(name.asText()));
    List<String> described = new ArrayList<>();
    headers.path("properties").fieldNames().forEachRemaining(described::add);

    assertThat(required).containsExactlyElementsOf(AlertTopic.HEADERS);
    assertThat(described).containsExactlyElementsOf(AlertTopic.HEADERS);
    assertThat(headers.path("additionalProperties").asBoolean(true)).isFalse();
    assertThat(headers.at("/properties/ce_source/const").asText()).isEqualTo(AlertTopic.CE_SOURCE);
    for (AlertKind kind : AlertKind.values()) {
      assertThat(headers.at("/properties/ce_type/enum").toString())
          .contains(AlertTopic.cloudEventType(kind));
    }
  }
}

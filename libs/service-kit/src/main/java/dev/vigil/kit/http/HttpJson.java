package dev.vigil.kit.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.javalin.config.JavalinConfig;
import io.javalin.json.JavalinJackson;

/**
 * The one JSON mapper of the services' HTTP servers: Jackson with {@code java.time} as ISO-8601
 * text, installed as Javalin's JSON mapper so routes answer with {@code ctx.json(…)} and never
 * write JSON by hand.
 */
public final class HttpJson {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .build();

  private HttpJson() {}

  /** The shared mapper (thread-safe once built), for parsing request bodies as trees. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * Applies the settings every Vigil server shares: no banner, virtual threads for requests, the
   * shared JSON mapper.
   */
  public static void configure(JavalinConfig config) {
    config.startup.showJavalinBanner = false;
    config.concurrency.useVirtualThreads = true;
    config.jsonMapper(new JavalinJackson(MAPPER, true));
  }
}

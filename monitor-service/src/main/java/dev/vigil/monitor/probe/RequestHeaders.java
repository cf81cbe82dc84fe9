package dev.vigil.monitor.probe;

import dev.vigil.monitor.targets.HeaderValue;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;

/**
 * Puts a target's custom headers on a request. A value from a file is read at every probe (a
 * rotated secret is picked up without a restart), at most {@link #MAX_FILE_BYTES} bytes, stripped
 * of surrounding white space. Reasons name the header and never its value.
 */
final class RequestHeaders {
  static final int MAX_FILE_BYTES = 8 * 1024;

  private RequestHeaders() {}

  /** Sets every header on {@code request}; returns why one could not be set, or null. */
  static String apply(Map<String, HeaderValue> headers, HttpRequest.Builder request) {
    for (Map.Entry<String, HeaderValue> header : headers.entrySet()) {
      String name = header.getKey();
      HeaderValue value = header.getValue();
      String text;
      if (value.file() == null) {
        text = value.value();
      } else {
        text = readFile(value);
        if (text == null) {
          return "header "
              + name
              + ": valueFile cannot be read or is over "
              + MAX_FILE_BYTES
              + " bytes";
        }
        if (!HeaderValue.isAllowed(text)) {
          return "header " + name + ": valueFile holds characters a header cannot carry";
        }
      }
      try {
        request.setHeader(name, text);
      } catch (IllegalArgumentException e) {
        return "header " + name + ": refused by the HTTP client";
      }
    }
    return null;
  }

  private static String readFile(HeaderValue value) {
    try (InputStream in = Files.newInputStream(value.file())) {
      byte[] bytes = in.readNBytes(MAX_FILE_BYTES + 1);
      return bytes.length > MAX_FILE_BYTES
          ? null
          : new String(bytes, StandardCharsets.UTF_8).strip();
    } catch (IOException | SecurityException e) {
      return null;
    }
  }
}

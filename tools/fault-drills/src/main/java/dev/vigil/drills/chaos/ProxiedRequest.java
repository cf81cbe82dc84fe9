package dev.vigil.drills.chaos;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 request as the chaos proxy read it off the socket: method, target (path and query),
 * headers, body (Content-Length or chunked).
 */
record ProxiedRequest(String method, String target, Map<String, String> headers, byte[] body) {
  private static final int MAX_HEAD = 64 * 1024;

  static ProxiedRequest read(InputStream in) throws IOException {
    String head = readHead(in);
    if (head == null) {
      return null;
    }
    String[] lines = head.split("\r\n");
    String[] requestLine = lines[0].split(" ");
    if (requestLine.length < 2) {
      throw new IOException("bad request line: " + lines[0]);
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.put(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim());
      }
    }
    byte[] body = readBody(in, headers);
    return new ProxiedRequest(requestLine[0], requestLine[1], headers, body);
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        return head.size() == 0 ? null : fail("connection closed inside the request head");
      }
      head.write(b);
      if (head.size() > MAX_HEAD) {
        return fail("request head larger than " + MAX_HEAD);
      }
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  private static byte[] readBody(InputStream in, Map<String, String> headers) throws IOException {
    String length = header(headers, "content-length");
    if (length != null) {
      int expected = Integer.parseInt(length);
      byte[] body = in.readNBytes(expected);
      if (body.length < expected) {
        // The caller gave up mid-request (its timeout); forwarding a cut body would be a lie.
        throw new IOException("request body cut short: " + body.length + " of " + expected);
      }
      return body;
    }
    String encoding = header(headers, "transfer-encoding");
    if (encoding == null || !encoding.toLowerCase(Locale.ROOT).contains("chunked")) {
      return new byte[0];
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = readLine(in);
      int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
      if (size == 0) {
        while (!readLine(in).isEmpty()) {
          // trailers are dropped
        }
        return body.toByteArray();
      }
      body.write(in.readNBytes(size));
      readLine(in);
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  private static String header(Map<String, String> headers, String name) {
    for (Map.Entry<String, String> entry : headers.entrySet()) {
      if (entry.getKey().equalsIgnoreCase(name)) {
        return entry.getValue();
      }
    }
    return null;
  }

  private static String fail(String reason) throws IOException {
    throw new IOException(reason);
  }
}

package dev.vigil.monitor.api;

/** A request the API refuses; becomes {@code {"error": reason, "field": field}} with the status. */
final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String field;

  ApiException(int status, String field, String reason) {
    super(reason);
    this.status = status;
    this.field = field;
  }

  static ApiException badRequest(String field, String reason) {
    return new ApiException(400, field, reason);
  }

  int status() {
    return status;
  }

  String field() {
    return field;
  }
}

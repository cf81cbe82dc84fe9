package dev.vigil.monitor.alert;

/** A result or query named a service that is not a known target. */
public final class UnknownServiceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String service;

  public UnknownServiceException(String service) {
    super("unknown service '" + service + "'");
    this.service = service;
  }

  public String service() {
    return service;
  }
}

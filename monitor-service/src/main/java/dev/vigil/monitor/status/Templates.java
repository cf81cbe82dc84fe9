package dev.vigil.monitor.status;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * The compiled Mustache templates under {@code classpath:status/}. Mustache's {@code {{value}}}
 * HTML-escapes every value ({@code & < > " ' ` =}); the templates use no unescaped form ({@code
 * {{{…}}}} or {@code {{&…}}}), which a test checks, so no text reaches the page unescaped.
 */
final class Templates {
  /** Template files, also what the no-raw-output test reads. */
  static final String[] FILES = {
    "page.mustache",
    "overview.mustache",
    "service.mustache",
    "service-body.mustache",
    "chart.mustache",
    "badge.mustache",
    "error.mustache",
    "quiet.mustache"
  };

  private final Mustache page;
  private final Mustache overview;
  private final Mustache service;
  private final Mustache serviceBody;
  private final Mustache badge;
  private final Mustache error;

  Templates() {
    DefaultMustacheFactory factory = new DefaultMustacheFactory("status");
    this.page = factory.compile("page.mustache");
    this.overview = factory.compile("overview.mustache");
    this.service = factory.compile("service.mustache");
    this.serviceBody = factory.compile("service-body.mustache");
    this.badge = factory.compile("badge.mustache");
    this.error = factory.compile("error.mustache");
  }

  /** The layout around a body: title, refresh and the body's own template. */
  record Page(String title, long refreshSeconds, String fragmentUrl, Object body) {
    /** Whether {@code fragmentUrl} already has a query (the fragment parameter then follows &). */
    boolean fragmentQuery() {
      return fragmentUrl.indexOf('?') >= 0;
    }
  }

  /** An error page's scope. */
  record Problem(String title, String detail) {}

  String overviewPage(Page page) {
    return render(this.page, page);
  }

  String overviewFragment(Views.Overview overview) {
    return render(this.overview, overview);
  }

  String servicePage(Page page) {
    return render(service, page);
  }

  String serviceFragment(Views.ServicePage body) {
    return render(serviceBody, body);
  }

  /** Renders {@code template} with {@code scope} and the windows-and-silences section's scope. */
  private static String withQuiet(Mustache template, Object scope, QuietSection.View quiet) {
    // Two scopes: names not found in the page's own scope (only "quiet") come from the second.
    StringWriter out = new StringWriter();
    try {
      template.execute(out, new Object[] {java.util.Map.of("quiet", quiet), scope}).flush();
    } catch (IOException e) {
      throw new UncheckedIOException("rendering " + template.getName(), e);
    }
    return out.toString();
  }

  String overviewPage(Page page, QuietSection.View quiet) {
    return withQuiet(this.page, page, quiet);
  }

  String overviewFragment(Views.Overview overview, QuietSection.View quiet) {
    return withQuiet(this.overview, overview, quiet);
  }

  String servicePage(Page page, QuietSection.View quiet) {
    return withQuiet(service, page, quiet);
  }

  String serviceFragment(Views.ServicePage body, QuietSection.View quiet) {
    return withQuiet(serviceBody, body, quiet);
  }

  String badge(Badge badge) {
    return render(this.badge, badge);
  }

  String error(Problem problem) {
    return render(error, problem);
  }

  private static String render(Mustache template, Object scope) {
    StringWriter out = new StringWriter();
    try {
      template.execute(out, scope).flush();
    } catch (IOException e) {
      throw new UncheckedIOException("rendering " + template.getName(), e);
    }
    return out.toString();
  }
}

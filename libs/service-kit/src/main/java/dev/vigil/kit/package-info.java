/**
 * What every Vigil service does the same way: settings read from environment variables, typed,
 * validated and documented, so a bad value stops startup with the key and the reason.
 *
 * <p>Adding a setting to a service is two lines of code: declare it in the service's config class,
 * e.g. {@code static final Setting<Duration> GRACE = Setting.duration("VIGIL_RELAY_GRACE",
 * "5s").range("0ms", "1m").doc("…");}, and list it in that class's {@code DEFINITION}; read it with
 * {@code config.get(GRACE)}. Settings every service shares live in {@link
 * dev.vigil.kit.CommonSettings}. Then regenerate the README table ({@code ConfigReferenceTest} with
 * {@code -Dvigil.readme.write=true}).
 */
package dev.vigil.kit;

package io.mvproxy.node.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses durations as Go's {@code time.ParseDuration} writes them in kube-apiserver flags ({@code 1m0s},
 * {@code 90s}, {@code 1.5h}, {@code 500ms}); a bare number is seconds.
 */
public final class GoDuration {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");
  private static final Pattern NUMBER = Pattern.compile("\\d+(\\.\\d+)?");

  private GoDuration() {
  }

  /**
   * @param text e.g. {@code 1m0s}
   * @return the duration, or null when {@code text} is not one
   */
  public static Duration parse(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    if (NUMBER.matcher(text).matches()) {
      return Duration.ofNanos(new BigDecimal(text).movePointRight(9).longValue());
    }
    Matcher m = PART.matcher(text);
    int at = 0;
    BigDecimal nanos = BigDecimal.ZERO;
    while (at < text.length()) {
      if (!m.find(at) || m.start() != at) {
        return null;
      }
      long unit = switch (m.group(2)) {
        case "ns" -> 1L;
        case "us", "µs" -> 1_000L;
        case "ms" -> 1_000_000L;
        case "s" -> 1_000_000_000L;
        case "m" -> 60_000_000_000L;
        default -> 3_600_000_000_000L;
      };
      nanos = nanos.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)));
      at = m.end();
    }
    return Duration.ofNanos(nanos.longValue());
  }

  /** @param d a duration @return it in Go's form, e.g. {@code 1m0s} */
  public static String format(Duration d) {
    long s = d.toSeconds();
    long ms = d.toMillisPart();
    String sec = ms == 0 ? (s % 60) + "s" : (s % 60) + "." + String.format("%03d", ms).replaceAll("0+$", "") + "s";
    if (s < 60) {
      return s == 0 && ms > 0 ? ms + "ms" : sec;
    }
    return s >= 3600 ? (s / 3600) + "h" + (s % 3600 / 60) + "m" + sec : (s / 60) + "m" + sec;
  }
}

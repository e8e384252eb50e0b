package io.mvproxy.controllers;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** {@code metav1.MicroTime} and {@code metav1.Time} texts (RFC 3339 in UTC, 6 and 0 fractional digits). */
public final class MicroTime {
  private static final DateTimeFormatter MICRO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
      .withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'")
      .withZone(ZoneOffset.UTC);

  private MicroTime() {
  }

  /** @param t an instant @return e.g. {@code 2025-05-01T10:00:00.123456Z} */
  public static String micro(Instant t) {
    return MICRO.format(t.truncatedTo(ChronoUnit.MICROS));
  }

  /** @param t an instant @return e.g. {@code 2025-05-01T10:00:00Z} */
  public static String seconds(Instant t) {
    return SECONDS.format(t);
  }
}

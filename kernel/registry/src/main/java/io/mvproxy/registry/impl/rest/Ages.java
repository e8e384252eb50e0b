package io.mvproxy.registry.impl.rest;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Human-readable ages as kubectl prints them ({@code apimachinery/pkg/util/duration/duration.go HumanDuration}):
 * {@code 45s}, {@code 5m10s}, {@code 3h}, {@code 2d5h}, {@code 3y}.
 */
public final class Ages {
  private Ages() {
  }

  /**
   * @param timestamp an RFC 3339 time, e.g. {@code 2026-11-30T13:04:09Z}
   * @param now       the current time
   * @return the age, {@code <unknown>} when the timestamp does not parse
   */
  public static String since(String timestamp, Instant now) {
    try {
      return human(Duration.between(Instant.parse(timestamp), now));
    } catch (DateTimeParseException | NullPointerException e) {
      return "<unknown>";
    }
  }

  /** @return {@code d} formatted like Kubernetes' {@code HumanDuration} */
  public static String human(Duration d) {
    long seconds = d.getSeconds();
    if (seconds < -1) {
      return "<invalid>";
    } else if (seconds < 0) {
      return "0s";
    } else if (seconds < 120) {
      return seconds + "s";
    }
    long minutes = seconds / 60;
    if (minutes < 10) {
      long s = seconds % 60;
      return s == 0 ? minutes + "m" : minutes + "m" + s + "s";
    } else if (minutes < 180) {
      return minutes + "m";
    }
    long hours = seconds / 3600;
    if (hours < 8) {
      long m = minutes % 60;
      return m == 0 ? hours + "h" : hours + "h" + m + "m";
    } else if (hours < 48) {
      return hours + "h";
    } else if (hours < 24 * 8) {
      long h = hours % 24;
      return h == 0 ? (hours / 24) + "d" : (hours / 24) + "d" + h + "h";
    } else if (hours < 24 * 365 * 2) {
      return (hours / 24) + "d";
    } else if (hours < 24 * 365 * 8) {
      long dy = (hours / 24) % 365;
      return dy == 0 ? (hours / 24 / 365) + "y" : (hours / 24 / 365) + "y" + dy + "d";
    }
    return (hours / 24 / 365) + "y";
  }
}

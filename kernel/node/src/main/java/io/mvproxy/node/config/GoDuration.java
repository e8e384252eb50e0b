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

  /**
   * Go's {@code time.ParseDuration}, byte for byte: an optional sign, then one or more decimal numbers each with a
   * unit ({@code ns}, {@code us}, {@code µs}, {@code μs}, {@code ms}, {@code s}, {@code m}, {@code h}); {@code 0}
   * alone needs no unit.
   *
   * @param text the text
   * @return the duration (may be negative)
   * @throws IllegalArgumentException with Go's message: {@code time: invalid duration "x"},
   *     {@code time: missing unit in duration "1"}, {@code time: unknown unit "x" in duration "1x"} (quoted as Go's
   *     {@code time.quote}: non-ASCII and control bytes as {@code \xNN})
   */
  public static Duration parseStrict(String text) {
    byte[] s = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    String orig = quote(s, 0, s.length);
    int i = 0;
    boolean neg = false;
    if (s.length > 0 && (s[0] == '-' || s[0] == '+')) {
      neg = s[0] == '-';
      i = 1;
    }
    if (s.length - i == 1 && s[i] == '0') {
      return Duration.ZERO;
    }
    if (i == s.length) {
      throw new IllegalArgumentException("time: invalid duration " + orig);
    }
    final long max = Long.MIN_VALUE; // 1<<63 as an unsigned value
    long d = 0;
    while (i < s.length) {
      if (!(s[i] == '.' || '0' <= s[i] && s[i] <= '9')) {
        throw new IllegalArgumentException("time: invalid duration " + orig);
      }
      int start = i;
      long v = 0;
      for (; i < s.length && '0' <= s[i] && s[i] <= '9'; i++) {
        if (Long.compareUnsigned(v, Long.divideUnsigned(max, 10)) > 0) {
          throw new IllegalArgumentException("time: invalid duration " + orig);
        }
        v = v * 10 + (s[i] - '0');
        if (Long.compareUnsigned(v, max) > 0) {
          throw new IllegalArgumentException("time: invalid duration " + orig);
        }
      }
      boolean pre = i != start;
      long f = 0;
      double scale = 1;
      boolean post = false;
      if (i < s.length && s[i] == '.') {
        i++;
        int fs = i;
        boolean overflow = false;
        for (; i < s.length && '0' <= s[i] && s[i] <= '9'; i++) {
          if (overflow) {
            continue;
          }
          if (Long.compareUnsigned(f, Long.divideUnsigned(Long.MAX_VALUE, 10)) > 0) {
            overflow = true;
            continue;
          }
          long y = f * 10 + (s[i] - '0');
          if (Long.compareUnsigned(y, max) > 0) {
            overflow = true;
            continue;
          }
          f = y;
          scale *= 10;
        }
        post = i != fs;
      }
      if (!pre && !post) {
        throw new IllegalArgumentException("time: invalid duration " + orig);
      }
      int us = i;
      for (; i < s.length && s[i] != '.' && !('0' <= s[i] && s[i] <= '9'); i++) {
        // the unit runs to the next number
      }
      if (i == us) {
        throw new IllegalArgumentException("time: missing unit in duration " + orig);
      }
      String u = new String(s, us, i - us, java.nio.charset.StandardCharsets.UTF_8);
      long unit = switch (u) {
        case "ns" -> 1L;
        case "us", "\u00b5s", "\u03bcs" -> 1_000L;
        case "ms" -> 1_000_000L;
        case "s" -> 1_000_000_000L;
        case "m" -> 60_000_000_000L;
        case "h" -> 3_600_000_000_000L;
        default -> throw new IllegalArgumentException("time: unknown unit " + quote(s, us, i) + " in duration " + orig);
      };
      if (Long.compareUnsigned(v, Long.divideUnsigned(max, unit)) > 0) {
        throw new IllegalArgumentException("time: invalid duration " + orig);
      }
      v *= unit;
      if (f > 0) {
        v += (long) (f * (unit / scale));
        if (Long.compareUnsigned(v, max) > 0) {
          throw new IllegalArgumentException("time: invalid duration " + orig);
        }
      }
      d += v;
      if (Long.compareUnsigned(d, max) > 0) {
        throw new IllegalArgumentException("time: invalid duration " + orig);
      }
    }
    if (neg) {
      return Duration.ofNanos(-d);
    }
    if (Long.compareUnsigned(d, Long.MAX_VALUE) > 0) {
      throw new IllegalArgumentException("time: invalid duration " + orig);
    }
    return Duration.ofNanos(d);
  }

  /** Go's {@code time.quote}: ASCII kept ({@code "} and {@code \\} escaped), other bytes as {@code \xNN}. */
  private static String quote(byte[] s, int from, int to) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = from; i < to; i++) {
      int c = s[i] & 0xff;
      if (c >= 0x80 || c < ' ') {
        b.append(String.format("\\x%02x", c));
      } else {
        if (c == '"' || c == '\\') {
          b.append('\\');
        }
        b.append((char) c);
      }
    }
    return b.append('"').toString();
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

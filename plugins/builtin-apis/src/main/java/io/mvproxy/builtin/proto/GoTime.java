package io.mvproxy.builtin.proto;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Go's {@code time.Parse} for the two layouts Kubernetes times are read with, and their output forms:
 * {@code metav1.Time} ({@code time.RFC3339}, {@code 2006-01-02T15:04:05Z07:00}; written in UTC with whole seconds)
 * and {@code metav1.MicroTime} ({@code RFC3339Micro}, {@code 2006-01-02T15:04:05.000000Z07:00}: exactly six
 * fractional digits when read, written in UTC with six). Follows {@code time/format.go parse} chunk by chunk, so a
 * value Go refuses is refused here with Go's {@code ParseError} text
 * ({@code parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"},
 * {@code parsing time "2026-13-01T00:00:00Z": month out of range}), and what Go's lenient parse accepts (a one-digit
 * hour, a comma before the fraction, any number of fractional digits in RFC 3339) is accepted.
 */
public final class GoTime {
  /** Go's {@code time.RFC3339}. */
  public static final String RFC3339 = "2006-01-02T15:04:05Z07:00";
  /** apimachinery's {@code metav1.RFC3339Micro}. */
  public static final String RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00";

  private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'")
      .withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
      .withZone(ZoneOffset.UTC);

  /** A value Go's {@code time.Parse} refuses; the message is Go's {@code ParseError.Error()}. */
  public static final class ParseException extends Exception {
    private static final long serialVersionUID = 1L;

    ParseException(String message) {
      super(message, null, false, false);
    }
  }

  private GoTime() {
  }

  /**
   * @param value a time as JSON carries it
   * @param micro true for {@link #RFC3339_MICRO} ({@code metav1.MicroTime}), false for {@link #RFC3339}
   * @return the instant
   * @throws ParseException with Go's text when {@code time.Parse} refuses it
   */
  public static Instant parse(String value, boolean micro) throws ParseException {
    String layout = micro ? RFC3339_MICRO : RFC3339;
    Cursor c = new Cursor(value, layout);
    int year = c.year();
    c.literal('-');
    int month = c.number(true, "01");
    if (month <= 0 || month > 12) {
      throw c.range("month");
    }
    c.literal('-');
    int day = c.number(true, "02");
    c.literal('T');
    int hour = c.number(false, "15");
    if (hour >= 24) {
      throw c.range("hour");
    }
    c.literal(':');
    int min = c.number(true, "04");
    if (min >= 60) {
      throw c.range("minute");
    }
    c.literal(':');
    int sec = c.number(true, "05");
    if (sec >= 60) {
      throw c.range("second");
    }
    long nanos = micro ? c.fixedFraction() : c.optionalFraction();
    int offset = c.zone();
    if (!c.rest.isEmpty()) {
      throw new ParseException("parsing time " + quote(value) + ": extra text: " + quote(c.rest));
    }
    if (day < 1 || day > java.time.YearMonth.of(year, month).lengthOfMonth()) {
      throw new ParseException("parsing time " + quote(value) + ": day out of range");
    }
    return LocalDateTime.of(year, month, day, hour, min, sec).toInstant(ZoneOffset.UTC).plusNanos(nanos)
        .minusSeconds(offset);
  }

  /**
   * @param t     an instant
   * @param micro true for {@code metav1.MicroTime}'s form, false for {@code metav1.Time}'s
   * @return Go's {@code MarshalJSON} text: UTC, {@code Z}, six fractional digits or none (truncated)
   */
  public static String format(Instant t, boolean micro) {
    return micro ? MICROS.format(t) : SECONDS.format(t);
  }

  /**
   * Go's {@code time.quote}: double quotes, {@code "} and {@code \} escaped, bytes of control and non-ASCII
   * characters as {@code \xNN}.
   */
  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      if (cp < ' ' || cp >= 0x80) {
        for (byte x : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8)) {
          b.append(String.format("\\x%02x", x & 0xff));
        }
      } else {
        if (cp == '"' || cp == '\\') {
          b.append('\\');
        }
        b.append((char) cp);
      }
    }
    return b.append('"').toString();
  }

  /** The remaining value while walking the layout's chunks, as {@code parse}'s {@code value} variable. */
  private static final class Cursor {
    private final String value;
    private final String layout;
    private String rest;
    /** The value at the start of the current std chunk ({@code parse}'s {@code hold}): what its errors show. */
    private String hold;

    Cursor(String value, String layout) {
      this.value = value;
      this.layout = layout;
      this.rest = value;
    }

    /** A literal between chunks that does not match: {@code skip}'s error shows the value where it failed. */
    ParseException bad(String layoutElem) {
      return parseError(rest, layoutElem);
    }

    /** A std chunk that does not parse: the error shows the value as it was when the chunk began. */
    ParseException badStd(String layoutElem) {
      return parseError(hold, layoutElem);
    }

    private ParseException parseError(String valueElem, String layoutElem) {
      return new ParseException("parsing time " + quote(value) + " as " + quote(layout) + ": cannot parse "
          + quote(valueElem) + " as " + quote(layoutElem));
    }

    ParseException range(String what) {
      return new ParseException("parsing time " + quote(value) + ": " + what + " out of range");
    }

    private static boolean digit(String s, int i) {
      return i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9';
    }

    /** {@code stdLongYear}: four characters, the first a digit, all digits ({@code atoi}). */
    int year() throws ParseException {
      hold = rest;
      if (rest.length() < 4 || !digit(rest, 0)) {
        throw badStd("2006");
      }
      String p = rest.substring(0, 4);
      rest = rest.substring(4);
      for (int i = 0; i < 4; i++) {
        if (!digit(p, i)) {
          throw badStd("2006");
        }
      }
      return Integer.parseInt(p);
    }

    /** {@code skip} of a one-character literal between chunks. */
    void literal(char ch) throws ParseException {
      if (rest.isEmpty() || rest.charAt(0) != ch) {
        throw bad(String.valueOf(ch));
      }
      rest = rest.substring(1);
    }

    /** {@code getnum}: two digits, or one when not {@code fixed} and the second is not a digit. */
    int number(boolean fixed, String std) throws ParseException {
      hold = rest;
      if (!digit(rest, 0)) {
        throw badStd(std);
      }
      if (!digit(rest, 1)) {
        if (fixed) {
          throw badStd(std);
        }
        int n = rest.charAt(0) - '0';
        rest = rest.substring(1);
        return n;
      }
      int n = (rest.charAt(0) - '0') * 10 + rest.charAt(1) - '0';
      rest = rest.substring(2);
      return n;
    }

    /** {@code stdSecond}'s special case: a fraction the layout does not show, any number of digits. */
    long optionalFraction() throws ParseException {
      if (rest.length() >= 2 && (rest.charAt(0) == '.' || rest.charAt(0) == ',') && digit(rest, 1)) {
        int n = 2;
        while (n < rest.length() && digit(rest, n)) {
          n++;
        }
        long nanos = nanoseconds(rest, n);
        rest = rest.substring(n);
        return nanos;
      }
      return 0;
    }

    /**
     * {@code stdFracSecond0} of {@code .000000}: a separator and six characters read by Go's {@code atoi} (a sign
     * is allowed; a negative fraction is out of range).
     */
    long fixedFraction() throws ParseException {
      String elem = ".000000";
      hold = rest;
      if (rest.length() < 7) {
        throw badStd(elem);
      }
      String p = rest;
      rest = rest.substring(7);
      if (p.charAt(0) != '.' && p.charAt(0) != ',') {
        throw badStd(elem);
      }
      String digits = p.substring(1, 7);
      boolean negative = digits.charAt(0) == '-';
      if (digits.charAt(0) == '+' || negative) {
        digits = digits.substring(1);
      }
      for (int i = 0; i < digits.length(); i++) {
        if (!digit(digits, i)) {
          throw badStd(elem);
        }
      }
      long ns = Long.parseLong(digits) * 1000;
      if (negative && ns != 0) {
        throw range("fractional second");
      }
      return ns;
    }

    /** {@code parseNanoseconds}: the digits after the separator, at most nine counted. */
    private static long nanoseconds(String s, int nbytes) {
      int n = Math.min(nbytes, 10);
      long ns = Long.parseLong(s.substring(1, n));
      for (int i = 0; i < 10 - n; i++) {
        ns *= 10;
      }
      return ns;
    }

    /**
     * {@code stdISO8601ColonTZ}: {@code Z}, or a sign, two digits, {@code :}, two digits; a range error (hour above
     * 24, minute above 60: Go writes the hour's, then the minute's) is reported before a bad digit or sign.
     */
    int zone() throws ParseException {
      String elem = "Z07:00";
      hold = rest;
      if (!rest.isEmpty() && rest.charAt(0) == 'Z') {
        rest = rest.substring(1);
        return 0;
      }
      if (rest.length() < 6 || rest.charAt(3) != ':') {
        throw badStd(elem);
      }
      String p = rest;
      rest = rest.substring(6);
      boolean hourOk = digit(p, 1) && digit(p, 2);
      boolean minOk = hourOk && digit(p, 4) && digit(p, 5);
      int hr = hourOk ? Integer.parseInt(p.substring(1, 3)) : 0;
      int mm = minOk ? Integer.parseInt(p.substring(4, 6)) : 0;
      String over = mm > 60 ? "time zone offset minute" : hr > 24 ? "time zone offset hour" : null;
      if (over != null) {
        throw range(over);
      }
      if (!minOk) {
        throw badStd(elem);
      }
      int offset = (hr * 60 + mm) * 60;
      return switch (p.charAt(0)) {
        case '+' -> offset;
        case '-' -> -offset;
        default -> throw badStd(elem);
      };
    }
  }
}

package io.mvproxy.api;

/**
 * Go's {@code strconv.Quote} (what {@code %q} prints for a string), shared by every message that quotes a value as
 * kube-apiserver's Go code does: field errors, parse errors, structured-merge-diff paths.
 */
public final class GoStrings {
  private GoStrings() {
  }

  /**
   * @param s a string
   * @return it double-quoted: {@code "} and {@code \} escaped, {@code \a \b \f \n \r \t \v}, other ASCII controls as
   *     {@code \xHH}, what Go does not print ({@link #isPrint}) as backslash-u and four hex digits (backslash-U and
   *     eight above the BMP), everything else as it is
   */
  public static String quote(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    s.codePoints().forEach(c -> {
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case 7 -> sb.append("\\a");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case 11 -> sb.append("\\v");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            sb.append(String.format("\\x%02x", c));
          } else if (!isPrint(c)) {
            sb.append(c > 0xffff ? String.format("\\U%08x", c) : String.format("\\u%04x", c));
          } else {
            sb.appendCodePoint(c);
          }
        }
      }
    });
    return sb.append('"').toString();
  }

  /**
   * Go's {@code unicode.IsPrint} (which {@code strconv.IsPrint} mirrors): letters, marks, numbers, punctuation and
   * symbols, and the ASCII space; not other spaces (U+00A0), separators, controls, format characters (U+00AD),
   * private use or unassigned code points.
   *
   * @param c a code point
   * @return true when {@link #quote} writes it as it is
   */
  public static boolean isPrint(int c) {
    if (c == ' ') {
      return true;
    }
    return switch (Character.getType(c)) {
      case Character.SPACE_SEPARATOR, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR, Character.CONTROL,
          Character.FORMAT, Character.PRIVATE_USE, Character.SURROGATE, Character.UNASSIGNED -> false;
      default -> true;
    };
  }

  /**
   * Go's {@code encoding/json quoteChar}, how its syntax errors name a byte: the byte as the rune of the same value,
   * quoted as {@link #quote} does between single quotes ({@code '\''} and {@code '"'} as such), e.g. {@code 'x'},
   * {@code '\x01'}, U+00A0 as backslash-u00a0, {@code 'â'} for 0xE2.
   *
   * @param b a byte value, 0-255
   * @return the quoted character
   */
  public static String quoteChar(int b) {
    if (b == '\'') {
      return "'\\''";
    }
    if (b == '"') {
      return "'\"'";
    }
    String q = quote(String.valueOf((char) b));
    return "'" + q.substring(1, q.length() - 1) + "'";
  }
}

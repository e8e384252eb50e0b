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
   *     {@code \xHH}, unassigned, control and (above Latin-1) format code points as backslash-u and four hex digits
   *     (backslash-U and eight above the BMP), everything else as it is
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
          } else if (!Character.isDefined(c) || Character.getType(c) == Character.CONTROL
              || Character.getType(c) == Character.FORMAT && c > 0xff) {
            sb.append(c > 0xffff ? String.format("\\U%08x", c) : String.format("\\u%04x", c));
          } else {
            sb.appendCodePoint(c);
          }
        }
      }
    });
    return sb.append('"').toString();
  }
}

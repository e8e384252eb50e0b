package io.mvproxy.registry.impl.rest;

import io.mvproxy.registry.impl.schema.GoValues;

/**
 * Go's {@code strconv.ParseInt(s, 10, 64)} with its error texts, as kube-apiserver applies it to integer query
 * parameters (apimachinery {@code runtime.Convert_Slice_string_To_int64}) and to {@code gt} / {@code lt} label
 * selector values: an optional sign, then ASCII digits only (no blanks, no underscores, no base prefix).
 */
public final class GoParseInt {
  private GoParseInt() {
  }

  /**
   * @param s the text (null is read as {@code ""})
   * @return its value
   * @throws IllegalArgumentException with Go's message, e.g. {@code strconv.ParseInt: parsing "abc": invalid syntax}
   *     or {@code strconv.ParseInt: parsing "99999999999999999999": value out of range}
   */
  public static long parse(String s) {
    String in = s == null ? "" : s;
    int i = 0;
    boolean neg = false;
    if (!in.isEmpty() && (in.charAt(0) == '+' || in.charAt(0) == '-')) {
      neg = in.charAt(0) == '-';
      i = 1;
    }
    if (i == in.length()) {
      throw error(in, "invalid syntax");
    }
    // ParseUint: a syntax error at the first non-digit, a range error as soon as the value overflows uint64
    long un = 0;
    boolean range = false;
    for (; i < in.length(); i++) {
      char c = in.charAt(i);
      if (c < '0' || c > '9') {
        throw error(in, "invalid syntax");
      }
      if (Long.compareUnsigned(un, Long.divideUnsigned(-1L, 10) + 1) >= 0) {
        range = true;
        break;
      }
      long next = un * 10 + (c - '0');
      if (Long.compareUnsigned(next, un * 10) < 0) {
        range = true;
        break;
      }
      un = next;
    }
    if (range) {
      throw error(in, "value out of range");
    }
    if (!neg && Long.compareUnsigned(un, Long.MIN_VALUE) >= 0) {
      throw error(in, "value out of range");
    }
    if (neg && Long.compareUnsigned(un, Long.MIN_VALUE) > 0) {
      throw error(in, "value out of range");
    }
    return neg ? -un : un;
  }

  /** @return true when {@link #parse} accepts {@code s} */
  public static boolean valid(String s) {
    try {
      parse(s);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static IllegalArgumentException error(String s, String what) {
    return new IllegalArgumentException("strconv.ParseInt: parsing " + GoValues.quote(s) + ": " + what);
  }
}

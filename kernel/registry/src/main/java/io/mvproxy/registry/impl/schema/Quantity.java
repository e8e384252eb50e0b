package io.mvproxy.registry.impl.schema;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import java.math.BigDecimal;
import java.util.Map;

/**
 * A resource quantity ({@code 500m}, {@code 1Gi}, {@code 2e3}) as apimachinery {@code pkg/api/resource/quantity.go}
 * parses it, for the CEL quantity library: the exact decimal value and the text.
 *
 * @param value the value
 * @param text  the quantity as written
 */
public record Quantity(BigDecimal value, String text) {
  private static final Pattern FORM = Pattern.compile("^([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))"
      + "(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$");
  private static final Map<String, BigDecimal> SUFFIX = Map.ofEntries(
      Map.entry("Ki", BigDecimal.valueOf(1L << 10)), Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
      Map.entry("Gi", BigDecimal.valueOf(1L << 30)), Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
      Map.entry("Pi", BigDecimal.valueOf(1L << 50)), Map.entry("Ei", BigDecimal.valueOf(1L << 60)),
      Map.entry("n", new BigDecimal("1e-9")), Map.entry("u", new BigDecimal("1e-6")),
      Map.entry("m", new BigDecimal("1e-3")), Map.entry("k", new BigDecimal("1e3")),
      Map.entry("M", new BigDecimal("1e6")), Map.entry("G", new BigDecimal("1e9")),
      Map.entry("T", new BigDecimal("1e12")), Map.entry("P", new BigDecimal("1e15")),
      Map.entry("E", new BigDecimal("1e18")));

  /** @return the quantity, or null when {@code s} is not one */
  public static Quantity parse(String s) {
    Matcher m = FORM.matcher(s);
    if (!m.find()) {
      return null;
    }
    BigDecimal n = new BigDecimal(m.group(1).endsWith(".") ? m.group(1) + "0" : m.group(1));
    String suf = m.group(2);
    if (suf != null && !suf.isEmpty()) {
      if (suf.charAt(0) == 'e' || suf.charAt(0) == 'E') {
        n = n.scaleByPowerOfTen(Integer.parseInt(suf.substring(1)));
      } else {
        n = n.multiply(SUFFIX.get(suf));
      }
    }
    return new Quantity(n, s);
  }

  /** @return true when the value is a whole number in int64 range */
  public boolean isInteger() {
    try {
      value.longValueExact();
      return true;
    } catch (ArithmeticException e) {
      return false;
    }
  }

  /** @return this plus {@code d} */
  public Quantity plus(BigDecimal d) {
    BigDecimal v = value.add(d);
    return new Quantity(v, v.stripTrailingZeros().toPlainString());
  }

  /** Quantities are equal when their values are ({@code Quantity.Equal}). */
  @Override
  public boolean equals(Object o) {
    return o instanceof Quantity q && q.value.compareTo(value) == 0;
  }

  @Override
  public int hashCode() {
    return value.stripTrailingZeros().hashCode();
  }
}

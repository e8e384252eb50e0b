package io.mvproxy.node.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link GoDuration#parseStrict} against Go's {@code time.ParseDuration}: values, and errors with Go's texts. */
@Tag("unit")
class GoDurationTest {
  @Test
  void valuesAsGo() {
    Map<String, Long> nanos = Map.ofEntries(Map.entry("0", 0L), Map.entry("-0", 0L), Map.entry("+0", 0L),
        Map.entry("1ns", 1L), Map.entry("1.5h", 5_400_000_000_000L), Map.entry("1h30m", 5_400_000_000_000L),
        Map.entry("300ms", 300_000_000L), Map.entry("-2s", -2_000_000_000L), Map.entry(".5s", 500_000_000L),
        Map.entry("1.s", 1_000_000_000L), Map.entry("1us", 1_000L), Map.entry("1\u00b5s", 1_000L),
        Map.entry("1\u03bcs", 1_000L), Map.entry("2h45m0.5s", 9_900_500_000_000L),
        Map.entry("9223372036854775807ns", Long.MAX_VALUE), Map.entry("-9223372036854775808ns", Long.MIN_VALUE),
        Map.entry("0.000000001s", 1L), Map.entry("1.0000000001s", 1_000_000_000L));
    nanos.forEach((s, n) -> assertEquals(Duration.ofNanos(n), GoDuration.parseStrict(s), s));
  }

  @Test
  void errorsAsGo() {
    Map<String, String> bad = Map.ofEntries(
        Map.entry("", "time: invalid duration \"\""),
        Map.entry("-", "time: invalid duration \"-\""),
        Map.entry("bogus", "time: invalid duration \"bogus\""),
        Map.entry("1", "time: missing unit in duration \"1\""),
        Map.entry("10", "time: missing unit in duration \"10\""),
        Map.entry("1s2", "time: missing unit in duration \"1s2\""),
        Map.entry("5x", "time: unknown unit \"x\" in duration \"5x\""),
        Map.entry("1 s", "time: unknown unit \" s\" in duration \"1 s\""),
        Map.entry(".s", "time: invalid duration \".s\""),
        Map.entry("1..5s", "time: missing unit in duration \"1..5s\""),
        Map.entry("5\u00b5x", "time: unknown unit \"\\xc2\\xb5x\" in duration \"5\\xc2\\xb5x\""),
        Map.entry("\"1s\"", "time: invalid duration \"\\\"1s\\\"\""),
        Map.entry("9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\""),
        Map.entry("3000000h", "time: invalid duration \"3000000h\""));
    bad.forEach((s, m) -> assertEquals(m, assertThrows(IllegalArgumentException.class,
        () -> GoDuration.parseStrict(s)).getMessage(), s));
  }
}

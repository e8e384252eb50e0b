package io.mvproxy.registry.impl.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mvproxy.api.StatusException;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link GoParseInt} and {@link ListQuery} against Go's {@code strconv.ParseInt(s, 10, 64)} and the parameter codec. */
@Tag("unit")
class GoParseIntTest {
  @Test
  void valuesAndErrorsAsStrconv() {
    Map<String, Long> ok = Map.of("0", 0L, "-0", 0L, "+7", 7L, "-42", -42L, "9223372036854775807", Long.MAX_VALUE,
        "-9223372036854775808", Long.MIN_VALUE, "0012", 12L);
    ok.forEach((s, v) -> assertEquals(v, GoParseInt.parse(s), s));
    Map<String, String> bad = Map.of(
        "abc", "strconv.ParseInt: parsing \"abc\": invalid syntax",
        "", "strconv.ParseInt: parsing \"\": invalid syntax",
        "-", "strconv.ParseInt: parsing \"-\": invalid syntax",
        " 1", "strconv.ParseInt: parsing \" 1\": invalid syntax",
        "1_000", "strconv.ParseInt: parsing \"1_000\": invalid syntax",
        "0x10", "strconv.ParseInt: parsing \"0x10\": invalid syntax",
        "9223372036854775808", "strconv.ParseInt: parsing \"9223372036854775808\": value out of range",
        "-9223372036854775809", "strconv.ParseInt: parsing \"-9223372036854775809\": value out of range",
        "99999999999999999999x", "strconv.ParseInt: parsing \"99999999999999999999x\": value out of range",
        "1\n", "strconv.ParseInt: parsing \"1\\n\": invalid syntax");
    bad.forEach((s, m) -> assertEquals(m, assertThrows(IllegalArgumentException.class, () -> GoParseInt.parse(s))
        .getMessage(), s));
  }

  @Test
  void listQueryDecodesTimeoutSecondsThenLimit() {
    assertEquals(new ListQuery(null, 0), ListQuery.decode(Map.<String, String>of()::get));
    assertEquals(new ListQuery(30L, 5), ListQuery.decode(Map.of("timeoutSeconds", "30", "limit", "5")::get));
    StatusException e = assertThrows(StatusException.class,
        () -> ListQuery.decode(Map.of("timeoutSeconds", "abc", "limit", "x")::get));
    assertEquals(400, e.code());
    assertEquals("strconv.ParseInt: parsing \"abc\": invalid syntax", e.getMessage());
    assertEquals("strconv.ParseInt: parsing \"\": invalid syntax", assertThrows(StatusException.class,
        () -> ListQuery.decode(Map.of("limit", "")::get)).getMessage());
  }
}

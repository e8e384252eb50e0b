package io.mvproxy.api.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The versioner's ParseResourceVersion: values and strconv.ParseUint's error texts. */
@Tag("unit")
class ResourceVersionsTest {
  static String error(String rv) {
    return assertThrows(IllegalArgumentException.class, () -> ResourceVersions.parse(rv), rv).getMessage();
  }

  @Test
  void unsignedDecimalsAndGoTexts() {
    assertEquals(0, ResourceVersions.parse(null));
    assertEquals(0, ResourceVersions.parse(""));
    assertEquals(0, ResourceVersions.parse("0"));
    assertEquals(42, ResourceVersions.parse("42"));
    assertEquals(Long.MAX_VALUE, ResourceVersions.parse("18446744073709551615"), "a uint64 past int64: ahead");
    assertEquals("resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax",
        error("abc"));
    assertEquals("resourceVersion: Invalid value: \"-1\": strconv.ParseUint: parsing \"-1\": invalid syntax",
        error("-1"));
    assertEquals("resourceVersion: Invalid value: \"18446744073709551616\": strconv.ParseUint: parsing "
        + "\"18446744073709551616\": value out of range", error("18446744073709551616"));
    assertEquals("resourceVersion: Invalid value: \"a\\\"b\\x01\": strconv.ParseUint: parsing \"a\\\"b\\x01\": "
        + "invalid syntax", error("a\"b\u0001"));
  }
}

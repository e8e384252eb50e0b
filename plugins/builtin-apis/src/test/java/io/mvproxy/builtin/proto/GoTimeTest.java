package io.mvproxy.builtin.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link GoTime} against Go's {@code time.Parse(time.RFC3339, v)} and {@code time.Parse(metav1.RFC3339Micro, v)}, then
 * {@code metav1.Time} / {@code MicroTime} {@code MarshalJSON} ({@code UTC().Format(layout)}): each row a value, the
 * layout, and Go's output or Go's {@code ParseError} text.
 */
@Tag("unit")
class GoTimeTest {
  @ParameterizedTest(name = "{0} micro={1}")
  @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
      "2026-12-07T03:00:00Z|false|2026-12-07T03:00:00Z",
      // an offset is written in UTC; a fraction the layout does not show is read and dropped on output
      "2026-12-07T04:00:00+01:00|false|2026-12-07T03:00:00Z",
      "2026-12-07T04:00:00.987654321-02:30|false|2026-12-07T06:30:00Z",
      "2026-12-07T03:00:00,5Z|false|2026-12-07T03:00:00Z",
      // Go's parse takes a one-digit hour (getnum without fixed width)
      "2026-01-01T1:02:03Z|false|2026-01-01T01:02:03Z",
      "2024-02-29T23:59:59Z|false|2024-02-29T23:59:59Z",
      "2026-12-07T03:00:00.123456Z|true|2026-12-07T03:00:00.123456Z",
      "2026-12-07T04:00:00.000001+01:00|true|2026-12-07T03:00:00.000001Z",
      "bad|false|parsing time \"bad\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"bad\" as \"2006\"",
      "''|false|parsing time \"\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"2006\"",
      "2026-12-07 03:00:00Z|false|parsing time \"2026-12-07 03:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot "
          + "parse \" 03:00:00Z\" as \"T\"",
      "2026-12-07T03:00Z|false|parsing time \"2026-12-07T03:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
          + "\"Z\" as \":\"",
      "2026-12-7T03:00:00Z|false|parsing time \"2026-12-7T03:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot "
          + "parse \"7T03:00:00Z\" as \"02\"",
      "2026-12-07T03:00:00|false|parsing time \"2026-12-07T03:00:00\" as \"2006-01-02T15:04:05Z07:00\": cannot "
          + "parse \"\" as \"Z07:00\"",
      "2026-13-01T00:00:00Z|false|parsing time \"2026-13-01T00:00:00Z\": month out of range",
      "2026-02-29T00:00:00Z|false|parsing time \"2026-02-29T00:00:00Z\": day out of range",
      "2026-01-01T24:00:00Z|false|parsing time \"2026-01-01T24:00:00Z\": hour out of range",
      "2026-01-01T00:60:00Z|false|parsing time \"2026-01-01T00:60:00Z\": minute out of range",
      "2026-01-01T00:00:00Zjunk|false|parsing time \"2026-01-01T00:00:00Zjunk\": extra text: \"junk\"",
      // MicroTime needs exactly six fractional digits
      "2026-01-01T00:00:00Z|true|parsing time \"2026-01-01T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": "
          + "cannot parse \"Z\" as \".000000\"",
      "2026-01-01T00:00:00.123Z|true|parsing time \"2026-01-01T00:00:00.123Z\" as "
          + "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".123Z\" as \".000000\"",
      "2026-01-01T00:00:00.1234567Z|true|parsing time \"2026-01-01T00:00:00.1234567Z\" as "
          + "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"7Z\" as \"Z07:00\"",
      // a chunk that does not parse is shown from where the chunk began (parse's hold)
      "20x4-01-01T00:00:00Z|false|parsing time \"20x4-01-01T00:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot "
          + "parse \"20x4-01-01T00:00:00Z\" as \"2006\"",
      "2026-01-01T00:00:00.12x456Z|true|parsing time \"2026-01-01T00:00:00.12x456Z\" as "
          + "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".12x456Z\" as \".000000\"",
      "2026-01-01T00:00:24.5877+01:00|true|parsing time \"2026-01-01T00:00:24.5877+01:00\" as "
          + "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".5877+01:00\" as \".000000\"",
      // Go's atoi reads the six fraction characters: a sign is allowed, a negative fraction is out of range
      "2026-01-01T00:00:00.+12345Z|true|2026-01-01T00:00:00.012345Z",
      "2026-01-01T00:00:00.-12345Z|true|parsing time \"2026-01-01T00:00:00.-12345Z\": fractional second out of range",
      "2026-01-01T00:00:00+25:6x|false|parsing time \"2026-01-01T00:00:00+25:6x\": time zone offset hour out of range",
      "2026-01-01T00:00:00+01:00|false|2025-12-31T23:00:00Z",
      "2026-01-01T00:00:00é|false|parsing time \"2026-01-01T00:00:00\\xc3\\xa9\" as \"2006-01-02T15:04:05Z07:00\": "
          + "cannot parse \"\\xc3\\xa9\" as \"Z07:00\""})
  void parsesAsGo(String value, boolean micro, String expected) {
    String got;
    try {
      got = GoTime.format(GoTime.parse(value, micro), micro);
    } catch (GoTime.ParseException e) {
      got = e.getMessage();
    }
    assertEquals(expected, got);
  }
}

package io.mvproxy.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link GoStrings} against Go's {@code strconv.Quote} and {@code encoding/json quoteChar}. */
@Tag("unit")
class GoStringsTest {
  /** Code points, and what Go's {@code strconv.Quote} writes for each between the quotes. */
  @ParameterizedTest(name = "U+{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      0041  | A
      0020  | ` `
      0022  | \\"
      005C  | \\\\
      000A  | \\n
      0001  | \\x01
      007F  | \\x7f
      0085  | \\u0085
      00A0  | \\u00a0
      00AD  | \\u00ad
      00E9  | é
      2007  | \\u2007
      2028  | \\u2028
      200B  | \\u200b
      E000  | \\ue000
      0378  | \\u0378
      1F600 | 😀
      F0000 | \\U000f0000
      """)
  void quoteAsGo(String hex, String inner) {
    String s = new String(Character.toChars(Integer.parseInt(hex, 16)));
    assertEquals("\"" + inner + "\"", GoStrings.quote(s));
  }

  /** {@code quoteChar} of a byte: the rune of its value ({@code string(c)} in Go). */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      39  | '\\''
      34  | '"'
      120 | 'x'
      92  | '\\\\'
      1   | '\\x01'
      160 | '\\u00a0'
      226 | 'â'
      129 | '\\u0081'
      """)
  void quoteCharAsGo(int b, String expected) {
    assertEquals(expected, GoStrings.quoteChar(b));
  }
}

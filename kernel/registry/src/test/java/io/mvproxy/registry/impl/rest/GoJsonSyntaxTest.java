package io.mvproxy.registry.impl.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link GoJsonSyntax} against Go's {@code encoding/json} ({@code scanner.go}; the texts of its {@code
 * scanner_test.go} and {@code decode_test.go} syntax cases, and of kube-apiserver answers quoted upstream).
 */
@Tag("unit")
class GoJsonSyntaxTest {
  @ParameterizedTest(name = "[{index}] {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      ``                     | unexpected end of JSON input
      `   `                  | unexpected end of JSON input
      [2, 3                  | unexpected end of JSON input
      {"a":                  | unexpected end of JSON input
      {"X": "foo", "Y"}      | invalid character '}' after object key
      [1, 2, 3+]             | invalid character '+' after array element
      {"X":12x}              | invalid character 'x' after object key:value pair
      {"F3": -}              | invalid character '}' in numeric literal
      {]                     | invalid character ']' looking for beginning of object key string
      imastring!             | invalid character 'i' looking for beginning of value
      {"a":tru}              | invalid character '}' in literal true (expecting 'e')
      [nul]                  | invalid character ']' in literal null (expecting 'l')
      [fx]                   | invalid character 'x' in literal false (expecting 'a')
      1.                     | invalid character ' ' after decimal point in numeric literal
      1e                     | invalid character ' ' in exponent of numeric literal
      -                      | invalid character ' ' in numeric literal
      01                     | invalid character '1' after top-level value
      {"a":"b"}}             | invalid character '}' after top-level value
      {"a\\q":1}             | invalid character 'q' in string escape code
      "\\uZ"                 | invalid character 'Z' in \\u hexadecimal character escape
      'a'                    | invalid character '\\'' looking for beginning of value
      {"a" 1}                | invalid character '1' after object key
      [1,]                   | invalid character ']' looking for beginning of value
      {"a":1,}               | invalid character '}' looking for beginning of object key string
      \\x                    | invalid character '\\\\' looking for beginning of value
      """)
  void syntaxErrorsAsGo(String json, String expected) {
    assertEquals(expected, GoJsonSyntax.syntaxError((json == null ? "" : json).getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void bytesAreNamedAsGoQuotesThem() {
    assertEquals("invalid character '\\x01' looking for beginning of value",
        GoJsonSyntax.syntaxError(new byte[] {1, ' ', '4', '2'}));
    assertEquals("invalid character '\\x01' after top-level value",
        GoJsonSyntax.syntaxError(new byte[] {' ', '4', '2', ' ', 1}));
    assertEquals("invalid character '\\n' in string literal", GoJsonSyntax.syntaxError("\"a\nb\"".getBytes()));
    assertEquals("invalid character 'â' looking for beginning of value",
        GoJsonSyntax.syntaxError(new byte[] {(byte) 0xe2, (byte) 0x80, (byte) 0x9c}));
    assertEquals("'\\u00a0'", GoJsonSyntax.quoteChar(0xa0));
    assertEquals("'\\u0085'", GoJsonSyntax.quoteChar(0x85));
    assertEquals("'\\x7f'", GoJsonSyntax.quoteChar(0x7f));
    assertEquals("'\"'", GoJsonSyntax.quoteChar('"'));
  }

  @Test
  void validJsonHasNoSyntaxError() {
    for (String ok : new String[] {"{}", " {\"a\": [1, -0.5e+3, true, false, null, \"\\u00e9\\n\"]} ", "null", "0",
        "[]", "\"\"", "{\"a\":{\"b\":[[]]}}", "{\"\u00e9\":\"\u2603\"}"}) {
      assertNull(GoJsonSyntax.syntaxError(ok.getBytes(StandardCharsets.UTF_8)), ok);
    }
    assertEquals("invalid character '[' exceeded max depth",
        GoJsonSyntax.syntaxError("[".repeat(GoJsonSyntax.MAX_NESTING_DEPTH + 1).getBytes()));
    assertEquals("unexpected end of JSON input",
        GoJsonSyntax.syntaxError("[".repeat(GoJsonSyntax.MAX_NESTING_DEPTH).getBytes()));
  }

  /** Invalid UTF-8 inside a string is read as Go reads it: one U+FFFD per byte {@code utf8.DecodeRune} refuses. */
  @Test
  void invalidUtf8InStringsIsReadAsGoReadsIt() {
    byte[] body = {'{', '"', 'k', '"', ':', '"', (byte) 0xff, 'a', (byte) 0xe2, (byte) 0x82, '"', '}'};
    assertNull(GoJsonSyntax.syntaxError(body));
    Object v = StrictJson.decode(io.vertx.core.buffer.Buffer.buffer(body), null);
    assertEquals("\ufffda\ufffd\ufffd", ((io.vertx.core.json.JsonObject) v).getString("k"));
    byte[] valid = "{\"k\":\"é€\ud83d\ude00\"}".getBytes(StandardCharsets.UTF_8);
    assertEquals(valid, GoJsonSyntax.replaceInvalidUtf8(valid), "valid UTF-8: the same array");
    byte[] surrogate = {(byte) 0xed, (byte) 0xa0, (byte) 0x80};
    assertEquals("\ufffd\ufffd\ufffd", new String(GoJsonSyntax.replaceInvalidUtf8(surrogate), StandardCharsets.UTF_8));
  }

  /** apiserver's {@code transformDecodeError} over {@code Interpret}'s error, with {@code summarizeData}. */
  @Test
  void theAnswerOfACreate() {
    String prefix = "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; "
        + "json parse error: ";
    assertEquals(prefix + "unexpected end of JSON input ({\"a\":)",
        GoJsonSyntax.unrecognized("ConfigMap", "{\"a\":".getBytes()));
    assertEquals(prefix + "unexpected end of JSON input (<empty>)", GoJsonSyntax.unrecognized("ConfigMap",
        new byte[0]));
    assertEquals(prefix + "invalid character 'i' looking for beginning of value (696d61737472696e6721)",
        GoJsonSyntax.unrecognized("ConfigMap", "imastring!".getBytes()));
    assertEquals(prefix + "invalid character '}' after object key ({\"metadata\":{\"name\":\"c\",\"data\" ...)",
        GoJsonSyntax.unrecognized("ConfigMap", "{\"metadata\":{\"name\":\"c\",\"data\"}}".getBytes()));
    assertEquals(prefix + "json: cannot unmarshal array into Go value of type struct { APIVersion string "
        + "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" } (5b5d)",
        GoJsonSyntax.unrecognized("ConfigMap", "[]".getBytes()));
    assertEquals(prefix + "json: cannot unmarshal string into Go value of type " + GoJsonSyntax.FIND_KIND_TYPE
        + " (2278220a)", GoJsonSyntax.unrecognized("ConfigMap", "\"x\"\n".getBytes()));
    assertNull(GoJsonSyntax.unrecognized("ConfigMap", "{\"a\":1e999}".getBytes()), "valid JSON: another error");
    assertNull(GoJsonSyntax.unrecognized("ConfigMap", "null".getBytes()));
  }
}

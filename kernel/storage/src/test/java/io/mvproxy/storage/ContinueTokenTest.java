package io.mvproxy.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mvproxy.api.storage.StorageException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Continue tokens as {@code storage/continue.go}: the round trip, and bad tokens with Go's decoder texts. */
@Tag("unit")
class ContinueTokenTest {
  static String message(String token) {
    StorageException e = assertThrows(StorageException.class, () -> ContinueToken.decode(token), token);
    assertEquals(400, e.code());
    return e.getMessage();
  }

  static String b64(String s) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.ISO_8859_1));
  }

  @Test
  void roundTripAndGoTexts() {
    ContinueToken t = ContinueToken.decode(new ContinueToken(42, "ns1/w2").encode());
    assertEquals(42, t.resourceVersion());
    String p = "invalid continue token: continue key is not valid: ";
    // base64.RawURLEncoding: a character outside the URL alphabet (padding too), or one lone last character
    assertEquals(p + "illegal base64 data at input byte 0", message("%%"));
    assertEquals(p + "illegal base64 data at input byte 4", message("abcd=="));
    assertEquals(p + "illegal base64 data at input byte 4", message("abcde"));
    // encoding/json: what cannot begin a value, quoted as quoteChar
    assertEquals(p + "invalid character '\\u0081' looking for beginning of value", message(b64("\u0081{}")));
    assertEquals(p + "invalid character 'g' looking for beginning of value", message(b64(" garbage")));
    assertEquals(p + "invalid character '\\x01' looking for beginning of value", message(b64("\u0001")));
    assertEquals(p + "invalid character '\\'' looking for beginning of value", message(b64("'")));
    assertEquals(p + "unexpected end of JSON input", message(b64("  ")));
    assertEquals(p + "server does not recognize this encoded version \"v9\"",
        message(b64("{\"v\":\"v9\",\"rv\":1,\"start\":\"a\"}")));
  }
}

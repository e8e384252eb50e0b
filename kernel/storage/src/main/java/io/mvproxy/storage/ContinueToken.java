package io.mvproxy.storage;

import io.mvproxy.api.storage.StorageException;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * kube-apiserver's {@code continue} token ({@code apiserver/pkg/storage/continue.go}): base64 RawURL (no padding) of
 * {@code {"v":"meta.k8s.io/v1","rv":<int64>,"start":"<key after the list prefix>\u0000"}}. Every node mints and
 * accepts identical tokens, so any node serves the next page.
 *
 * @param resourceVersion the list's revision; -1 for "continue at the latest revision" (offered after compaction)
 * @param startKey        where the next page starts, relative to the list's key prefix
 */
public record ContinueToken(long resourceVersion, String startKey) {
  /** The only token version (continue.go). */
  public static final String VERSION = "meta.k8s.io/v1";

  /**
   * @param lastKey   the full key of the last item returned
   * @param keyPrefix the list's full key prefix (ends with {@code /})
   * @param rv        the list's revision
   * @return the token for the page after {@code lastKey} (EncodeContinue of {@code lastKey + "\u0000"})
   */
  public static String encode(String lastKey, String keyPrefix, long rv) {
    if (!lastKey.startsWith(keyPrefix)) {
      throw new IllegalArgumentException("unable to encode next field: the key and key prefix do not match");
    }
    return encodeStart(lastKey.substring(keyPrefix.length()) + "\u0000", rv);
  }

  /** @return the token text for a relative start key and revision */
  static String encodeStart(String start, long rv) {
    String json = new JsonObject().put("v", VERSION).put("rv", rv).put("start", start).encode();
    return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  /** @return this token's text */
  public String encode() {
    return encodeStart(startKey, resourceVersion);
  }

  /**
   * DecodeContinue with its validation; every failure is 400 {@code invalid continue token: <detail>}.
   *
   * @param token the request's {@code continue}
   * @return the decoded token; {@link #resourceVersion()} is -1 or positive
   * @throws StorageException 400 when malformed or tampered with
   */
  public static ContinueToken decode(String token) {
    JsonObject n;
    int bad = illegalBase64At(token);
    if (bad >= 0) {
      throw invalid("continue key is not valid: illegal base64 data at input byte " + bad);
    }
    byte[] data = Base64.getUrlDecoder().decode(token);
    String syntax = jsonStartError(data);
    if (syntax != null) {
      throw invalid("continue key is not valid: " + syntax);
    }
    try {
      n = new JsonObject(new String(data, StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      String m = String.valueOf(e.getMessage()).replaceAll("(?s)\\s*at \\[Source.*", "");
      throw invalid("continue key is not valid: " + m);
    }
    String v = n.getValue("v") instanceof String s ? s : "";
    if (!VERSION.equals(v)) {
      throw invalid("continue key is not valid: server does not recognize this encoded version \"" + v + "\"");
    }
    Object rvNode = n.getValue("rv");
    long rv = rvNode instanceof Integer || rvNode instanceof Long ? ((Number) rvNode).longValue() : 0;
    if (rv == 0 || rv < -1) {
      throw invalid("incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
    }
    String start = n.getValue("start") instanceof String s ? s : "";
    if (start.isEmpty()) {
      throw invalid("encoded start key empty (version meta.k8s.io/v1)");
    }
    String key = start.startsWith("/") ? start : "/" + start;
    if (!clean(key).equals(key)) {
      throw invalid("continue key is not valid: " + start);
    }
    return new ContinueToken(rv, key.substring(1));
  }

  /**
   * @return the input byte Go's {@code base64.RawURLEncoding.DecodeString} stops at (a character outside the URL
   *     alphabet, padding included, or a lone last character), or -1 when it decodes
   */
  static int illegalBase64At(String token) {
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
        return i;
      }
    }
    return token.length() % 4 == 1 ? token.length() - 1 : -1;
  }

  /**
   * @return Go's {@code encoding/json} error when the decoded token cannot start a JSON value ({@code unexpected end
   *     of JSON input}, {@code invalid character 'x' looking for beginning of value}), else null
   */
  static String jsonStartError(byte[] data) {
    int i = 0;
    while (i < data.length && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r')) {
      i++;
    }
    if (i == data.length) {
      return "unexpected end of JSON input";
    }
    int c = data[i] & 0xff;
    if ("{[\"-0123456789tfn".indexOf(c) >= 0) {
      return null;
    }
    return "invalid character " + io.mvproxy.api.GoStrings.quoteChar(c) + " looking for beginning of value";
  }

  private static StorageException invalid(String detail) {
    return StorageException.badRequest("invalid continue token: " + detail);
  }

  /** Go's {@code path.Clean} for absolute paths: removes empty and {@code .} segments, resolves {@code ..}. */
  static String clean(String p) {
    java.util.ArrayDeque<String> out = new java.util.ArrayDeque<>();
    for (String seg : p.split("/")) {
      if (seg.isEmpty() || seg.equals(".")) {
        continue;
      }
      if (seg.equals("..")) {
        out.pollLast();
      } else {
        out.addLast(seg);
      }
    }
    return "/" + String.join("/", out);
  }
}

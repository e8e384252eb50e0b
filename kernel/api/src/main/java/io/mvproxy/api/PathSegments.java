package io.mvproxy.api;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * URL path decoding and path-segment name rules as kube-apiserver applies them: the path is percent-decoded before
 * it is split on {@code /} (Go's {@code URL.Path}, so {@code ..%2F..%2Fx} becomes three segments), and a name used
 * as a path segment may not be {@code .} or {@code ..} nor contain {@code /} or {@code %}
 * (apimachinery {@code pkg/api/validation/path/name.go IsValidPathSegmentName}).
 */
public final class PathSegments {
  private PathSegments() {
  }

  /**
   * @param rawPath the request path as sent (no query)
   * @return the percent-decoded path ({@code +} stays {@code +}, as in Go)
   * @throws StatusException 400 BadRequest for a malformed escape or bytes that are not UTF-8
   */
  public static String decode(String rawPath) {
    if (rawPath.indexOf('%') < 0) {
      return rawPath;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(rawPath.length());
    byte[] in = rawPath.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < in.length; i++) {
      byte b = in[i];
      if (b == '%') {
        int hi = i + 2 < in.length ? Character.digit(in[i + 1], 16) : -1;
        int lo = hi >= 0 ? Character.digit(in[i + 2], 16) : -1;
        if (hi < 0 || lo < 0) {
          throw StatusException.badRequest("invalid URL escape \"" + rawPath.substring(Math.min(i, rawPath.length()),
              Math.min(i + 3, rawPath.length())) + "\"");
        }
        out.write(hi * 16 + lo);
        i += 2;
      } else {
        out.write(b);
      }
    }
    byte[] bytes = out.toByteArray();
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw StatusException.badRequest("invalid URL: the path is not UTF-8");
    }
  }

  /**
   * @param name a name used as a path segment
   * @return the problems, empty when valid ({@code may not be '..'}, {@code may not contain '/'}, ...)
   */
  public static List<String> problems(String name) {
    List<String> out = new ArrayList<>();
    for (String bad : new String[] {".", ".."}) {
      if (name.equals(bad)) {
        out.add("may not be '" + bad + "'");
        return out;
      }
    }
    for (String bad : new String[] {"/", "%"}) {
      if (name.contains(bad)) {
        out.add("may not contain '" + bad + "'");
      }
    }
    return out;
  }
}

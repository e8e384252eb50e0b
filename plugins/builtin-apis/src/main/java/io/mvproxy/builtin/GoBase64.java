package io.mvproxy.builtin;

import java.io.ByteArrayOutputStream;

/**
 * Go's {@code base64.StdEncoding.Decode} (padded standard alphabet; {@code \r} and {@code \n} skipped anywhere), as
 * {@code encoding/json} applies it to a {@code []byte} field such as a Secret's {@code data} values, with Go's error
 * offsets ({@code encoding/base64 decodeQuantum}).
 */
final class GoBase64 {
  private static final byte[] DECODE = new byte[256];

  static {
    java.util.Arrays.fill(DECODE, (byte) -1);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < alphabet.length(); i++) {
      DECODE[alphabet.charAt(i)] = (byte) i;
    }
  }

  private GoBase64() {
  }

  /**
   * Reads {@code holder[field]} as Go's typed decoder reads a {@code []byte} field with {@code omitempty} (a
   * {@code caBundle}): an empty string is left out, any other string is written back as canonical base64.
   *
   * @param req    the request (its kind names the decoding error)
   * @param holder the object holding the field
   * @param field  the field's name
   * @throws io.mvproxy.api.StatusException 400 {@code <Kind> in version "v1" cannot be handled as a <Kind>: illegal
   *     base64 data at input byte N}
   */
  static void readOmitEmptyBytes(io.mvproxy.registry.impl.rest.CrdRequest req, io.vertx.core.json.JsonObject holder,
                                 String field) {
    if (!(holder.getValue(field) instanceof String text)) {
      return;
    }
    if (text.isEmpty()) {
      holder.remove(field);
      return;
    }
    try {
      holder.put(field, java.util.Base64.getEncoder().encodeToString(decode(
          text.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    } catch (IllegalArgumentException e) {
      throw io.mvproxy.registry.impl.rest.ObjectRules.decodeError(req, e.getMessage());
    }
  }

  /**
   * @param src the encoded bytes
   * @return the decoded bytes
   * @throws IllegalArgumentException {@code illegal base64 data at input byte N} (Go's {@code CorruptInputError})
   */
  static byte[] decode(byte[] src) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(src.length * 3 / 4);
    int si = 0;
    while (si < src.length) {
      int[] dbuf = new int[4];
      int dlen = 4;
      boolean end = false;
      for (int j = 0; j < 4; j++) {
        if (si == src.length) {
          if (j == 0) {
            return out.toByteArray();
          }
          throw corrupt(si - j); // StdEncoding is padded: a short final quantum is an error
        }
        int in = src[si] & 0xff;
        si++;
        int v = DECODE[in];
        if (v >= 0) {
          dbuf[j] = v;
          continue;
        }
        if (in == '\n' || in == '\r') {
          j--;
          continue;
        }
        if (in != '=') {
          throw corrupt(si - 1);
        }
        switch (j) {
          case 0, 1 -> throw corrupt(si - 1);
          case 2 -> {
            while (si < src.length && (src[si] == '\n' || src[si] == '\r')) {
              si++;
            }
            if (si == src.length) {
              throw corrupt(src.length);
            }
            if (src[si] != '=') {
              throw corrupt(si - 1);
            }
            si++;
          }
          default -> {
          }
        }
        while (si < src.length && (src[si] == '\n' || src[si] == '\r')) {
          si++;
        }
        if (si < src.length) {
          throw corrupt(si);
        }
        dlen = j;
        end = true;
        break;
      }
      int val = dbuf[0] << 18 | dbuf[1] << 12 | dbuf[2] << 6 | dbuf[3];
      out.write((val >> 16) & 0xff);
      if (dlen >= 3) {
        out.write((val >> 8) & 0xff);
      }
      if (dlen == 4) {
        out.write(val & 0xff);
      }
      if (end) {
        break;
      }
    }
    return out.toByteArray();
  }

  private static IllegalArgumentException corrupt(int offset) {
    return new IllegalArgumentException("illegal base64 data at input byte " + offset);
  }
}

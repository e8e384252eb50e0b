package io.mvproxy.openapi;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A test-only protobuf wire-format reader: the length-delimited and varint fields of one message. */
final class ProtoReader {
  /** One field: number, wire type, and its bytes (length-delimited) or value (varint). */
  record Field(int number, int wireType, byte[] bytes, long value) {
    String string() {
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  private ProtoReader() {
  }

  /** @return the fields of a message, in order; throws on malformed input */
  static List<Field> fields(byte[] b) {
    List<Field> out = new ArrayList<>();
    int[] pos = {0};
    while (pos[0] < b.length) {
      long key = varint(b, pos);
      int number = (int) (key >>> 3);
      int type = (int) (key & 7);
      switch (type) {
        case 0 -> out.add(new Field(number, type, null, varint(b, pos)));
        case 1 -> {
          pos[0] += 8;
          out.add(new Field(number, type, null, 0));
        }
        case 2 -> {
          int len = (int) varint(b, pos);
          if (len < 0 || pos[0] + len > b.length) {
            throw new IllegalArgumentException("bad length " + len + " at " + pos[0]);
          }
          byte[] v = new byte[len];
          System.arraycopy(b, pos[0], v, 0, len);
          pos[0] += len;
          out.add(new Field(number, type, v, 0));
        }
        default -> throw new IllegalArgumentException("wire type " + type + " at " + pos[0]);
      }
      if (number <= 0) {
        throw new IllegalArgumentException("field number " + number);
      }
    }
    return out;
  }

  /** @return the fields numbered {@code n} */
  static List<Field> all(byte[] b, int n) {
    return fields(b).stream().filter(f -> f.number() == n).toList();
  }

  private static long varint(byte[] b, int[] pos) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte x = b[pos[0]++];
      v |= (long) (x & 0x7F) << shift;
      if ((x & 0x80) == 0) {
        return v;
      }
    }
    throw new IllegalArgumentException("varint too long");
  }
}

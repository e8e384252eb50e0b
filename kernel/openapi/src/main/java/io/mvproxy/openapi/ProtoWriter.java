package io.mvproxy.openapi;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A minimal protocol-buffers (proto3) wire-format writer: varints, 64-bit doubles and length-delimited fields, with
 * proto3 defaults (empty string, false, 0) omitted. Not thread-safe; one instance per message being built.
 */
final class ProtoWriter {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  /** @return the bytes written so far */
  byte[] toByteArray() {
    return out.toByteArray();
  }

  private void varint(long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  private void tag(int field, int wireType) {
    varint(((long) field << 3) | wireType);
  }

  /** Writes a non-empty string field. */
  ProtoWriter string(int field, String s) {
    if (s != null && !s.isEmpty()) {
      bytes(field, s.getBytes(StandardCharsets.UTF_8));
    }
    return this;
  }

  /** Writes a length-delimited field, even when empty (embedded messages and repeated strings). */
  ProtoWriter bytes(int field, byte[] b) {
    tag(field, 2);
    varint(b.length);
    out.write(b, 0, b.length);
    return this;
  }

  /** Writes a repeated-string element, even when empty. */
  ProtoWriter repeatedString(int field, String s) {
    return bytes(field, s.getBytes(StandardCharsets.UTF_8));
  }

  /** Writes an embedded message field (always present once written, like a non-nil Go pointer). */
  ProtoWriter message(int field, ProtoWriter m) {
    return bytes(field, m.toByteArray());
  }

  /** Writes a true bool field (false is the default and omitted). */
  ProtoWriter bool(int field, boolean b) {
    if (b) {
      tag(field, 0);
      varint(1);
    }
    return this;
  }

  /** Writes a bool inside a oneof, where false must be present too. */
  ProtoWriter oneofBool(int field, boolean b) {
    tag(field, 0);
    varint(b ? 1 : 0);
    return this;
  }

  /** Writes a non-zero int64 field. */
  ProtoWriter int64(int field, long v) {
    if (v != 0) {
      tag(field, 0);
      varint(v);
    }
    return this;
  }

  /** Writes a non-zero double field. */
  ProtoWriter dbl(int field, double v) {
    if (v != 0) {
      tag(field, 1);
      long bits = Double.doubleToRawLongBits(v);
      for (int i = 0; i < 8; i++) {
        out.write((int) (bits >>> (8 * i)) & 0xFF);
      }
    }
    return this;
  }
}

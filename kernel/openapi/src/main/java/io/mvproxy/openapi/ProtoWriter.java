package io.mvproxy.openapi;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A proto3 message being built field by field with protobuf-java's {@link CodedOutputStream} (the wire format is the
 * library's; this class only applies proto3's presence rules: empty strings, false and 0 are omitted, as Go's
 * generated marshalers do). Not thread-safe; one instance per message being built.
 */
final class ProtoWriter {
  private final ByteString.Output out = ByteString.newOutput();
  private final CodedOutputStream coded = CodedOutputStream.newInstance(out);

  /** @return the bytes written so far */
  byte[] toByteArray() {
    flush();
    return out.toByteString().toByteArray();
  }

  private void flush() {
    try {
      coded.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs one write, which on a {@link ByteString.Output} cannot fail. */
  private ProtoWriter write(IoWrite w) {
    try {
      w.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  private interface IoWrite {
    void run() throws IOException;
  }

  /** Writes a non-empty string field. */
  ProtoWriter string(int field, String s) {
    return s == null || s.isEmpty() ? this : write(() -> coded.writeString(field, s));
  }

  /** Writes a length-delimited field, even when empty (embedded messages and repeated strings). */
  ProtoWriter bytes(int field, byte[] b) {
    return write(() -> coded.writeByteArray(field, b));
  }

  /** Writes a repeated-string element, even when empty. */
  ProtoWriter repeatedString(int field, String s) {
    return write(() -> coded.writeString(field, s));
  }

  /** Writes an embedded message field (always present once written, like a non-nil Go pointer). */
  ProtoWriter message(int field, ProtoWriter m) {
    return bytes(field, m.toByteArray());
  }

  /** Writes a true bool field (false is the default and omitted). */
  ProtoWriter bool(int field, boolean b) {
    return b ? write(() -> coded.writeBool(field, true)) : this;
  }

  /** Writes a bool inside a oneof, where false must be present too. */
  ProtoWriter oneofBool(int field, boolean b) {
    return write(() -> coded.writeBool(field, b));
  }

  /** Writes a non-zero int64 field. */
  ProtoWriter int64(int field, long v) {
    return v == 0 ? this : write(() -> coded.writeInt64(field, v));
  }

  /** Writes a non-zero double field. */
  ProtoWriter dbl(int field, double v) {
    return v == 0 ? this : write(() -> coded.writeDouble(field, v));
  }
}

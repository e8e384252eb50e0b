package io.mvproxy.builtin.proto;

/**
 * One field of a Kubernetes protobuf message ({@code generated.proto} of k8s.io/api and apimachinery).
 *
 * @param number   the field number
 * @param json     the JSON name
 * @param type     how the value is encoded
 * @param message  the message name for {@link Type#MESSAGE} and {@link Type#MAP_MESSAGE} values, else null
 * @param repeated true for repeated fields (JSON arrays)
 */
public record ProtoField(int number, String json, Type type, String message, boolean repeated) {
  /** Wire encodings and their JSON forms. */
  public enum Type {
    /** string. */
    STRING,
    /** bytes as base64 (JSON {@code []byte}). */
    BYTES,
    /** varint as a JSON number. */
    INT,
    /** varint 0/1 as a JSON boolean. */
    BOOL,
    /** a nested message. */
    MESSAGE,
    /** metav1.Time {seconds, nanos} as RFC 3339 with second precision. */
    TIME,
    /** metav1.MicroTime as RFC 3339 with 6 fractional digits. */
    MICROTIME,
    /** map&lt;string,string&gt;. */
    MAP_STRING,
    /** map&lt;string,bytes&gt; (base64 values). */
    MAP_BYTES,
    /** map&lt;string,message&gt;. */
    MAP_MESSAGE,
    /** metav1.FieldsV1 {raw} as the JSON object it holds. */
    RAW_JSON,
    /** authorization ExtraValue {items} as a JSON array (map values). */
    STRINGS_WRAPPER
  }

  static ProtoField of(int number, String json, Type type) {
    return new ProtoField(number, json, type, null, false);
  }

  static ProtoField list(int number, String json, Type type) {
    return new ProtoField(number, json, type, null, true);
  }

  static ProtoField msg(int number, String json, String message) {
    return new ProtoField(number, json, Type.MESSAGE, message, false);
  }

  static ProtoField msgs(int number, String json, String message) {
    return new ProtoField(number, json, Type.MESSAGE, message, true);
  }
}

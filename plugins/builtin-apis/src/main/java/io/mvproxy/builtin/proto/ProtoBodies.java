package io.mvproxy.builtin.proto;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

/**
 * Decodes a Kubernetes protobuf body ({@code staging/src/k8s.io/apimachinery/pkg/runtime/serializer/protobuf}):
 * the 4-byte magic {@code k8s\0}, then a {@code runtime.Unknown} {typeMeta {apiVersion, kind}, raw,
 * contentEncoding, contentType} whose {@code raw} is the object's message. The result is the object's JSON form
 * ({@code apiVersion}, {@code kind} and the known fields; Time as RFC 3339, bytes as base64).
 */
public final class ProtoBodies {
  /** The protobuf media type of kube-apiserver. */
  public static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
  private static final byte[] MAGIC = {'k', '8', 's', 0};

  private ProtoBodies() {
  }

  /**
   * @param contentType a request's Content-Type, or null
   * @return true for {@code application/vnd.kubernetes.protobuf} (parameters ignored)
   */
  public static boolean isProtobuf(String contentType) {
    return contentType != null && contentType.toLowerCase().startsWith(MEDIA_TYPE);
  }

  /**
   * @param body the request body
   * @return the object as JSON
   * @throws StatusException 400 when the body is not a Kubernetes protobuf envelope; 415 UnsupportedMediaType
   *     when its kind is not one mvproxy decodes
   */
  public static JsonObject decode(byte[] body) {
    if (body.length < 4 || body[0] != MAGIC[0] || body[1] != MAGIC[1] || body[2] != MAGIC[2] || body[3] != MAGIC[3]) {
      throw StatusException.badRequest("provided data does not appear to be a protobuf message, expected prefix "
          + "[107 56 115 0]");
    }
    try {
      CodedInputStream in = CodedInputStream.newInstance(body, 4, body.length - 4);
      String apiVersion = "";
      String kind = "";
      byte[] raw = new byte[0];
      while (!in.isAtEnd()) {
        int tag = in.readTag();
        switch (WireFormat.getTagFieldNumber(tag)) {
          case 1 -> {
            CodedInputStream tm = CodedInputStream.newInstance(in.readByteArray());
            while (!tm.isAtEnd()) {
              int t = tm.readTag();
              switch (WireFormat.getTagFieldNumber(t)) {
                case 1 -> apiVersion = tm.readString();
                case 2 -> kind = tm.readString();
                default -> tm.skipField(t);
              }
            }
          }
          case 2 -> raw = in.readByteArray();
          default -> in.skipField(tag);
        }
      }
      String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
      String message = ProtoSchemas.kind(group, kind);
      if (message == null) {
        throw new StatusException(StatusReason.UnsupportedMediaType, "the body of the request was in an unknown "
            + "format - accepted media types include: application/json, application/yaml", null);
      }
      JsonObject out = new JsonObject().put("kind", kind).put("apiVersion", apiVersion);
      return out.mergeIn(message(raw, message));
    } catch (IOException e) {
      throw StatusException.badRequest("unable to decode the protobuf body: " + e.getMessage());
    }
  }

  private static JsonObject message(byte[] bytes, String name) throws IOException {
    List<ProtoField> fields = ProtoSchemas.message(name);
    JsonObject out = new JsonObject();
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      ProtoField f = find(fields, WireFormat.getTagFieldNumber(tag));
      if (f == null) {
        in.skipField(tag);
        continue;
      }
      Object value = switch (f.type()) {
        case STRING -> in.readString();
        case BYTES -> Base64.getEncoder().encodeToString(in.readByteArray());
        case INT -> in.readInt64();
        case BOOL -> in.readBool();
        case MESSAGE -> message(in.readByteArray(), f.message());
        case TIME -> time(in.readByteArray(), false);
        case MICROTIME -> time(in.readByteArray(), true);
        case RAW_JSON -> new JsonObject(new String(in.readByteArray(), java.nio.charset.StandardCharsets.UTF_8));
        case STRINGS_WRAPPER -> message(in.readByteArray(), f.message()).getJsonArray("items", new JsonArray());
        case MAP_STRING, MAP_BYTES, MAP_MESSAGE -> {
          mapEntry(in.readByteArray(), f, out.getJsonObject(f.json()) == null
              ? putAndGet(out, f.json()) : out.getJsonObject(f.json()));
          yield null;
        }
      };
      if (value == null) {
        continue;
      }
      if (f.json().isEmpty() && value instanceof JsonObject j) {
        return j; // FieldsV1: the message is its raw JSON
      }
      if (f.repeated()) {
        JsonArray a = out.getJsonArray(f.json());
        if (a == null) {
          a = new JsonArray();
          out.put(f.json(), a);
        }
        a.add(value);
      } else if (("".equals(value) || Long.valueOf(0).equals(value))
          && ProtoSchemas.omitEmpty(name).contains(f.json())) {
        out.remove(f.json());  // Go's zero value of an omitempty field: kube-apiserver never shows it
      } else {
        out.put(f.json(), value);
      }
    }
    return out;
  }

  private static JsonObject putAndGet(JsonObject out, String key) {
    JsonObject m = new JsonObject();
    out.put(key, m);
    return m;
  }

  private static void mapEntry(byte[] bytes, ProtoField f, JsonObject map) throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    String key = "";
    Object value = null;
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> key = in.readString();
        case 2 -> value = switch (f.type()) {
          case MAP_STRING -> in.readString();
          case MAP_BYTES -> Base64.getEncoder().encodeToString(in.readByteArray());
          default -> message(in.readByteArray(), f.message()).getJsonArray("items", new JsonArray());
        };
        default -> in.skipField(tag);
      }
    }
    map.put(key, value == null ? (f.type() == ProtoField.Type.MAP_MESSAGE ? new JsonArray() : "") : value);
  }

  /** @return the time, or null for an empty message (Go writes a zero {@code metav1.Time} so: JSON {@code null}) */
  private static String time(byte[] bytes, boolean micro) throws IOException {
    if (bytes.length == 0) {
      return null;
    }
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    long seconds = 0;
    int nanos = 0;
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> seconds = in.readInt64();
        case 2 -> nanos = in.readInt32();
        default -> in.skipField(tag);
      }
    }
    return GoTime.format(Instant.ofEpochSecond(seconds, nanos), micro);
  }

  private static ProtoField find(List<ProtoField> fields, int number) {
    for (ProtoField f : fields) {
      if (f.number() == number) {
        return f;
      }
    }
    return null;
  }
}

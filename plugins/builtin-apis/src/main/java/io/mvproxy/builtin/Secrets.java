package io.mvproxy.builtin;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectRules;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Secrets as {@code pkg/registry/core/secret/strategy.go} and {@code pkg/apis/core/v1/conversion.go} treat them:
 * {@code type} defaults to {@code Opaque} and is immutable; the write-only {@code stringData} is merged over
 * {@code data} (base64) and never stored or returned; {@code data} must be base64 ({@link #decodeBody}).
 */
public final class Secrets implements ObjectStrategy {
  private static final Gvr SECRETS = new Gvr("", "v1", "secrets");

  /** Secrets are selectable by {@code type} ({@code SelectableFields} in the secret strategy). */
  /** @return {@code v1.SecretType} for {@code type} (a named Go string type), else null (from the schema) */
  @Override
  public String goTypeName(String field) {
    return "type".equals(field) ? "v1.SecretType" : null;
  }

  @Override
  public java.util.Map<String, String> selectableFields() {
    return java.util.Map.of("type", "type");
  }

  /**
   * The typed decoder's reading of {@code data} ({@code map[string][]byte}): each string value is base64
   * ({@link GoBase64}) and comes back in canonical form (padded, no line breaks), as a decoded and re-encoded
   * {@code []byte}.
   *
   * @throws io.mvproxy.api.StatusException 400 {@code Secret in version "v1" cannot be handled as a Secret: illegal
   *     base64 data at input byte 0}
   */
  @Override
  public JsonObject decodeBody(CrdRequest req, JsonObject obj) {
    return decodeBytes(req, obj, "data");
  }

  /**
   * Reads a {@code map[string][]byte} field as Go's typed decoder does: each string value is base64
   * ({@link GoBase64}; {@code ""} is an empty value) and comes back in canonical form.
   *
   * @param req   the request
   * @param obj   the decoded body (changed in place and returned)
   * @param field the map's field ({@code data} of a Secret, {@code binaryData} of a ConfigMap)
   * @return {@code obj}
   * @throws io.mvproxy.api.StatusException 400 {@code <Kind> in version "v1" cannot be handled as a <Kind>: illegal
   *     base64 data at input byte N}
   */
  static JsonObject decodeBytes(CrdRequest req, JsonObject obj, String field) {
    if (obj.getValue(field) instanceof JsonObject data) {
      for (String k : data.fieldNames()) {
        if (data.getValue(k) instanceof String v) {
          try {
            data.put(k, Base64.getEncoder().encodeToString(GoBase64.decode(v.getBytes(StandardCharsets.UTF_8))));
          } catch (IllegalArgumentException e) {
            throw ObjectRules.decodeError(req, e.getMessage());
          }
        }
      }
    }
    return obj;
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    if (obj.getString("type", "").isEmpty()) {
      obj.put("type", "Opaque");
    }
    return mergeStringData(obj);
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    if (next.getString("type", "").isEmpty()) {
      next.put("type", old.getString("type", "Opaque"));
    }
    if (!next.getString("type").equals(old.getString("type", "Opaque"))) {
      String name = next.getJsonObject("metadata").getString("name", "");
      throw StatusException.invalid(SECRETS, "Secret", name, new JsonArray().add(new JsonObject()
          .put("reason", "FieldValueInvalid").put("field", "type")
          .put("message", "Invalid value: " + io.mvproxy.api.GoStrings.quote(next.getString("type"))
              + ": field is immutable")));
    }
    return mergeStringData(next);
  }

  private static JsonObject mergeStringData(JsonObject obj) {
    JsonObject sd = obj.getJsonObject("stringData");
    if (sd != null) {
      JsonObject data = obj.getJsonObject("data");
      if (data == null) {
        data = new JsonObject();
        obj.put("data", data);
      }
      for (String k : sd.fieldNames()) {
        data.put(k, Base64.getEncoder().encodeToString(String.valueOf(sd.getValue(k)).getBytes(StandardCharsets.UTF_8)));
      }
      obj.remove("stringData");
    }
    return obj;
  }
}

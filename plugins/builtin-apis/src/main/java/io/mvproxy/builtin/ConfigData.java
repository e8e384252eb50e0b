package io.mvproxy.builtin;

import io.mvproxy.api.GoStrings;
import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The data rules of ConfigMaps and Secrets ({@code pkg/apis/core/validation/validation.go ValidateConfigMap},
 * {@code ValidateSecret}, {@code ValidateConfigMapUpdate}): keys match {@code [-._a-zA-Z0-9]+}, at most 253
 * characters, not {@code .}/{@code ..} nor starting with {@code ..}; a ConfigMap key may not be in both
 * {@code data} and {@code binaryData}; the values total at most 1 MiB; once {@code immutable} is true, the data and
 * {@code immutable} cannot change. Violations are 422 Invalid with one cause each.
 */
final class ConfigData implements ObjectStrategy {
  /** 1 MiB: {@code core.MaxSecretSize}, and the ConfigMap limit. */
  static final int MAX_BYTES = 1024 * 1024;
  private static final Pattern KEY = Pattern.compile("[-._a-zA-Z0-9]+");

  private final boolean secret;

  /** @param secret true for Secrets (base64 values in {@code data}), false for ConfigMaps */
  ConfigData(boolean secret) {
    this.secret = secret;
  }

  /** @return true: {@code ValidateConfigMapUpdate} / {@code ValidateSecretUpdate} validate the whole object again */
  @Override
  public boolean validatesMetaOnUpdate() {
    return true;
  }

  /**
   * A ConfigMap's {@code binaryData} as Go's typed decoder reads it ({@link Secrets#decodeBytes}; a Secret's
   * {@code data} is read by {@link Secrets}).
   *
   * @throws StatusException 400 {@code ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64
   *     data at input byte N}
   */
  @Override
  public JsonObject decodeBody(CrdRequest req, JsonObject obj) {
    return secret ? obj : Secrets.decodeBytes(req, obj, "binaryData");
  }

  /** @return true: core's {@code ValidateObjectMeta} checks this kind's finalizer names */
  @Override
  public boolean kubeFinalizerNames() {
    return true;
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    omitEmpty(obj);
    validate(req, obj, null);
    return obj;
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    omitEmpty(next);
    validate(req, next, old);
    return next;
  }

  /**
   * Drops an empty {@code data} or {@code binaryData} ({@code omitempty} maps of the Go types: never written, so an
   * object whose last key was removed reads back without the field, as from kube-apiserver).
   */
  private static void omitEmpty(JsonObject obj) {
    for (String f : new String[] {"data", "binaryData"}) {
      if (obj.getValue(f) instanceof JsonObject m && m.isEmpty()) {
        obj.remove(f);
      }
    }
  }

  /** The same checks as a write's, on a copy ({@link ObjectStrategy#violations}). */
  @Override
  public JsonArray violations(CrdRequest req, JsonObject obj, JsonObject oldView) {
    return causes(obj.copy(), oldView);
  }

  private void validate(CrdRequest req, JsonObject obj, JsonObject old) {
    JsonArray causes = causes(obj, old);
    if (!causes.isEmpty()) {
      throw StatusException.invalid(req.gvr(), req.crd().kind(),
          obj.getJsonObject("metadata", new JsonObject()).getString("name", ""), causes);
    }
  }

  /**
   * {@code ValidateConfigMap} / {@code ValidateSecret} past the metadata (keys, duplicates, size, immutability);
   * re-encodes a {@code []byte} value of {@code obj} as Go stores it.
   */
  private JsonArray causes(JsonObject obj, JsonObject old) {
    JsonArray causes = new JsonArray();
    List<String> maps = secret ? List.of("data") : List.of("data", "binaryData");
    long size = 0;
    for (String m : maps) {
      JsonObject data = obj.getJsonObject(m);
      if (data == null) {
        continue;
      }
      for (String k : data.fieldNames()) {
        if (k.length() > 253 || !KEY.matcher(k).matches() || k.equals(".") || k.equals("..") || k.startsWith("..")) {
          causes.add(cause("FieldValueInvalid", m + "[" + k + "]", "Invalid value: " + GoStrings.quote(k)
              + ": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
              + "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
        }
        if ("binaryData".equals(m) && obj.getJsonObject("data", new JsonObject()).containsKey(k)) {
          causes.add(cause("FieldValueInvalid", "binaryData[" + k + "]", "Invalid value: " + GoStrings.quote(k)
              + ": duplicate of key present in data"));
        }
        String v = String.valueOf(data.getValue(k));
        boolean bytes = secret || "binaryData".equals(m);
        long decoded = -1;
        if (bytes && data.getValue(k) instanceof String b64) {
          // a patch's result is not read by decodeBody: a []byte value that Go could not decode is refused here
          try {
            byte[] raw = GoBase64.decode(b64.getBytes(StandardCharsets.UTF_8));
            // stored as Go re-encodes a decoded []byte (padded, no line breaks), as decodeBody does for bodies
            data.put(k, Base64.getEncoder().encodeToString(raw));
            decoded = raw.length;
          } catch (IllegalArgumentException e) {
            causes.add(cause("FieldValueInvalid", m + "[" + k + "]", "Invalid value: " + GoStrings.quote(b64) + ": "
                + e.getMessage()));
          }
        }
        size += decoded >= 0 ? decoded : bytes ? decodedLength(v) : v.getBytes(StandardCharsets.UTF_8).length;
      }
    }
    if (size > MAX_BYTES) {
      causes.add(cause("FieldValueTooLong", secret ? "data" : "[]", "Too long: may not be more than " + MAX_BYTES
          + " bytes"));
    }
    if (secret) {
      secretTypeErrors(obj).forEach(e -> causes.add(e.toCause()));
    }
    if (old != null && old.getBoolean("immutable", false)) {
      for (String f : secret ? List.of("data", "immutable") : List.of("data", "binaryData", "immutable")) {
        Object a = old.getValue(f);
        Object b = obj.getValue(f);
        if (!(a == null ? b == null || isEmpty(b) : a.equals(b)) && !(isEmpty(a) && isEmpty(b))) {
          causes.add(cause("FieldValueForbidden", f, "Forbidden: field is immutable when `immutable` is set"));
        }
      }
    }
    return causes;
  }

  /**
   * {@code ValidateSecret}'s rules of the well-known types ({@code pkg/apis/core/validation}), over {@code data} and
   * a {@code stringData} not yet merged: a service account token names its account in an annotation, the docker
   * config types hold their key as a JSON object, basic auth a username or a password, SSH auth a private key, TLS
   * a certificate and a key. The field paths are upstream's, {@code data[%s][username]} included.
   */
  static java.util.List<io.mvproxy.registry.impl.schema.FieldError> secretTypeErrors(JsonObject obj) {
    java.util.List<io.mvproxy.registry.impl.schema.FieldError> errs = new java.util.ArrayList<>();
    JsonObject data = obj.getValue("data") instanceof JsonObject d ? d : new JsonObject();
    JsonObject strings = obj.getValue("stringData") instanceof JsonObject sd ? sd : new JsonObject();
    String type = obj.getValue("type") instanceof String t ? t : "";
    switch (type) {
      case "kubernetes.io/service-account-token" -> {
        JsonObject annotations = obj.getJsonObject("metadata", new JsonObject()).getValue("annotations")
            instanceof JsonObject a ? a : new JsonObject();
        if (!(annotations.getValue("kubernetes.io/service-account.name") instanceof String n) || n.isEmpty()) {
          errs.add(io.mvproxy.registry.impl.schema.FieldError.required(
              "metadata.annotations[kubernetes.io/service-account.name]", ""));
        }
      }
      case "kubernetes.io/dockercfg" -> jsonKey(data, strings, ".dockercfg", errs);
      case "kubernetes.io/dockerconfigjson" -> jsonKey(data, strings, ".dockerconfigjson", errs);
      case "kubernetes.io/basic-auth" -> {
        if (!has(data, strings, "username") && !has(data, strings, "password")) {
          errs.add(io.mvproxy.registry.impl.schema.FieldError.required("data[%s][username]", ""));
          errs.add(io.mvproxy.registry.impl.schema.FieldError.required("data[%s][password]", ""));
        }
      }
      case "kubernetes.io/ssh-auth" -> {
        byte[] key = bytes(data, strings, "ssh-privatekey");
        if (key == null || key.length == 0) {
          errs.add(io.mvproxy.registry.impl.schema.FieldError.required("data[%s][ssh-privatekey]", ""));
        }
      }
      case "kubernetes.io/tls" -> {
        for (String k : List.of("tls.crt", "tls.key")) {
          if (!has(data, strings, k)) {
            errs.add(io.mvproxy.registry.impl.schema.FieldError.required("data[" + k + "]", ""));
          }
        }
      }
      default -> {
        // Opaque and other types: no rule
      }
    }
    return errs;
  }

  private static boolean has(JsonObject data, JsonObject strings, String key) {
    return data.containsKey(key) || strings.containsKey(key);
  }

  /** @return the bytes of {@code key} ({@code stringData} wins, as the merge), or null when absent or not base64 */
  private static byte[] bytes(JsonObject data, JsonObject strings, String key) {
    if (strings.getValue(key) instanceof String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }
    if (data.getValue(key) instanceof String b64) {
      try {
        return GoBase64.decode(b64.getBytes(StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
    return data.containsKey(key) ? new byte[0] : null;
  }

  /** A docker config key: present, and JSON that Go's {@code json.Unmarshal} reads into a map. */
  private static void jsonKey(JsonObject data, JsonObject strings, String key,
      java.util.List<io.mvproxy.registry.impl.schema.FieldError> errs) {
    if (!has(data, strings, key)) {
      errs.add(io.mvproxy.registry.impl.schema.FieldError.required("data[" + key + "]", ""));
      return;
    }
    byte[] b = bytes(data, strings, key);
    if (b == null) {
      return;  // not base64: refused as such
    }
    String err = io.mvproxy.registry.impl.rest.GoJsonSyntax.syntaxError(b);
    if (err == null) {
      String first = new String(b, StandardCharsets.UTF_8).strip();
      if (!first.startsWith("{") && !first.startsWith("null")) {
        err = "json: cannot unmarshal " + (first.startsWith("[") ? "array" : first.startsWith("\"") ? "string"
            : first.startsWith("t") || first.startsWith("f") ? "bool" : "number")
            + " into Go value of type map[string]interface {}";
      }
    }
    if (err != null) {
      errs.add(io.mvproxy.registry.impl.schema.FieldError.invalid("data[" + key + "]", "<secret contents redacted>",
          err));
    }
  }

  private static boolean isEmpty(Object o) {
    return o == null || (o instanceof JsonObject j && j.isEmpty());
  }

  private static long decodedLength(String b64) {
    try {
      return Base64.getDecoder().decode(b64).length;
    } catch (IllegalArgumentException e) {
      return b64.length();
    }
  }

  private static JsonObject cause(String reason, String field, String message) {
    return new JsonObject().put("reason", reason).put("message", message).put("field", field);
  }
}

package io.mvproxy.registry.impl.schema;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The structural-schema rules a CRD's {@code openAPIV3Schema} must follow, as apiextensions-apiserver
 * {@code pkg/apiserver/schema/validation.go ValidateStructural} (1.33 texts): every field, item and the root typed
 * (unless int-or-string or preserve-unknown-fields), arrays with {@code items}, no {@code additionalProperties} at
 * the root or beside {@code x-kubernetes-embedded-resource}, the root an object, root {@code metadata} restricted to
 * {@code name} / {@code generateName}, {@code kind}/{@code apiVersion} strings, valid RE2 {@code pattern}s, and no
 * structural keywords ({@code type}, {@code default}, {@code nullable}, {@code x-kubernetes-*}, ...) inside
 * {@code allOf}/{@code anyOf}/{@code oneOf}/{@code not}. Errors are sorted by their text, as upstream.
 */
public final class StructuralCheck {
  private static final List<String> JUNCTORS = List.of("allOf", "anyOf", "oneOf");
  private static final Map<String, String> FORBIDDEN_IN_JUNCTORS = Map.ofEntries(
      Map.entry("type", "must be empty to be structural"),
      Map.entry("additionalProperties", "must be undefined to be structural"),
      Map.entry("default", "must be undefined to be structural"),
      Map.entry("title", "must be empty to be structural"),
      Map.entry("description", "must be empty to be structural"),
      Map.entry("nullable", "must be false to be structural"),
      Map.entry("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
      Map.entry("x-kubernetes-embedded-resource", "must be false to be structural"),
      Map.entry("x-kubernetes-int-or-string", "must be false to be structural"),
      Map.entry("x-kubernetes-list-map-keys", "must be empty to be structural"),
      Map.entry("x-kubernetes-list-type", "must be undefined to be structural"),
      Map.entry("x-kubernetes-map-type", "must be undefined to be structural"),
      Map.entry("x-kubernetes-validations", "must be empty to be structural"));
  private static final List<String> FORBIDDEN_ORDER = List.of("type", "additionalProperties", "default", "title",
      "description", "nullable", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
      "x-kubernetes-int-or-string", "x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type",
      "x-kubernetes-validations");

  private enum Level { ROOT, ITEM, FIELD }

  private StructuralCheck() {
  }

  /**
   * @param schema the {@code openAPIV3Schema}
   * @param path   its field path in the CRD
   * @return the errors, sorted as upstream (empty when structural)
   */
  public static List<FieldError> validate(JsonObject schema, String path) {
    List<FieldError> errs = new ArrayList<>();
    node(schema, Level.ROOT, path, errs);
    errs.sort(Comparator.comparing(FieldError::error));
    return errs;
  }

  private static void node(JsonObject s, Level lvl, String path, List<FieldError> errs) {
    String type = s.getValue("type") instanceof String t ? t : "";
    boolean intOrString = Boolean.TRUE.equals(s.getValue("x-kubernetes-int-or-string"));
    boolean preserve = Boolean.TRUE.equals(s.getValue("x-kubernetes-preserve-unknown-fields"));
    boolean embedded = Boolean.TRUE.equals(s.getValue("x-kubernetes-embedded-resource"));
    JsonObject props = s.getValue("properties") instanceof JsonObject p ? p : null;
    if ("array".equals(type) && !(s.getValue("items") instanceof JsonObject)) {
      errs.add(FieldError.required(path + ".items", "must be specified"));
    }
    if (s.getValue("items") instanceof JsonObject items) {
      node(items, Level.ITEM, path + ".items", errs);
    }
    if (props != null) {
      props.forEach(e -> {
        if (e.getValue() instanceof JsonObject ps) {
          node(ps, Level.FIELD, path + ".properties[" + e.getKey() + "]", errs);
        }
      });
    }
    Object ap = s.getValue("additionalProperties");
    if (ap != null) {
      if (lvl == Level.ROOT) {
        errs.add(FieldError.forbidden(path + ".additionalProperties", "must not be used at the root"));
      }
      if (ap instanceof JsonObject aps) {
        node(aps, Level.FIELD, path + ".additionalProperties", errs);
      }
    }
    if (intOrString && preserve) {
      errs.add(FieldError.invalid(path + ".x-kubernetes-preserve-unknown-fields", true, "must be false if "
          + "x-kubernetes-int-or-string is true"));
    }
    if (intOrString && embedded) {
      errs.add(FieldError.invalid(path + ".x-kubernetes-embedded-resource", true, "must be false if "
          + "x-kubernetes-int-or-string is true"));
    }
    if (s.getValue("pattern") instanceof String p) {
      try {
        com.google.re2j.Pattern.compile(p);
      } catch (com.google.re2j.PatternSyntaxException e) {
        errs.add(FieldError.invalid(path + ".pattern", p, "must be a valid regular expression, but isn't: "
            + e.getMessage()));
      }
    }
    junctors(s, path, errs);
    if (embedded && !"object".equals(type)) {
      if (type.isEmpty()) {
        errs.add(FieldError.required(path + ".type", "must be object if x-kubernetes-embedded-resource is true"));
      } else {
        errs.add(FieldError.invalid(path + ".type", type, "must be object if x-kubernetes-embedded-resource is "
            + "true"));
      }
    } else if (type.isEmpty() && !intOrString && !preserve) {
      String d = switch (lvl) {
        case ROOT -> "must not be empty at the root";
        case ITEM -> "must not be empty for specified array items";
        case FIELD -> "must not be empty for specified object fields";
      };
      errs.add(FieldError.required(path + ".type", d));
    }
    if (embedded && ap != null) {
      errs.add(FieldError.forbidden(path + ".additionalProperties", "must not be used if "
          + "x-kubernetes-embedded-resource is set"));
    }
    if (lvl == Level.ROOT && !type.isEmpty() && !"object".equals(type)) {
      errs.add(FieldError.invalid(path + ".type", type, "must be object at the root"));
    }
    boolean checkMeta = lvl == Level.ROOT || embedded;
    if (props != null && checkMeta) {
      for (String k : new String[] {"kind", "apiVersion"}) {
        if (props.getValue(k) instanceof JsonObject ks) {
          String kt = ks.getValue("type") instanceof String t ? t : "";
          if (!"string".equals(kt)) {
            errs.add(FieldError.invalid(path + ".properties[" + k + "].type", kt, "must be string"));
          }
        }
      }
    }
    if (props != null && props.getValue("metadata") instanceof JsonObject meta) {
      String mp = path + ".properties[metadata]";
      String mt = meta.getValue("type") instanceof String t ? t : "";
      if (checkMeta && !"object".equals(mt)) {
        errs.add(FieldError.invalid(mp + ".type", mt, "must be object"));
      }
      if (lvl == Level.ROOT && !metadataOnlyNames(meta)) {
        errs.add(FieldError.forbidden(mp, "must not specify anything other than name and generateName, but "
            + "metadata is implicitly specified"));
      }
    }
    if (embedded && !preserve && (props == null || props.isEmpty())) {
      errs.add(FieldError.required(path + ".properties", "must not be empty if x-kubernetes-embedded-resource is "
          + "true without x-kubernetes-preserve-unknown-fields"));
    }
  }

  private static final Set<String> META_ALLOWED = Set.of("type", "properties", "description", "default");

  private static boolean metadataOnlyNames(JsonObject meta) {
    for (String k : meta.fieldNames()) {
      if (!META_ALLOWED.contains(k)) {
        return false;
      }
    }
    if (meta.getValue("properties") instanceof JsonObject p) {
      for (String k : p.fieldNames()) {
        if (!"name".equals(k) && !"generateName".equals(k)) {
          return false;
        }
      }
    }
    return true;
  }

  /** {@code anyOf: [{type: integer}, {type: string}]}, allowed beside {@code x-kubernetes-int-or-string}. */
  private static final JsonArray INT_OR_STRING_ANY_OF = new JsonArray().add(new JsonObject().put("type", "integer"))
      .add(new JsonObject().put("type", "string"));

  private static void junctors(JsonObject s, String path, List<FieldError> errs) {
    for (String j : JUNCTORS) {
      if (s.getValue(j) instanceof JsonArray arr) {
        if ("anyOf".equals(j) && INT_OR_STRING_ANY_OF.equals(arr)) {
          continue;
        }
        for (int i = 0; i < arr.size(); i++) {
          if (arr.getValue(i) instanceof JsonObject sub) {
            if ("allOf".equals(j) && i == 0 && INT_OR_STRING_ANY_OF.equals(sub.getValue("anyOf"))) {
              JsonObject rest = sub.copy();
              rest.remove("anyOf");
              nested(rest, path + "." + j + "[" + i + "]", errs);
              continue;
            }
            nested(sub, path + "." + j + "[" + i + "]", errs);
          }
        }
      }
    }
    if (s.getValue("not") instanceof JsonObject sub) {
      nested(sub, path + ".not", errs);
    }
  }

  /** Value validations inside junctors may not carry structural keywords ({@code validateNestedValueValidation}). */
  private static void nested(JsonObject s, String path, List<FieldError> errs) {
    for (String k : FORBIDDEN_ORDER) {
      if (!s.containsKey(k)) {
        continue;
      }
      Object v = s.getValue(k);
      if ("nullable".equals(k) || k.startsWith("x-kubernetes-") && v instanceof Boolean) {
        if (!Boolean.TRUE.equals(v)) {
          continue;
        }
      }
      errs.add(FieldError.forbidden(path + "." + k, FORBIDDEN_IN_JUNCTORS.get(k)));
    }
    if (s.getValue("properties") instanceof JsonObject p) {
      p.forEach(e -> {
        if (e.getValue() instanceof JsonObject ps) {
          nested(ps, path + ".properties[" + e.getKey() + "]", errs);
        }
      });
    }
    if (s.getValue("items") instanceof JsonObject items) {
      nested(items, path + ".items", errs);
    }
    junctors(s, path, errs);
  }
}

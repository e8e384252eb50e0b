package io.mvproxy.registry.impl.schema;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One node of a CRD version's {@code openAPIV3Schema}, read once per plugin load (patterns compiled with RE2
 * semantics, formats resolved, CEL rules attached by {@link CelRules}): the structural schema of
 * apiextensions-apiserver {@code pkg/apiserver/schema/structural.go} plus the value validations kube-openapi
 * applies. Immutable after {@link CelRules} attached the rules.
 */
public final class SchemaNode {
  /** The JSON this node was read from. */
  public final JsonObject raw;
  /** {@code type} ({@code ""} when absent). */
  public final String type;
  /** {@code nullable}. */
  public final boolean nullable;
  /** {@code x-kubernetes-int-or-string}. */
  public final boolean intOrString;
  /** {@code x-kubernetes-preserve-unknown-fields}. */
  public final boolean preserveUnknownFields;
  /** {@code x-kubernetes-embedded-resource}. */
  public final boolean embeddedResource;
  /** The normalised format validated, or null. */
  public final String format;
  /** The declared format as written ({@code ""} when absent). */
  public final String formatName;
  /** {@code properties} in declaration order, or null. */
  public final Map<String, SchemaNode> properties;
  /** {@code additionalProperties} as a schema, or null. */
  public final SchemaNode additionalProperties;
  /** {@code additionalProperties: false}. */
  public final boolean additionalPropertiesForbidden;
  /** {@code items}, or null. */
  public final SchemaNode items;
  /** {@code allOf}, {@code anyOf}, {@code oneOf} (empty when absent). */
  public final List<SchemaNode> allOf;
  /** {@code anyOf}. */
  public final List<SchemaNode> anyOf;
  /** {@code oneOf}. */
  public final List<SchemaNode> oneOf;
  /** {@code not}, or null. */
  public final SchemaNode not;
  /** Bounds (null when absent). */
  public final Double maximum;
  /** {@code minimum}. */
  public final Double minimum;
  /** {@code exclusiveMaximum}. */
  public final boolean exclusiveMaximum;
  /** {@code exclusiveMinimum}. */
  public final boolean exclusiveMinimum;
  /** {@code multipleOf}. */
  public final Double multipleOf;
  /** Length and size bounds (null when absent). */
  public final Long maxLength;
  /** {@code minLength}. */
  public final Long minLength;
  /** {@code maxItems}. */
  public final Long maxItems;
  /** {@code minItems}. */
  public final Long minItems;
  /** {@code maxProperties}. */
  public final Long maxProperties;
  /** {@code minProperties}. */
  public final Long minProperties;
  /** {@code uniqueItems}. */
  public final boolean uniqueItems;
  /** {@code pattern} source, or null. */
  public final String patternSource;
  /** {@code pattern} compiled (RE2), or null (also when it does not compile: see {@link #patternError}). */
  public final Pattern pattern;
  /** Why {@code pattern} does not compile, or null. */
  public final String patternError;
  /** {@code enum} values, or null. */
  public final List<Object> enumValues;
  /** {@code required} names (empty when absent). */
  public final List<String> required;
  /** {@code x-kubernetes-list-type} or null. */
  public final String listType;
  /** {@code x-kubernetes-list-map-keys} (empty when absent). */
  public final List<String> listMapKeys;
  /** {@code x-kubernetes-map-type} or null. */
  public final String mapType;
  /** True when {@code default} is present. */
  public final boolean hasDefault;
  /** {@code default} (a JSON value), meaningful when {@link #hasDefault}. */
  public final Object defaultValue;
  /** The compiled {@code x-kubernetes-validations} (set once by {@link CelRules}). */
  List<CelRules.Rule> rules = List.of();

  /**
   * @param raw a JSON schema object
   */
  public SchemaNode(JsonObject raw) {
    this.raw = raw;
    this.type = raw.getValue("type") instanceof String t ? t : "";
    this.nullable = Boolean.TRUE.equals(raw.getValue("nullable"));
    this.intOrString = Boolean.TRUE.equals(raw.getValue("x-kubernetes-int-or-string"));
    this.preserveUnknownFields = Boolean.TRUE.equals(raw.getValue("x-kubernetes-preserve-unknown-fields"));
    this.embeddedResource = Boolean.TRUE.equals(raw.getValue("x-kubernetes-embedded-resource"));
    this.formatName = raw.getValue("format") instanceof String f ? f : "";
    this.format = Formats.effective(formatName, type);
    if (raw.getValue("properties") instanceof JsonObject p) {
      Map<String, SchemaNode> m = new LinkedHashMap<>();
      p.forEach(e -> m.put(e.getKey(), new SchemaNode(e.getValue() instanceof JsonObject o ? o : new JsonObject())));
      this.properties = Collections.unmodifiableMap(m);
    } else {
      this.properties = null;
    }
    Object ap = raw.getValue("additionalProperties");
    this.additionalProperties = ap instanceof JsonObject o ? new SchemaNode(o) : null;
    this.additionalPropertiesForbidden = Boolean.FALSE.equals(ap);
    this.items = raw.getValue("items") instanceof JsonObject o ? new SchemaNode(o) : null;
    this.allOf = list(raw, "allOf");
    this.anyOf = list(raw, "anyOf");
    this.oneOf = list(raw, "oneOf");
    this.not = raw.getValue("not") instanceof JsonObject o ? new SchemaNode(o) : null;
    this.maximum = dbl(raw, "maximum");
    this.minimum = dbl(raw, "minimum");
    this.exclusiveMaximum = Boolean.TRUE.equals(raw.getValue("exclusiveMaximum"));
    this.exclusiveMinimum = Boolean.TRUE.equals(raw.getValue("exclusiveMinimum"));
    this.multipleOf = dbl(raw, "multipleOf");
    this.maxLength = lng(raw, "maxLength");
    this.minLength = lng(raw, "minLength");
    this.maxItems = lng(raw, "maxItems");
    this.minItems = lng(raw, "minItems");
    this.maxProperties = lng(raw, "maxProperties");
    this.minProperties = lng(raw, "minProperties");
    this.uniqueItems = Boolean.TRUE.equals(raw.getValue("uniqueItems"));
    this.patternSource = raw.getValue("pattern") instanceof String p ? p : null;
    Pattern compiled = null;
    String err = null;
    if (patternSource != null) {
      try {
        compiled = Pattern.compile(patternSource);
      } catch (PatternSyntaxException e) {
        err = e.getMessage();
      }
    }
    this.pattern = compiled;
    this.patternError = err;
    this.enumValues = raw.getValue("enum") instanceof JsonArray a ? Collections.unmodifiableList(new ArrayList<>(
        a.getList())) : null;
    List<String> req = new ArrayList<>();
    if (raw.getValue("required") instanceof JsonArray a) {
      a.forEach(x -> req.add(String.valueOf(x)));
    }
    this.required = List.copyOf(req);
    this.listType = raw.getValue("x-kubernetes-list-type") instanceof String s ? s : null;
    List<String> keys = new ArrayList<>();
    if (raw.getValue("x-kubernetes-list-map-keys") instanceof JsonArray a) {
      a.forEach(x -> keys.add(String.valueOf(x)));
    }
    this.listMapKeys = List.copyOf(keys);
    this.mapType = raw.getValue("x-kubernetes-map-type") instanceof String s ? s : null;
    this.hasDefault = raw.containsKey("default");
    this.defaultValue = raw.getValue("default");
  }

  /** @return the property schema of {@code key}, else {@code additionalProperties}, else null */
  public SchemaNode child(String key) {
    if (properties != null && properties.containsKey(key)) {
      return properties.get(key);
    }
    return additionalProperties;
  }

  /** @return the compiled CEL rules of this node (possibly empty) */
  public List<CelRules.Rule> rules() {
    return rules;
  }

  /** @return the type name kube-openapi reports ({@code integer,string} for int-or-string) */
  public String typeName() {
    return intOrString ? "integer,string" : type;
  }

  private static List<SchemaNode> list(JsonObject raw, String key) {
    if (!(raw.getValue(key) instanceof JsonArray a)) {
      return List.of();
    }
    List<SchemaNode> out = new ArrayList<>();
    a.forEach(x -> out.add(new SchemaNode(x instanceof JsonObject o ? o : new JsonObject())));
    return List.copyOf(out);
  }

  private static Double dbl(JsonObject raw, String key) {
    return raw.getValue(key) instanceof Number n ? n.doubleValue() : null;
  }

  private static Long lng(JsonObject raw, String key) {
    return raw.getValue(key) instanceof Number n ? n.longValue() : null;
  }
}

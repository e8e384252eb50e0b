package io.mvproxy.registry.impl.model;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.schema.FieldError;
import io.mvproxy.registry.impl.schema.VersionSchema;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Validates and defaults a CRD manifest like {@code apiextensions-apiserver/pkg/apis/apiextensions/validation}
 * (the essentials only) and {@code .../v1/defaults.go}: names, scope, versions, printer columns, and each version's
 * schema (structural rules and CEL rules compiled once here, {@link VersionSchema#compile}). Collects every problem
 * before failing.
 */
public final class CrdParser {
  /** The resource CRDs themselves belong to, used in error details. */
  public static final Gvr CRD_GVR = new Gvr("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  /**
   * Called with the manifest at the start of every parse, on the parsing thread: a test hook (tests assert that no
   * event loop parses, as parsing compiles CEL rules and may take seconds); null (the default) for none.
   */
  public static volatile java.util.function.Consumer<JsonObject> onParse;

  private final List<JsonObject> causes = new ArrayList<>();
  private final boolean builtIn;
  private final boolean create;

  private CrdParser() {
    this(false, false);
  }

  private CrdParser(boolean builtIn, boolean create) {
    this.builtIn = builtIn;
    this.create = create;
  }

  /**
   * Parses the CRD-shaped description of a built-in kind: as {@link #parse} but the group may be the core group
   * ({@code ""}) or a {@code *.k8s.io} group and the name is not checked against it.
   *
   * @param manifest the description
   * @return the definition
   * @throws StatusException 422 when it is not valid
   */
  public static CrdDefinition parseBuiltIn(JsonObject manifest) {
    return new CrdParser(true, false).doParse(manifest);
  }

  /**
   * @param manifest a {@code CustomResourceDefinition} as JSON
   * @return the validated, defaulted definition
   * @throws StatusException 422 Invalid with {@code details.causes} when the manifest is not valid
   */
  public static CrdDefinition parse(JsonObject manifest) {
    return new CrdParser().doParse(manifest);
  }

  /**
   * As {@link #parse}, for a CRD being created through the API: a {@code metadata.generateName} must be
   * {@code spec.names.plural+"."+spec.group} too (apiextensions {@code ValidateCustomResourceDefinition} passes its
   * name rule to {@code ValidateObjectMeta}, which applies it to the prefix on create; an update does not).
   *
   * @param manifest a {@code CustomResourceDefinition} as JSON
   * @return the validated, defaulted definition
   * @throws StatusException 422 Invalid with {@code details.causes} (the {@code metadata.generateName} cause before
   *     the {@code metadata.name} one, as upstream) when the manifest is not valid
   */
  public static CrdDefinition parseCreated(JsonObject manifest) {
    return new CrdParser(false, true).doParse(manifest);
  }

  private CrdDefinition doParse(JsonObject m) {
    java.util.function.Consumer<JsonObject> hook = onParse;
    if (hook != null) {
      hook.accept(m);
    }
    JsonObject meta = obj(m, "metadata");
    JsonObject spec = obj(m, "spec");
    JsonObject names = obj(spec, "names");
    String name = meta.getString("name", "");
    String group = spec.getString("group", "");
    String plural = names.getString("plural", "");
    String kind = names.getString("kind", "");
    if (builtIn) {
      // core ("") and k8s.io groups: checked by the built-in API source's own tests
    } else if (group.isEmpty()) {
      required("spec.group");
    } else if (!DNS_SUBDOMAIN.matcher(group).matches() || !group.contains(".")) {
      invalid("spec.group", group, "should be a domain with at least one dot");
    }
    if (plural.isEmpty()) {
      required("spec.names.plural");
    } else if (!DNS_LABEL.matcher(plural).matches()) {
      invalid("spec.names.plural", plural, "a lowercase RFC 1123 label must consist of lower case alphanumeric "
          + "characters or '-', and must start and end with an alphanumeric character");
    }
    if (kind.isEmpty()) {
      required("spec.names.kind");
    }
    if (create && meta.getValue("generateName") instanceof String prefix && !prefix.isEmpty()
        && !prefix.equals(plural + "." + group)) {
      invalid("metadata.generateName", prefix, "must be spec.names.plural+\".\"+spec.group");
    }
    if (name.isEmpty()) {
      required("metadata.name");
    } else if (!builtIn && !name.equals(plural + "." + group)) {
      invalid("metadata.name", name, "must be spec.names.plural+\".\"+spec.group");
    }
    String singular = names.getString("singular", kind.toLowerCase(Locale.ROOT));
    if (!singular.isEmpty() && !DNS_LABEL.matcher(singular).matches()) {
      invalid("spec.names.singular", singular, "a lowercase RFC 1123 label must consist of lower case alphanumeric "
          + "characters or '-', and must start and end with an alphanumeric character");
    }
    String listKind = names.getString("listKind", kind.isEmpty() ? "" : kind + "List");
    String scope = spec.getString("scope", "");
    if (!"Namespaced".equals(scope) && !"Cluster".equals(scope)) {
      causes.add(cause("FieldValueNotSupported", "spec.scope",
          "Unsupported value: \"" + scope + "\": supported values: \"Cluster\", \"Namespaced\""));
    }
    List<CrdVersion> versions = deprecations(versions(spec), spec, group, kind);
    if (!builtIn) {
      List<FieldError> conv = new ArrayList<>();
      io.mvproxy.registry.impl.conversion.CrdConversion.validate(spec, conv);
      conv.forEach(e -> causes.add(e.toCause()));
    }
    if (!causes.isEmpty()) {
      throw StatusException.invalid(CRD_GVR, "CustomResourceDefinition", name, new JsonArray(new ArrayList<>(causes)));
    }
    return new CrdDefinition(name, group, plural, singular, kind, listKind, strings(names, "shortNames"),
        strings(names, "categories"), "Namespaced".equals(scope), versions);
  }

  /**
   * The warnings of deprecated versions (apiextensions-apiserver {@code customresource_handler.go}): a version with
   * {@code deprecated: true} warns every request with its {@code deprecationWarning}, else with
   * {@code defaultDeprecationWarning}'s {@code <group>/<version> <Kind> is deprecated}, followed by
   * {@code ; use <group>/<best> <Kind>} naming the most preferred served, not deprecated version preferred over it
   * (kube-aware order).
   *
   * @param versions the parsed versions
   * @return them with their warnings
   */
  static List<CrdVersion> deprecations(List<CrdVersion> versions, JsonObject spec, String group, String kind) {
    JsonArray arr = spec.getValue("versions") instanceof JsonArray a ? a : new JsonArray();
    Set<String> deprecated = new HashSet<>();
    java.util.Map<String, String> custom = new java.util.HashMap<>();
    for (Object o : arr) {
      if (o instanceof JsonObject v && Boolean.TRUE.equals(v.getValue("deprecated"))
          && v.getValue("name") instanceof String n) {
        deprecated.add(n);
        if (v.getValue("deprecationWarning") instanceof String w) {
          custom.put(n, w);
        }
      }
    }
    if (deprecated.isEmpty()) {
      return versions;
    }
    List<CrdVersion> out = new ArrayList<>();
    for (CrdVersion v : versions) {
      if (!deprecated.contains(v.name())) {
        out.add(v);
        continue;
      }
      String warning = custom.get(v.name());
      if (warning == null) {
        warning = group + "/" + v.name() + " " + kind + " is deprecated";
        java.util.Optional<String> better = versions.stream()
            .filter(o -> o.served() && !deprecated.contains(o.name())
                && io.mvproxy.discovery.VersionOrder.INSTANCE.compare(o.name(), v.name()) < 0)
            .map(CrdVersion::name).min(io.mvproxy.discovery.VersionOrder.INSTANCE);
        if (better.isPresent()) {
          warning += "; use " + group + "/" + better.get() + " " + kind;
        }
      }
      out.add(v.withDeprecationWarning(warning));
    }
    return out;
  }

  private List<CrdVersion> versions(JsonObject spec) {
    JsonArray arr = spec.getValue("versions") instanceof JsonArray a ? a : new JsonArray();
    List<CrdVersion> out = new ArrayList<>();
    if (arr.isEmpty()) {
      required("spec.versions");
      return out;
    }
    JsonObject topSub = obj(spec, "subresources");
    Set<String> seen = new HashSet<>();
    int storage = 0;
    boolean anyServed = false;
    for (int i = 0; i < arr.size(); i++) {
      String f = "spec.versions[" + i + "]";
      JsonObject v = arr.getValue(i) instanceof JsonObject o ? o : new JsonObject();
      String vn = v.getString("name", "");
      if (vn.isEmpty()) {
        required(f + ".name");
      } else if (!DNS_LABEL.matcher(vn).matches() || vn.length() > 63) {
        invalid(f + ".name", vn, "a DNS-1035 label must consist of lower case alphanumeric characters or '-'");
      } else if (!seen.add(vn)) {
        causes.add(cause("FieldValueDuplicate", f + ".name", "Duplicate value: \"" + vn + "\""));
      }
      if (!(v.getValue("served") instanceof Boolean)) {
        required(f + ".served");
      }
      if (!(v.getValue("storage") instanceof Boolean)) {
        required(f + ".storage");
      }
      deprecationWarning(f + ".deprecationWarning", Boolean.TRUE.equals(v.getValue("deprecated")),
          v.getValue("deprecationWarning"));
      boolean served = Boolean.TRUE.equals(v.getValue("served"));
      boolean stor = Boolean.TRUE.equals(v.getValue("storage"));
      storage += stor ? 1 : 0;
      anyServed |= served;
      JsonObject sub = v.containsKey("subresources") ? obj(v, "subresources") : topSub;
      JsonObject scale = sub.getValue("scale") instanceof JsonObject s ? s : null;
      ScaleSpec scaleSpec = null;
      if (scale != null) {
        String spr = scale.getString("specReplicasPath", "");
        String str = scale.getString("statusReplicasPath", "");
        if (spr.isEmpty()) {
          required(f + ".subresources.scale.specReplicasPath");
        }
        if (str.isEmpty()) {
          required(f + ".subresources.scale.statusReplicasPath");
        }
        scaleSpec = new ScaleSpec(spr, str, scale.getString("labelSelectorPath"));
      }
      JsonArray cols = v.getValue("additionalPrinterColumns") instanceof JsonArray c ? c
          : spec.getValue("additionalPrinterColumns") instanceof JsonArray c2 ? c2 : new JsonArray();
      JsonObject schema = v.getValue("schema") instanceof JsonObject s
          && s.getValue("openAPIV3Schema") instanceof JsonObject o ? o : null;
      VersionSchema compiled = null;
      if (schema != null) {
        List<FieldError> errs = new ArrayList<>();
        // a built-in kind's []byte fields (format "byte") are read by Go's typed decoder (base64, "" included), not
        // checked as an OpenAPI format: its strategy's decodeBody does that; the schema as written stays for the rest
        compiled = VersionSchema.compile(builtIn ? withoutByteFormat(schema) : schema,
            f + ".schema.openAPIV3Schema", errs);
        errs.forEach(e -> causes.add(e.toCause()));
      }
      out.add(new CrdVersion(vn, served, stor, sub.containsKey("status"), scaleSpec, columns(f, cols), schema,
          compiled));
    }
    if (storage != 1) {
      invalid("spec.versions", "", "must have exactly one version marked as storage version");
    }
    if (!anyServed) {
      invalid("spec.versions", "", "must have at least one version marked as served");
    }
    return out;
  }

  private List<PrinterColumn> columns(String f, JsonArray cols) {
    List<PrinterColumn> out = new ArrayList<>();
    for (int i = 0; i < cols.size(); i++) {
      JsonObject c = cols.getValue(i) instanceof JsonObject o ? o : new JsonObject();
      String cf = f + ".additionalPrinterColumns[" + i + "]";
      if (c.getString("name", "").isEmpty()) {
        required(cf + ".name");
      }
      if (c.getString("type", "").isEmpty()) {
        required(cf + ".type");
      }
      if (c.getString("jsonPath", "").isEmpty()) {
        required(cf + ".jsonPath");
      }
      Object prio = c.getValue("priority");
      out.add(new PrinterColumn(c.getString("name", ""), c.getString("type", "string"), c.getString("format", ""),
          c.getString("description", ""), prio instanceof Number n ? n.intValue() : 0, c.getString("jsonPath", "")));
    }
    return out;
  }

  /** @return a copy of {@code schema} without {@code format: byte} anywhere in it */
  private static JsonObject withoutByteFormat(JsonObject schema) {
    JsonObject copy = schema.copy();
    strip(copy);
    return copy;
  }

  private static void strip(Object node) {
    if (node instanceof JsonObject o) {
      if ("byte".equals(o.getValue("format"))) {
        o.remove("format");
      }
      o.forEach(e -> strip(e.getValue()));
    } else if (node instanceof JsonArray a) {
      a.forEach(CrdParser::strip);
    }
  }

  /**
   * apiextensions {@code validateDeprecationWarning}: set only on a deprecated version, at most 256 bytes, not empty,
   * printable ({@code unicode.IsPrint}: letters, marks, numbers, punctuation, symbols and the ASCII space; the index
   * named is the byte offset of the first other character).
   */
  private void deprecationWarning(String field, boolean deprecated, Object value) {
    if (!(value instanceof String w)) {
      return;
    }
    if (!deprecated) {
      invalid(field, w, "can only be set for deprecated versions");
      return;
    }
    if (w.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 256) {
      invalid(field, w, "must be <= 256 characters long");
    }
    if (w.isEmpty()) {
      invalid(field, w, "must not be an empty string");
    }
    int offset = 0;
    for (int i = 0; i < w.length(); ) {
      int cp = w.codePointAt(i);
      if (!io.mvproxy.registry.impl.schema.GoValues.isPrint(cp)) {
        invalid(field, w, "must only contain printable UTF-8 characters; non-printable character found at index "
            + offset);
        break;
      }
      offset += new String(Character.toChars(cp)).getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
      i += Character.charCount(cp);
    }
  }

  private void required(String field) {
    causes.add(cause("FieldValueRequired", field, "Required value"));
  }

  private void invalid(String field, String value, String detail) {
    causes.add(cause("FieldValueInvalid", field, "Invalid value: " + io.mvproxy.registry.impl.schema.GoValues.quote(value)
        + ": " + detail));
  }

  private static JsonObject cause(String reason, String field, String message) {
    return new JsonObject().put("reason", reason).put("message", message).put("field", field);
  }

  private static JsonObject obj(JsonObject parent, String key) {
    return parent.getValue(key) instanceof JsonObject o ? o : new JsonObject();
  }

  private static List<String> strings(JsonObject o, String key) {
    List<String> out = new ArrayList<>();
    if (o.getValue(key) instanceof JsonArray a) {
      a.forEach(x -> out.add(String.valueOf(x)));
    }
    return out;
  }
}

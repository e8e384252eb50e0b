package io.mvproxy.registry.impl.rest;

import io.mvproxy.registry.impl.schema.FieldError;
import io.mvproxy.registry.impl.schema.GoValues;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The {@code metadata} checks kube-apiserver runs on every create and update of every kind (custom resources and
 * built-ins alike), as apimachinery v0.33.0 {@code pkg/api/validation/objectmeta.go}
 * ({@code ValidateObjectMetaAccessor}, {@code ValidateObjectMetaAccessorUpdate}, {@code ValidateAnnotations},
 * {@code ValidateOwnerReferences}, {@code ValidateFinalizers}) and {@code pkg/apis/meta/v1/validation/validation.go}
 * ({@code ValidateLabels}) with the message texts of {@code pkg/util/validation/validation.go}
 * ({@code IsQualifiedName}, {@code IsValidLabelValue}, {@code IsDNS1123Subdomain}). Name and namespace are checked by
 * {@link ObjectRules}; {@code managedFields} are not checked here. Lengths are UTF-8 bytes, as Go's {@code len}.
 * Map entries are checked in the object's key order (Go's is random).
 */
public final class ObjectMetaValidator {
  /** Most bytes of all annotation keys and values together ({@code TotalAnnotationSizeLimitB}, 256 KiB). */
  public static final int TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
  private static final String QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
  private static final String QNAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start "
      + "and end with an alphanumeric character";
  private static final Pattern QNAME = Pattern.compile(QNAME_FMT);
  private static final String LABEL_VALUE_FMT = "(" + QNAME_FMT + ")?";
  private static final String LABEL_VALUE_MSG = "a valid label must be an empty string or consist of alphanumeric "
      + "characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  private static final Pattern LABEL_VALUE = Pattern.compile(LABEL_VALUE_FMT);
  private static final String DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  private static final String DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*";
  private static final Pattern DNS1123_SUBDOMAIN = Pattern.compile(DNS1123_SUBDOMAIN_FMT);
  private static final Pattern DNS1123_LABEL = Pattern.compile(DNS1123_LABEL_FMT);
  private static final String DNS1123_LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric "
      + "characters or '-', and must start and end with an alphanumeric character";
  private static final String DNS1123_SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case "
      + "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  private static final String ORPHAN = "orphan";
  private static final String FOREGROUND = "foregroundDeletion";

  private ObjectMetaValidator() {
  }

  /**
   * The checks of a create ({@code validateObjectMetaAccessor} past name and namespace): generation not negative,
   * labels, annotations (keys and 256 KiB in total), ownerReferences (at most one controller), finalizers.
   *
   * @param meta the object's {@code metadata} (labels / annotations / finalizers already type-checked)
   * @return the errors, in upstream's order; empty when valid
   */
  public static List<FieldError> validate(JsonObject meta) {
    List<FieldError> errs = new ArrayList<>();
    generationNotNegative(meta, errs);
    labels(meta.getValue("labels"), "metadata.labels", errs);
    annotations(meta.getValue("annotations"), "metadata.annotations", errs);
    ownerReferences(meta.getValue("ownerReferences"), "metadata.ownerReferences", errs);
    finalizers(meta.getValue("finalizers"), "metadata.finalizers", errs);
    return errs;
  }

  /**
   * The checks of an update: those of {@link #validate} (kube-apiserver's {@code rest.BeforeUpdate} runs both) plus
   * {@code ValidateObjectMetaAccessorUpdate}'s: no finalizer added while the object is being deleted, generation not
   * decremented, the uid unchanged (a patch or an apply sending another one: {@code metadata.uid: Invalid value:
   * "x": field is immutable}), no deletionTimestamp or deletionGracePeriodSeconds set or changed by the update
   * ({@code metadata.deletionTimestamp: Invalid value: 2026-12-07 11:00:00 +0000 UTC: field is immutable}: Go's
   * {@code time.Time.String()} of the value).
   *
   * @param meta    the next object's {@code metadata}
   * @param oldMeta the stored object's {@code metadata}
   * @return the errors; empty when valid
   */
  public static List<FieldError> validateUpdate(JsonObject meta, JsonObject oldMeta) {
    List<FieldError> errs = new ArrayList<>();
    if (oldMeta.getValue("deletionTimestamp") != null) {
      TreeSet<String> added = new TreeSet<>(strings(meta.getValue("finalizers")));
      added.removeAll(strings(oldMeta.getValue("finalizers")));
      if (!added.isEmpty()) {
        errs.add(FieldError.forbidden("metadata.finalizers", "no new finalizers can be added if the object is being "
            + "deleted, found new finalizers " + goStrings(new ArrayList<>(added))));
      }
    }
    long gen = number(meta.getValue("generation"));
    if (gen < number(oldMeta.getValue("generation"))) {
      errs.add(FieldError.invalid("metadata.generation", gen, "must not be decremented"));
    }
    String uid = str(meta.getValue("uid"));
    if (!uid.equals(str(oldMeta.getValue("uid")))) {
      errs.add(FieldError.invalid("metadata.uid", uid, "field is immutable"));
    }
    Object deletion = meta.getValue("deletionTimestamp");
    if (deletion != null && !sameInstant(deletion, oldMeta.getValue("deletionTimestamp"))) {
      errs.add(FieldError.invalid("metadata.deletionTimestamp", goTime(deletion), "field is immutable"));
    }
    Object grace = meta.getValue("deletionGracePeriodSeconds");
    Object oldGrace = oldMeta.getValue("deletionGracePeriodSeconds");
    if (grace != null && (oldGrace == null || number(grace) != number(oldGrace))) {
      errs.add(FieldError.invalid("metadata.deletionGracePeriodSeconds", number(grace), "field is immutable"));
    }
    errs.addAll(validate(meta));
    return errs;
  }

  /**
   * @param value a label key, annotation key or finalizer
   * @return {@code IsQualifiedName}'s messages; empty when valid
   */
  public static List<String> qualifiedName(String value) {
    List<String> errs = new ArrayList<>();
    String[] parts = value.split("/", -1);
    String name;
    if (parts.length == 1) {
      name = parts[0];
    } else if (parts.length == 2) {
      String prefix = parts[0];
      name = parts[1];
      if (prefix.isEmpty()) {
        errs.add("prefix part must be non-empty");
      } else {
        dns1123Subdomain(prefix).forEach(m -> errs.add("prefix part " + m));
      }
    } else {
      errs.add("a qualified name " + regexError(QNAME_MSG, QNAME_FMT, "MyName", "my.name", "123-abc")
          + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    if (name.isEmpty()) {
      errs.add("name part must be non-empty");
    } else if (bytes(name) > 63) {
      errs.add("name part must be no more than 63 characters");
    }
    if (!QNAME.matcher(name).matches()) {
      errs.add("name part " + regexError(QNAME_MSG, QNAME_FMT, "MyName", "my.name", "123-abc"));
    }
    return errs;
  }

  /**
   * @param value a label value
   * @return {@code IsValidLabelValue}'s messages; empty when valid
   */
  public static List<String> labelValue(String value) {
    List<String> errs = new ArrayList<>();
    if (bytes(value) > 63) {
      errs.add("must be no more than 63 characters");
    }
    if (!LABEL_VALUE.matcher(value).matches()) {
      errs.add(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
    }
    return errs;
  }

  /**
   * @param value a name (an admission review version)
   * @return {@code validation.IsDNS1035Label}'s messages: at most 63 characters, a lower case letter first, then
   *     lower case alphanumerics or {@code -}, an alphanumeric last; empty when valid
   */
  public static List<String> dns1035Label(String value) {
    List<String> errs = new ArrayList<>();
    if (bytes(value) > 63) {
      errs.add("must be no more than 63 characters");
    }
    if (!DNS1035_LABEL.matcher(value).matches()) {
      errs.add(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
          + "alphabetic character, and end with an alphanumeric character", "[a-z]([-a-z0-9]*[a-z0-9])?", "my-name",
          "abc-123"));
    }
    return errs;
  }

  /** The DNS-1035 label pattern ({@code validation.IsDNS1035Label}). */
  private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");

  /**
   * @param value a name
   * @return {@code IsDNS1123Label}'s messages (a namespace name): at most 63 characters, lower case alphanumerics or
   *     {@code -}, {@code must not contain dots} for a valid subdomain; empty when valid
   */
  public static List<String> dns1123Label(String value) {
    List<String> errs = new ArrayList<>();
    if (bytes(value) > 63) {
      errs.add("must be no more than 63 characters");
    }
    if (!DNS1123_LABEL.matcher(value).matches()) {
      errs.add(DNS1123_SUBDOMAIN.matcher(value).matches() ? "must not contain dots"
          : regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"));
    }
    return errs;
  }

  /**
   * @param value a name
   * @return {@code path.IsValidPathSegmentName}'s messages (RBAC object names): not {@code .} or {@code ..}, no
   *     {@code /} or {@code %}; empty when valid
   */
  public static List<String> pathSegmentName(String value) {
    if (value.equals(".") || value.equals("..")) {
      return List.of("may not be '" + value + "'");
    }
    return pathSegmentPrefix(value);
  }

  /**
   * A {@code generateName} as its kind's name rule sees it ({@code maskTrailingDash} of apimachinery's
   * {@code api/validation/generic.go}, kept as upstream has it: a trailing '-' and the character before it become
   * "a"), so that a prefix ending in '-' passes a rule that forbids a trailing '-'.
   *
   * @param prefix a {@code generateName}
   * @return the prefix to validate as a name
   */
  public static String maskTrailingDash(String prefix) {
    return prefix.length() > 1 && prefix.endsWith("-") ? prefix.substring(0, prefix.length() - 2) + "a" : prefix;
  }

  /**
   * A {@code generateName} checked as a path segment ({@code path.IsValidPathSegmentPrefix}: only '/' and '%' are
   * refused, since the generated suffix makes "." and ".." impossible).
   *
   * @param value a name prefix
   * @return the messages, empty when valid
   */
  public static List<String> pathSegmentPrefix(String value) {
    List<String> errs = new ArrayList<>();
    for (String bad : new String[] {"/", "%"}) {
      if (value.contains(bad)) {
        errs.add("may not contain '" + bad + "'");
      }
    }
    return errs;
  }

  /**
   * @param value a name
   * @return {@code IsDNS1123Subdomain}'s messages (the default name rule: custom resources, most built-ins); empty
   *     when valid
   */
  public static List<String> dns1123Subdomain(String value) {
    List<String> errs = new ArrayList<>();
    if (bytes(value) > 253) {
      errs.add("must be no more than 253 characters");
    }
    if (!DNS1123_SUBDOMAIN.matcher(value).matches()) {
      errs.add(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"));
    }
    return errs;
  }

  /** {@code validation.RegexError}. */
  private static String regexError(String msg, String fmt, String... examples) {
    StringBuilder sb = new StringBuilder(msg).append(" (e.g. ");
    for (int i = 0; i < examples.length; i++) {
      sb.append(i > 0 ? " or " : "").append('\'').append(examples[i]).append("', ");
    }
    return sb.append("regex used for validation is '").append(fmt).append("')").toString();
  }

  private static void generationNotNegative(JsonObject meta, List<FieldError> errs) {
    long gen = number(meta.getValue("generation"));
    if (gen < 0) {
      errs.add(FieldError.invalid("metadata.generation", gen, "must be greater than or equal to 0"));
    }
  }

  private static void labels(Object v, String field, List<FieldError> errs) {
    if (!(v instanceof JsonObject m)) {
      return;
    }
    for (Map.Entry<String, Object> e : m) {
      qualifiedName(e.getKey()).forEach(msg -> errs.add(FieldError.invalid(field, e.getKey(), msg)));
      String value = e.getValue() instanceof String s ? s : "";
      labelValue(value).forEach(msg -> errs.add(FieldError.invalid(field, value, msg)));
    }
  }

  private static void annotations(Object v, String field, List<FieldError> errs) {
    if (!(v instanceof JsonObject m)) {
      return;
    }
    long total = 0;
    for (Map.Entry<String, Object> e : m) {
      // the rule is QualifiedName except that case does not matter
      qualifiedName(e.getKey().toLowerCase(java.util.Locale.ROOT))
          .forEach(msg -> errs.add(FieldError.invalid(field, e.getKey(), msg)));
      total += bytes(e.getKey()) + (e.getValue() instanceof String s ? bytes(s) : 0);
    }
    if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
      errs.add(FieldError.tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
    }
  }

  private static void ownerReferences(Object v, String field, List<FieldError> errs) {
    if (!(v instanceof JsonArray refs)) {
      return;
    }
    String firstController = "";
    for (Object o : refs) {
      if (!(o instanceof JsonObject ref)) {
        continue;
      }
      String apiVersion = str(ref.getValue("apiVersion"));
      String kind = str(ref.getValue("kind"));
      String name = str(ref.getValue("name"));
      String[] gv = groupVersion(apiVersion);
      if (gv[1].isEmpty()) {
        errs.add(FieldError.invalid(field + ".apiVersion", apiVersion, "version must not be empty"));
      }
      if (kind.isEmpty()) {
        errs.add(FieldError.invalid(field + ".kind", kind, "kind must not be empty"));
      }
      if (name.isEmpty()) {
        errs.add(FieldError.invalid(field + ".name", name, "name must not be empty"));
      }
      String uid = str(ref.getValue("uid"));
      if (uid.isEmpty()) {
        errs.add(FieldError.invalid(field + ".uid", uid, "uid must not be empty"));
      }
      if (gv[0].isEmpty() && "v1".equals(gv[1]) && "Event".equals(kind)) {
        errs.add(FieldError.invalid(field, new GoValues.Raw(ref.encode()),
            "/v1, Kind=Event is disallowed from being an owner"));
      }
      if (Boolean.TRUE.equals(ref.getValue("controller"))) {
        String current = kind + "/" + name;
        if (!firstController.isEmpty()) {
          errs.add(FieldError.invalid(field, new GoValues.Raw(refs.encode()), "Only one reference can have "
              + "Controller set to true. Found \"true\" in references for " + firstController + " and " + current));
        } else {
          firstController = current;
        }
      }
    }
  }

  private static void finalizers(Object v, String field, List<FieldError> errs) {
    List<String> all = strings(v);
    for (String f : all) {
      qualifiedName(f).forEach(msg -> errs.add(FieldError.invalid(field, f, msg)));
    }
    if (all.contains(ORPHAN) && all.contains(FOREGROUND)) {
      errs.add(FieldError.invalid(field, new GoValues.Raw(goStrings(all)), "finalizer " + ORPHAN + " and "
          + FOREGROUND + " cannot be both set"));
    }
  }

  /** {@code schema.ParseGroupVersion} as {@code FromAPIVersionAndKind} uses it: {group, version}, both empty on error. */
  private static String[] groupVersion(String apiVersion) {
    if (apiVersion.isEmpty()) {
      return new String[] {"", ""};
    }
    String[] parts = apiVersion.split("/", -1);
    return switch (parts.length) {
      case 1 -> new String[] {"", parts[0]};
      case 2 -> new String[] {parts[0], parts[1]};
      default -> new String[] {"", ""};
    };
  }

  private static List<String> strings(Object v) {
    List<String> out = new ArrayList<>();
    if (v instanceof JsonArray a) {
      a.forEach(x -> {
        if (x instanceof String s) {
          out.add(s);
        }
      });
    }
    return out;
  }

  /** @return {@code fmt.Sprintf("%#v", []string{...})} */
  private static String goStrings(List<String> values) {
    return GoValues.stringSlice(values).text();
  }

  private static String str(Object v) {
    return v instanceof String s ? s : "";
  }

  private static long number(Object v) {
    return v instanceof Number n ? n.longValue() : 0L;
  }

  private static int bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  /** @return true when both are RFC 3339 times of one instant (metav1.Time's semantic equality), or equal */
  private static boolean sameInstant(Object a, Object b) {
    if (java.util.Objects.equals(a, b)) {
      return true;
    }
    try {
      return a instanceof String x && b instanceof String y
          && java.time.OffsetDateTime.parse(x).toInstant().equals(java.time.OffsetDateTime.parse(y).toInstant());
    } catch (java.time.format.DateTimeParseException e) {
      return false;
    }
  }

  /**
   * @param value an RFC 3339 time
   * @return Go's {@code time.Time.String()} of it in UTC (kube-apiserver's local zone in its images), as a field
   *     error prints a {@code *metav1.Time} (a Stringer); the quoted text when it is not a time
   */
  static Object goTime(Object value) {
    try {
      java.time.OffsetDateTime t = java.time.OffsetDateTime.parse(String.valueOf(value))
          .withOffsetSameInstant(java.time.ZoneOffset.UTC);
      String frac = t.getNano() == 0 ? "" : ("." + String.format("%09d", t.getNano())).replaceAll("0+$", "");
      return new io.mvproxy.registry.impl.schema.GoValues.Raw(
          t.format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")) + frac + " +0000 UTC");
    } catch (java.time.format.DateTimeParseException e) {
      return String.valueOf(value);
    }
  }
}

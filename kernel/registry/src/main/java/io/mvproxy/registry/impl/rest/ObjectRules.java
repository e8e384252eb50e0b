package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.StatusException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * What the server sets, keeps and checks on custom objects, following
 * {@code apiextensions-apiserver/pkg/registry/customresource/strategy.go} and {@code status_strategy.go} and
 * apiserver {@code pkg/registry/rest/create.go} / {@code update.go}.
 */
public final class ObjectRules {
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  /** The finalizers core kinds accept without a domain ({@code helper.IsStandardFinalizerName}). */
  private static final java.util.Set<String> STANDARD_FINALIZERS = java.util.Set.of("kubernetes", "orphan",
      "foregroundDeletion");
  private static final String GENERATE_CHARS = "bcdfghjklmnpqrstvwxz2456789";
  private static final SecureRandom RANDOM = new SecureRandom();
  /** The longest generateName kept whole: 63 minus the 5 random characters (apiserver {@code names/generate.go}). */
  static final int MAX_GENERATED_BASE = 58;
  /**
   * Makes the five random characters appended to a {@code generateName} (apiserver {@code names.SimpleNameGenerator}:
   * {@code utilrand.String(5)} of {@code bcdfghjklmnpqrstvwxz2456789}). Replaced only by tests, to make a
   * generated name meet an existing one.
   */
  public static volatile java.util.function.Supplier<String> nameSuffix = ObjectRules::randomSuffix;
  private final boolean setsGeneration;

  /** @return five characters of {@code bcdfghjklmnpqrstvwxz2456789}, at random */
  public static String randomSuffix() {
    StringBuilder sb = new StringBuilder(5);
    for (int i = 0; i < 5; i++) {
      sb.append(GENERATE_CHARS.charAt(RANDOM.nextInt(GENERATE_CHARS.length())));
    }
    return sb.toString();
  }

  /** Rules of a kind whose server sets {@code metadata.generation} (custom resources). */
  public ObjectRules() {
    this(true);
  }

  /**
   * @param setsGeneration true when the server sets {@code metadata.generation} (1 on create, + 1 when anything but
   *                       metadata and status changes), as the strategies of custom resources and of built-in kinds
   *                       with a spec do; false leaves it as the client sent it (ConfigMap, Secret, Namespace, RBAC:
   *                       their upstream strategies never touch it)
   */
  public ObjectRules(boolean setsGeneration) {
    this.setsGeneration = setsGeneration;
  }

  /**
   * @param body a request body
   * @return the JSON object in it
   * @throws StatusException 400 when it is not a JSON object
   */
  public JsonObject decode(Buffer body) {
    return decode(null, body);
  }

  /**
   * Decodes a create/update body ({@link StrictJson}: numbers in range, bounded nesting), recording its duplicate
   * fields in the request for {@link FieldValidation}; an {@code application/yaml} body is read as YAML.
   *
   * @param req  the request, or null to ignore duplicates
   * @param body a request body
   * @return the JSON object in it
   * @throws StatusException 400 when it is not a JSON object or a number is out of range; for JSON that is not an
   *     object, Go's text ({@link GoJsonSyntax#unrecognized})
   */
  public JsonObject decode(CrdRequest req, Buffer body) {
    boolean yaml = req != null && BodyTypes.isYaml(req.ctx().request().getHeader("Content-Type"));
    try {
      Object v;
      if (yaml) {
        v = yamlObject(req, body);
        StrictJson.requireFinite(v);
      } else {
        java.util.List<String> dups = new java.util.ArrayList<>();
        v = StrictJson.decode(body, dups);
        if (req != null && !dups.isEmpty()) {
          req.ctx().put(FieldValidation.DUPLICATES_KEY, dups);
        }
      }
      if (v instanceof JsonObject o) {
        if (req != null) {
          checkFindKind(req, o, body, yaml);
        }
        if (req != null && requiresKind(req) && !(o.getValue("kind") instanceof String k && !k.isEmpty())) {
          throw missingKind(req, body, o, yaml);
        }
        return o;
      }
      if (v == null && req != null) {
        if (!requiresKind(req)) {
          return new JsonObject();  // Go decodes null into the typed object as its zero value: validation answers
        }
        throw missingKind(req, body, null, yaml);
      }
    } catch (StatusException e) {
      throw e;
    } catch (RuntimeException e) {
      throw StatusException.badRequest(goUnrecognized(req, yaml, body,
          "the object provided is unrecognized: " + e.getMessage()));
    }
    throw StatusException.badRequest(goUnrecognized(req, yaml, body,
        "the object provided is unrecognized: expected a JSON object"));
  }

  /**
   * A create or update body in YAML as kube-apiserver's YAML serializer reads it: converted to JSON (sigs.k8s.io/yaml
   * {@code YAMLToJSON}, its first document), then decoded as JSON.
   *
   * @return the object, or null for an empty document or {@code null} (Go decodes {@code null})
   * @throws StatusException 400 {@code the object provided is unrecognized (must be of type <Kind>): error converting
   *     YAML to JSON: yaml: <reason>} (the reason is SnakeYAML's text, not Go's yaml package's), or {@code ...:
   *     couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct {...}
   *     (<summary>)} for a document that is no mapping
   */
  private static JsonObject yamlObject(CrdRequest req, Buffer body) {
    String kind = "scale".equals(req.info().subresource()) ? "Scale" : req.crd().kind();
    java.util.List<Object> docs;
    try {
      // YAMLToJSON keeps a repeated key's last value; with fieldValidation Warn or Strict, YAMLToJSONStrict's error
      // is the first strict problem (FieldValidation reports it)
      docs = io.mvproxy.registry.impl.YamlDocuments.readKeepingLastDuplicate(body.getBytes(),
          io.mvproxy.registry.impl.YamlDocuments.Limits.REQUEST);
      if (!"Ignore".equals(req.param("fieldValidation"))) {
        java.util.List<String> dups = io.mvproxy.registry.impl.YamlDocuments.duplicateKeys(body.getBytes(),
            io.mvproxy.registry.impl.YamlDocuments.Limits.REQUEST);
        if (!dups.isEmpty()) {
          req.ctx().put(FieldValidation.BODY_PROBLEMS_KEY, java.util.List.of("error converting YAML to JSON: yaml: "
              + "unmarshal errors:\n  " + String.join("\n  ", dups)));
        }
      }
    } catch (IllegalArgumentException e) {
      throw StatusException.badRequest("the object provided is unrecognized (must be of type " + kind + "): error "
          + "converting YAML to JSON: yaml: " + e.getMessage() + " (" + GoJsonSyntax.summarize(body.getBytes()) + ")");
    }
    if (docs.isEmpty()) {
      return null;
    }
    if (docs.get(0) instanceof JsonObject o) {
      return o;
    }
    throw StatusException.badRequest("the object provided is unrecognized (must be of type " + kind + "): couldn't "
        + "get version/kind; json parse error: json: cannot unmarshal " + typeName(docs.get(0)) + " into Go value of "
        + "type " + GoJsonSyntax.FIND_KIND_TYPE + " (" + GoJsonSyntax.summarize(body.getBytes()) + ")");
  }

  /**
   * The serializer's first look at a body ({@code SimpleMetaFactory.Interpret}: {@code apiVersion} and {@code kind}
   * into strings), before any kind's decoding: the first of them (in body order) that is neither a string nor null
   * fails the request.
   *
   * @throws StatusException 400 {@code the object provided is unrecognized (must be of type <Kind>): couldn't get
   *     version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string
   *     (<summary>)}
   */
  private static void checkFindKind(CrdRequest req, JsonObject o, Buffer body, boolean yaml) {
    java.util.List<String> dups = req.ctx().get(FieldValidation.DUPLICATES_KEY);
    String bad = null;
    String type = null;
    if (!yaml && dups != null && (dups.contains("kind") || dups.contains("apiVersion"))) {
      // a key given twice: Go decodes every occurrence and keeps the first type error, the JSON object the last value
      String[] first = firstNonString(body.getBytes());
      bad = first == null ? null : first[0];
      type = first == null ? null : first[1];
    } else {
      for (java.util.Map.Entry<String, Object> e : o) {
        if (("apiVersion".equals(e.getKey()) || "kind".equals(e.getKey())) && e.getValue() != null
            && !(e.getValue() instanceof String)) {
          bad = e.getKey();
          type = typeName(e.getValue());
          break;
        }
      }
    }
    if (bad != null) {
      String kind = "scale".equals(req.info().subresource()) ? "Scale" : req.crd().kind();
      throw StatusException.badRequest("the object provided is unrecognized (must be of type " + kind + "): "
          + "couldn't get version/kind; json parse error: json: cannot unmarshal " + type + " into Go struct field ."
          + bad + " of type string (" + GoJsonSyntax.summarize(body.getBytes()) + ")");
    }
  }

  private static final com.fasterxml.jackson.core.JsonFactory STREAMING = new com.fasterxml.jackson.core.JsonFactory();

  /**
   * @return the first top-level {@code apiVersion} or {@code kind} of a JSON object, in body order and counting every
   *     occurrence of a key, whose value is neither a string nor null, as {key, Go JSON type}; null when none
   */
  private static String[] firstNonString(byte[] json) {
    try (com.fasterxml.jackson.core.JsonParser p = STREAMING.createParser(json)) {
      if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
        String name = p.currentName();
        com.fasterxml.jackson.core.JsonToken v = p.nextToken();
        if (("apiVersion".equals(name) || "kind".equals(name)) && v != com.fasterxml.jackson.core.JsonToken.VALUE_STRING
            && v != com.fasterxml.jackson.core.JsonToken.VALUE_NULL) {
          return new String[] {name, switch (v) {
            case START_OBJECT -> "object";
            case START_ARRAY -> "array";
            case VALUE_TRUE, VALUE_FALSE -> "bool";
            default -> "number";
          }};
        }
        p.skipChildren();
      }
    } catch (java.io.IOException e) {
      return null;  // the body decoded before: not reached
    }
    return null;
  }

  /**
   * @return true when the body must name its kind: the kind's strategy asks for it ({@link
   *     ObjectStrategy#requiresKind}) and the body is no {@code /scale} subresource's (a typed autoscaling/v1 Scale)
   */
  private static boolean requiresKind(CrdRequest req) {
    return req.strategy().requiresKind() && !"scale".equals(req.info().subresource());
  }

  /**
   * The decoder's error for a custom resource without a string {@code kind} (apimachinery
   * {@code runtime/serializer/json/json.go Decode}: {@code MissingKindErr}), through the create and update handlers'
   * {@code transformDecodeError}.
   *
   * @param body the request body as sent
   * @param o    the decoded object, or null for a {@code null} (or empty YAML) body
   * @param yaml true for an {@code application/yaml} body
   * @return 400 BadRequest: with {@code fieldValidation=Warn} (the default) or {@code Strict} {@code the object
   *     provided is unrecognized (must be of type <Kind>): Object 'Kind' is missing in '<body>' (<summary>)}; with {@code
   *     Ignore} {@code <Kind> in version "<v>" cannot be handled as a <Kind>: Object 'Kind' is missing in '<data>'}
   */
  private static StatusException missingKind(CrdRequest req, Buffer body, JsonObject o, boolean yaml) {
    if ("Ignore".equals(req.param("fieldValidation"))) {
      // the non-strict decoder: Unstructured.UnmarshalJSON fails on the value's bytes (JSON whitespace around it
      // trimmed; YAML as the JSON it converts to) and the error carries the body's version, else the request's
      String data = o == null ? "null" : yaml ? sortedJson(o) : trimJsonSpace(body.toString(
          java.nio.charset.StandardCharsets.UTF_8));
      String version = req.version().name();
      if (o != null && o.getValue("apiVersion") instanceof String av && !av.isEmpty()
          && av.indexOf('/') == av.lastIndexOf('/')) {
        version = av.substring(av.indexOf('/') + 1);
      }
      String kind = req.crd().kind();
      return StatusException.badRequest(kind + " in version \"" + version + "\" cannot be handled as a " + kind
          + ": Object 'Kind' is missing in '" + data + "'");
    }
    // the strict decoder (fieldValidation Warn, the default, or Strict) reads the object into a map, then finds no
    // kind: MissingKindErr of the original body, and transformDecodeError's text without a kind
    return StatusException.badRequest("the object provided is unrecognized (must be of type " + req.crd().kind()
        + "): Object 'Kind' is missing in '" + body.toString(java.nio.charset.StandardCharsets.UTF_8) + "' ("
        + GoJsonSyntax.summarize(body.getBytes()) + ")");
  }

  /** @return {@code s} without JSON whitespace (space, tab, CR, LF) at either end */
  private static String trimJsonSpace(String s) {
    int a = 0;
    int b = s.length();
    while (a < b && " \t\r\n".indexOf(s.charAt(a)) >= 0) {
      a++;
    }
    while (b > a && " \t\r\n".indexOf(s.charAt(b - 1)) >= 0) {
      b--;
    }
    return s.substring(a, b);
  }

  /** @return {@code o} as Go's {@code json.Marshal} of the map sigs.k8s.io/yaml converts YAML to: keys sorted */
  private static String sortedJson(JsonObject o) {
    try {
      return SORTED.writeValueAsString(Json.decodeValue(o.encode(), java.util.Map.class));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      return o.encode();
    }
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper SORTED =
      new com.fasterxml.jackson.databind.ObjectMapper().configure(
          com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  /**
   * @return kube-apiserver's text for a JSON body that is not JSON or not an object ({@link GoJsonSyntax}), or
   *     {@code otherwise} (YAML bodies, valid JSON refused for another reason, no request)
   */
  private static String goUnrecognized(CrdRequest req, boolean yaml, Buffer body, String otherwise) {
    String kind = req == null ? null : "scale".equals(req.info().subresource()) ? "Scale" : req.crd().kind();
    String go = req == null || yaml ? null : GoJsonSyntax.unrecognized(kind, body.getBytes());
    return go != null ? go : otherwise;
  }

  /**
   * Checks {@code kind} / {@code apiVersion} (filled in when absent) and the namespace and name against the path.
   *
   * @throws StatusException 400 on a mismatch
   */
  public void checkIdentity(CrdRequest req, JsonObject o, boolean nameFromPath) {
    checkTypes(req, o);
    String kind = o.getString("kind");
    if (kind == null || kind.isEmpty()) {
      o.put("kind", req.crd().kind());
    } else if (!kind.equals(req.crd().kind())) {
      throw StatusException.badRequest("the kind of the provided object (" + kind + ") does not match the expected "
          + "kind " + req.crd().kind());
    }
    String av = o.getString("apiVersion");
    if (av == null || av.isEmpty()) {
      o.put("apiVersion", req.apiVersion());
    } else if (!GroupVersion.parse(av).group().equals(req.crd().group()) || req.crd().served(
        GroupVersion.parse(av).version()).isEmpty()) {
      throw StatusException.badRequest("the API version in the data (" + av + ") does not match the expected API "
          + "version (" + req.apiVersion() + ")");
    }
    JsonObject meta = metadata(o);
    String ns = meta.getString("namespace", "");
    if (req.crd().namespaced()) {
      if (ns.isEmpty()) {
        meta.put("namespace", req.namespace());
      } else if (!ns.equals(req.namespace())) {
        throw StatusException.badRequest("the namespace of the provided object does not match the namespace sent on "
            + "the request");
      }
    } else {
      meta.remove("namespace");
    }
    if (nameFromPath) {
      String name = meta.getString("name", "");
      if (name.isEmpty()) {
        meta.put("name", req.name());
      } else if (!name.equals(req.name())) {
        throw StatusException.badRequest("the name of the object (" + name + ") does not match the name on the URL ("
            + req.name() + ")");
      }
    }
  }

  /**
   * Type checks the decoder of a typed object would make ({@code apiVersion}, {@code kind} and the string fields
   * of {@code metadata} are strings, {@code generation} an integer, labels and annotations maps of strings,
   * finalizers a list of strings), and for kinds with {@link ObjectStrategy#typedDecoding} their own top-level fields
   * ({@link TypedFields}) and the fields the strategy reads ({@link ObjectStrategy#readTypedFields}, e.g. times), with
   * kube-apiserver's decoding message.
   *
   * @throws StatusException 400 BadRequest {@code <Kind> in version "<v>" cannot be handled as a <Kind>: json: cannot
   *     unmarshal ...}
   */
  static void checkTypes(CrdRequest req, JsonObject o) {
    checkMetaTypes(req, o);
    if (req.strategy() != null && req.strategy().typedDecoding()) {
      TypedFields.check(req, o);
      String err = req.strategy().readTypedFields(req, o);
      if (err != null) {
        throw decodeError(req, err);
      }
    }
  }

  private static void checkMetaTypes(CrdRequest req, JsonObject o) {
    for (String f : new String[] {"apiVersion", "kind"}) {
      if (o.getValue(f) != null && !(o.getValue(f) instanceof String)) {
        throw typeError(req, f, typeName(o.getValue(f)), "string", "");
      }
    }
    Object m = o.getValue("metadata");
    if (m == null) {
      return;
    }
    if (!(m instanceof JsonObject meta)) {
      // a typed kind's decoder names its struct field; a custom resource's ObjectMeta is decoded on its own
      throw typeError(req, "metadata", typeName(m), "v1.ObjectMeta", req.strategy() != null
          && req.strategy().typedDecoding() ? " " + req.crd().kind() : "");
    }
    for (String f : new String[] {"name", "generateName", "namespace", "uid", "resourceVersion", "selfLink",
        "creationTimestamp", "deletionTimestamp"}) {
      Object v = meta.getValue(f);
      if (v != null && !(v instanceof String)) {
        throw typeError(req, "metadata." + f, typeName(v), "string", " ObjectMeta");
      }
    }
    for (String f : new String[] {"generation", "deletionGracePeriodSeconds"}) {
      Object n = meta.getValue(f);
      if (n != null && !(n instanceof Long || n instanceof Integer)) {
        // literalStore: a number ParseInt cannot read (a fraction, beyond int64) is named with its literal
        throw typeError(req, "metadata." + f, n instanceof Number ? "number " + n : typeName(n), "int64",
            " ObjectMeta");
      }
    }
    for (String f : new String[] {"labels", "annotations"}) {
      Object v = meta.getValue(f);
      if (v != null && !(v instanceof JsonObject)) {
        throw typeError(req, "metadata." + f, typeName(v), "map[string]string", " ObjectMeta");
      }
      if (v instanceof JsonObject map) {
        for (java.util.Map.Entry<String, Object> e : map) {
          if (e.getValue() != null && !(e.getValue() instanceof String)) {
            throw typeError(req, "metadata." + f, typeName(e.getValue()), "string", " ObjectMeta");
          }
        }
      }
    }
    checkList(req, meta.getValue("finalizers"), "metadata.finalizers", "string", String.class, () -> "");
    checkOwnerReferenceTypes(req, meta.getValue("ownerReferences"));
  }

  /**
   * The decoder's checks of a list field of ObjectMeta: a list, each item a {@code type}; a null item becomes Go's
   * zero value of the item type ({@code zero}), which validation then judges.
   *
   * @param goType the item's Go type as the decoder names it ({@code string}, {@code v1.OwnerReference})
   * @return the list, or null when absent
   * @throws StatusException 400 {@link #typeError} naming {@code []<goType>} or {@code <goType>}
   */
  private static JsonArray checkList(CrdRequest req, Object v, String field, String goType, Class<?> type,
                                     java.util.function.Supplier<Object> zero) {
    if (v != null && !(v instanceof JsonArray)) {
      throw typeError(req, field, typeName(v), "[]" + goType, " ObjectMeta");
    }
    JsonArray a = (JsonArray) v;
    for (int i = 0; a != null && i < a.size(); i++) {
      Object item = a.getValue(i);
      if (item == null) {
        a.set(i, zero.get());
      } else if (!type.isInstance(item)) {
        throw typeError(req, field, typeName(item), goType, " ObjectMeta");
      }
    }
    return a;
  }

  /** The decoder's checks of {@code metadata.ownerReferences}: a list of objects with string and bool fields. */
  private static void checkOwnerReferenceTypes(CrdRequest req, Object refs) {
    JsonArray a = checkList(req, refs, "metadata.ownerReferences", "v1.OwnerReference", JsonObject.class,
        JsonObject::new);
    if (a != null) {
      for (Object v : a) {
        if (v instanceof JsonObject ref) {
          for (String[] f : new String[][] {{"apiVersion", "string"}, {"kind", "string"}, {"name", "string"},
              {"uid", "types.UID"}}) {
            Object x = ref.getValue(f[0]);
            if (x != null && !(x instanceof String)) {
              throw typeError(req, "metadata.ownerReferences." + f[0], typeName(x), f[1], " OwnerReference");
            }
          }
          for (String f : new String[] {"controller", "blockOwnerDeletion"}) {
            Object x = ref.getValue(f);
            if (x != null && !(x instanceof Boolean)) {
              throw typeError(req, "metadata.ownerReferences." + f, typeName(x), "bool", " OwnerReference");
            }
          }
        }
      }
    }
  }

  /** @return the JSON type as Go's decoder names it in an {@code UnmarshalTypeError} */
  static String typeName(Object v) {
    return v instanceof Number ? "number" : v instanceof Boolean ? "bool" : v instanceof JsonArray ? "array"
        : v instanceof JsonObject ? "object" : "string";
  }

  /**
   * @param field  the field's path from the object ({@code metadata.name}); a custom resource's metadata is decoded
   *               on its own (apiextensions {@code objectmeta/coerce.go}), so there Go names it from the metadata
   *               ({@code ObjectMeta.name}, {@code OwnerReference.ownerReferences.uid}), a typed kind's from the object
   *               ({@code ObjectMeta.metadata.name})
   * @param struct {@code " <GoStruct>"}, or {@code ""} for a top-level value
   * @return the decoding error ({@link #decodeError}) Go's {@code UnmarshalTypeError} gives
   */
  static StatusException typeError(CrdRequest req, String field, String got, String want, String struct) {
    if (field.startsWith("metadata.") && !(req.strategy() != null && req.strategy().typedDecoding())) {
      field = field.substring("metadata.".length());
    }
    String where = struct.isEmpty() ? "" : " into Go struct field" + struct + "." + field;
    return decodeError(req, "json: cannot unmarshal " + got + (where.isEmpty() ? " into Go value" : where)
        + " of type " + want);
  }

  /**
   * @param req    the request
   * @param detail the decoder's error, e.g. {@code illegal base64 data at input byte 0}
   * @return 400 BadRequest {@code <Kind> in version "<v>" cannot be handled as a <Kind>: <detail>} (apiserver
   *     {@code handlers/create.go transformDecodeError})
   */
  public static StatusException decodeError(CrdRequest req, String detail) {
    String kind = req.crd().kind();
    return StatusException.badRequest(kind + " in version \"" + req.version().name() + "\" cannot be handled as a "
        + kind + ": " + detail);
  }

  /**
   * Prepares a new object: generated name, uid, creationTimestamp, generation 1 (when the kind sets it), storage
   * apiVersion; drops {@code status} when the status subresource is enabled.
   *
   * @throws StatusException 422 when the name or the metadata ({@link ObjectMetaValidator}) is invalid
   */
  public JsonObject prepareCreate(CrdRequest req, JsonObject o) {
    JsonObject meta = metadata(o);
    if (meta.getString("name", "").isEmpty() && !meta.getString("generateName", "").isEmpty()) {
      String base = meta.getString("generateName");
      meta.put("name", base.substring(0, Math.min(base.length(), MAX_GENERATED_BASE)) + nameSuffix.get());
    }
    omitEmpty(meta);
    if (req.version().statusEnabled()) {
      o.remove("status");  // customResourceStrategy.PrepareForCreate, before Validate: its errors are not listed
    }
    validate(req, o, null);
    finalizerWarnings(req, meta, null);
    meta.put("uid", UUID.randomUUID().toString());
    meta.put("creationTimestamp", now());
    if (setsGeneration) {
      meta.put("generation", 1);
    }
    meta.remove("resourceVersion");
    meta.remove("deletionTimestamp");
    meta.remove("deletionGracePeriodSeconds");
    meta.remove("selfLink");
    o.put("apiVersion", req.crd().storageApiVersion());
    return o;
  }

  /**
   * Prepares an update of the main resource: system metadata kept from {@code old}, {@code status} kept from
   * {@code old} when the status subresource is enabled, generation + 1 when anything but metadata (and status)
   * changed (when the kind sets it).
   *
   * @throws StatusException 422 when the metadata is invalid ({@link ObjectMetaValidator#validateUpdate})
   */
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject o) {
    JsonObject meta = metadata(o);
    JsonObject oldMeta = old.getJsonObject("metadata");
    for (String k : new String[] {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
        "name", "namespace"}) {
      if ("uid".equals(k) && meta.getValue(k) instanceof String uid && !uid.isEmpty()) {
        continue;  // rest.BeforeUpdate keeps a uid sent; ValidateObjectMetaUpdate refuses another one
      }
      if ("deletionTimestamp".equals(k) && oldMeta.getValue(k) == null
          || "deletionGracePeriodSeconds".equals(k) && (oldMeta.getValue(k) == null || meta.getValue(k) != null)) {
        // rest.BeforeUpdate: "an update can never remove/change a deletion timestamp" (kept only when set) and
        // "... remove/change grace period seconds" (kept only when set and not sent); one an update sets where there
        // was none, or another grace period, is refused by ValidateObjectMetaUpdate as immutable
        continue;
      }
      if (oldMeta.containsKey(k)) {
        meta.put(k, oldMeta.getValue(k));
      } else {
        meta.remove(k);
      }
    }
    meta.remove("selfLink");
    boolean statusSub = req.version().statusEnabled();
    if (statusSub) {
      if (old.containsKey("status")) {
        o.put("status", old.getValue("status"));
      } else {
        o.remove("status");
      }
    }
    o.put("apiVersion", req.crd().storageApiVersion());
    if (setsGeneration) {
      long gen = oldMeta.getLong("generation", 1L);
      meta.put("generation", specOf(o, statusSub).equals(specOf(old, statusSub)) ? gen : gen + 1);
    } else {
      copy(oldMeta, meta, "generation");  // rest.BeforeUpdate: "Ensure requests cannot update generation"
    }
    omitEmpty(meta);
    validate(req, o, old);
    finalizerWarnings(req, meta, oldMeta);
    return o;
  }

  /**
   * apiextensions' {@code generateWarningsFromObj} for custom resources (and code kinds): each finalizer a write
   * adds that has no {@code /} and is not a standard one gets a {@code Warning} header
   * ({@code metadata.finalizers: "foo": prefer a domain-qualified finalizer name to avoid accidental conflicts with
   * other finalizer writers}, {@code ... including a path (/) ...} for one with a {@code .}); built-in kinds refuse
   * them instead ({@link ObjectStrategy#kubeFinalizerNames}).
   */
  private static void finalizerWarnings(CrdRequest req, JsonObject meta, JsonObject oldMeta) {
    if (req.strategy().typedDecoding() || !(meta.getValue("finalizers") instanceof JsonArray fins)) {
      return;
    }
    java.util.TreeSet<String> added = new java.util.TreeSet<>();
    fins.forEach(f -> {
      if (f instanceof String s) {
        added.add(s);
      }
    });
    if (oldMeta != null && oldMeta.getValue("finalizers") instanceof JsonArray before) {
      before.forEach(added::remove);
    }
    for (String f : added) {
      if (!f.contains("/") && !STANDARD_FINALIZERS.contains(f)) {
        io.mvproxy.api.Warnings.add(req.ctx(), "metadata.finalizers: " + io.mvproxy.api.GoStrings.quote(f)
            + ": prefer a domain-qualified finalizer name " + (f.contains(".") ? "including a path (/) " : "")
            + "to avoid accidental conflicts with other finalizer writers");
      }
    }
  }

  /**
   * What kube-apiserver's {@code rest.BeforeCreate} / {@code rest.BeforeUpdate} do after the mutating admission
   * ({@code registry/rest/create.go}, {@code update.go}), applied again to an object a mutating webhook changed: the
   * namespace must still be the request's, the system fields (a create's uid, creationTimestamp, deletionTimestamp,
   * resourceVersion, generation, and the status under a status subresource) are the server's, the name and uid of an
   * update are immutable, and the metadata is validated again.
   *
   * @param req      the request
   * @param mutated  the mutated object in storage form (changed in place)
   * @param prepared the object the webhooks were sent, prepared by {@link #prepareCreate} / {@link #prepareUpdate}
   * @param old      the stored object as {@link #prepareUpdate} saw it, or null for a create
   * @return the object to validate and store
   * @throws StatusException 400 {@code the namespace of the provided object does not match the namespace sent on
   *     the request}; 422 Invalid for invalid metadata or a changed name or uid ({@code field is immutable})
   */
  public JsonObject afterMutation(CrdRequest req, JsonObject mutated, JsonObject prepared, JsonObject old) {
    JsonObject meta = metadata(mutated);
    JsonObject pm = metadata(prepared);
    Object nsValue = meta.getValue("namespace");
    String ns = nsValue instanceof String s ? s : "";
    if (req.crd().namespaced()) {
      if (ns.isEmpty()) {
        meta.put("namespace", req.namespace());
      } else if (!ns.equals(req.namespace())) {
        throw StatusException.badRequest("the namespace of the provided object does not match the namespace sent on "
            + "the request");
      }
    } else {
      meta.remove("namespace");
    }
    boolean statusSub = req.version().statusEnabled();
    if (old == null) {
      for (String k : new String[] {"uid", "creationTimestamp"}) {
        copy(pm, meta, k);
      }
      if (setsGeneration) {
        copy(pm, meta, "generation");
      }
      for (String k : new String[] {"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds",
          "selfLink"}) {
        meta.remove(k);
      }
      if (statusSub) {
        mutated.remove("status");
      }
      omitEmpty(meta);
      validate(req, mutated, null);
      return mutated;
    }
    JsonObject oldMeta = metadata(old);
    Object name = meta.getValue("name");
    if (!java.util.Objects.equals(name, oldMeta.getValue("name"))) {
      throw StatusException.invalid(req.gvr(), req.crd().kind(), oldMeta.getString("name", ""), new JsonArray()
          .add(cause("FieldValueInvalid", "metadata.name", "Invalid value: " + io.mvproxy.registry.impl.schema.GoValues
              .quote(name instanceof String s ? s : String.valueOf(name)) + ": field is immutable")));
    }
    if ("status".equals(req.info().subresource())) {
      JsonObject out = prepared.copy();
      if (mutated.containsKey("status")) {
        out.put("status", mutated.getValue("status"));
      } else {
        out.remove("status");
      }
      return out;
    }
    for (String k : new String[] {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"}) {
      if ("uid".equals(k) && meta.getValue(k) instanceof String uid && !uid.isEmpty()
          && req.info().subresource().isEmpty()) {
        // rest.BeforeUpdate after admission: a uid a webhook set is kept, and refused when another (on /scale the
        // webhook's object is the Scale, of which only the replicas are taken: scaleUpdatedObjectInfo)
        continue;
      }
      copy(pm, meta, k);
    }
    meta.remove("selfLink");
    if (statusSub) {
      copy(prepared, mutated, "status");
    }
    if (setsGeneration) {
      long gen = oldMeta.getLong("generation", 1L);
      meta.put("generation", specOf(mutated, statusSub).equals(specOf(old, statusSub)) ? gen : gen + 1);
    } else {
      copy(oldMeta, meta, "generation");  // rest.BeforeUpdate, after admission: a webhook cannot change it either
    }
    omitEmpty(meta);
    validate(req, mutated, old);
    return mutated;
  }

  /**
   * Drops the {@code omitempty} collections of ObjectMeta that are empty or null ({@code labels: {}},
   * {@code annotations: {}}, {@code ownerReferences: []}, {@code finalizers: []}) and an empty {@code generateName},
   * as the typed round trip of every write does (Go's encoder never writes them; for custom resources
   * {@code schema/objectmeta Coerce}), so they are neither stored nor returned: {@code kubectl diff} of an unchanged
   * object finds no difference. {@code managedFields: []} is left for the field manager (it resets the managed
   * fields).
   */
  private static void omitEmpty(JsonObject meta) {
    if ("".equals(meta.getValue("generateName"))) {
      meta.remove("generateName");  // an omitempty string of ObjectMeta: kubectl's generateName: "" never reads back
    }
    for (String f : new String[] {"labels", "annotations", "ownerReferences", "finalizers"}) {
      Object v = meta.getValue(f);
      if (v == null || v instanceof JsonObject m && m.isEmpty() || v instanceof JsonArray a && a.isEmpty()) {
        meta.remove(f);
      }
    }
  }

  /** Sets {@code to[key]} to {@code from[key]}, or removes it when {@code from} has none. */
  private static void copy(JsonObject from, JsonObject to, String key) {
    if (from.containsKey(key)) {
      to.put(key, from.getValue(key));
    } else {
      to.remove(key);
    }
  }

  /** Prepares a status update: everything from {@code old} but {@code status} from {@code o}. */
  public JsonObject prepareStatusUpdate(JsonObject old, JsonObject o) {
    JsonObject out = old.copy();
    if (o.containsKey("status")) {
      out.put("status", o.getValue("status"));
    } else {
      out.remove("status");
    }
    return out;
  }

  /** @return true when {@code a} and {@code b} differ only in {@code metadata.resourceVersion} */
  public static boolean sameContent(JsonObject a, JsonObject b) {
    JsonObject x = a.copy();
    JsonObject y = b.copy();
    metadata(x).remove("resourceVersion");
    metadata(y).remove("resourceVersion");
    return x.equals(y);
  }

  /** @return the RFC 3339 current time in seconds, as Kubernetes stamps it */
  public static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** @return {@code o.metadata}, created when absent (400 when not an object) */
  public static JsonObject metadata(JsonObject o) {
    Object m = o.getValue("metadata");
    if (m == null) {
      JsonObject created = new JsonObject();
      o.put("metadata", created);
      return created;
    }
    if (!(m instanceof JsonObject mo)) {
      throw StatusException.badRequest("metadata must be an object");
    }
    return mo;
  }

  private static JsonObject specOf(JsonObject o, boolean dropStatus) {
    JsonObject c = o.copy();
    c.remove("metadata");
    c.remove("apiVersion");
    if (dropStatus) {
      c.remove("status");
    }
    return c;
  }

  /**
   * {@code ValidateObjectMetaAccessor} (create) or also {@code ValidateObjectMetaAccessorUpdate} (update) of
   * {@code o}, in upstream's order: generateName, name, namespace, then generation, labels, annotations,
   * ownerReferences, finalizers (and core's finalizer names where {@link ObjectStrategy#kubeFinalizerNames}). When
   * any fails, the answer lists every error of the object, as the kind's upstream {@code Validate} does (kube's
   * validation aggregates, it does not stop at the first failing rule): the metadata's, then the kind's own or the
   * schema's ({@link #restOfValidation}); a create of a kind whose rules answer alone
   * ({@link ObjectStrategy#kindRulesAlone}) gets only those when they fail. Metadata fields of the wrong JSON type
   * are answered alone (their values cannot be checked further). An update of a kind that does not validate its
   * whole metadata again checks the name as a path segment only.
   *
   * @param old the stored object as the request's version sees it for an update, null for a create
   * @throws StatusException 422 Invalid with one cause per error
   */
  private void validate(CrdRequest req, JsonObject o, JsonObject old) {
    JsonObject oldMeta = old == null ? null : metadata(old);
    JsonObject meta = metadata(o);
    JsonArray causes = new JsonArray();
    String name = meta.getString("name", "");
    String ns = meta.getString("namespace", "");
    if (meta.getValue("generateName") instanceof String prefix && !prefix.isEmpty()) {
      if (oldMeta != null) {
        // every update: rest.BeforeUpdate's validateCommonFields (ValidateObjectMetaAccessor with
        // path.ValidatePathSegmentName: no '/' or '%' in a prefix), before the kind's own validation
        invalidName(causes, "metadata.generateName", prefix, ObjectMetaValidator.pathSegmentPrefix(prefix), prefix);
      }
      if (oldMeta == null || req.strategy().validatesMetaOnUpdate()) {
        // the kind's ValidateObjectMeta checks the prefix with its name rule: a bad one is named as such, beside the
        // name made from it; on update only for kinds whose upstream update validates the whole object again
        invalidName(causes, "metadata.generateName", prefix, req.strategy().prefixProblems(prefix),
            ObjectMetaValidator.maskTrailingDash(prefix));
      }
    }
    if (name.isEmpty()) {
      causes.add(cause("FieldValueRequired", "metadata.name", "Required value: name or generateName is required"));
    } else {
      // an update of a kind that does not validate its whole metadata again checks the (immutable) name only as
      // rest.BeforeUpdate's validateCommonFields does: a core v1 Event's name updated through events.k8s.io
      invalidName(causes, "metadata.name", name, oldMeta != null && !req.strategy().validatesMetaOnUpdate()
          ? ObjectMetaValidator.pathSegmentName(name) : req.strategy().nameProblems(name), name);
    }
    if (req.crd().namespaced() && !DNS_LABEL.matcher(ns).matches()) {
      causes.add(cause("FieldValueInvalid", "metadata.namespace", "Invalid value: "
          + io.mvproxy.api.GoStrings.quote(ns) + ": a lowercase RFC 1123 label must consist of lower case "
          + "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
          + "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
    }
    int identityCauses = causes.size();
    for (String f : new String[] {"labels", "annotations"}) {
      Object v = meta.getValue(f);
      if (v != null && !(v instanceof JsonObject)) {
        causes.add(cause("FieldValueInvalid", "metadata." + f, "Invalid value: must be a map of strings"));
      } else if (v instanceof JsonObject m) {
        m.forEach(e -> {
          if (!(e.getValue() instanceof String)) {
            causes.add(cause("FieldValueInvalid", "metadata." + f + "." + e.getKey(),
                "Invalid value: must be a string"));
          }
        });
      }
    }
    Object fin = meta.getValue("finalizers");
    if (fin != null && !(fin instanceof JsonArray)) {
      causes.add(cause("FieldValueInvalid", "metadata.finalizers", "Invalid value: must be a list of strings"));
    }
    if (causes.size() > identityCauses) {
      throw StatusException.invalid(req.gvr(), req.crd().kind(), name, causes);
    }
    (oldMeta == null ? ObjectMetaValidator.validate(meta) : ObjectMetaValidator.validateUpdate(meta, oldMeta))
        .forEach(e -> causes.add(e.toCause()));
    if (req.strategy().kubeFinalizerNames() && meta.getValue("finalizers") instanceof JsonArray finalizers) {
      // core's ValidateObjectMeta: validateKubeFinalizerName of each, after apimachinery's checks
      for (int i = 0; i < finalizers.size(); i++) {
        if (finalizers.getValue(i) instanceof String f && !f.contains("/") && !STANDARD_FINALIZERS.contains(f)) {
          causes.add(cause("FieldValueInvalid", "metadata.finalizers[" + i + "]", "Invalid value: "
              + io.mvproxy.api.GoStrings.quote(f) + ": name is neither a standard finalizer name nor is it fully "
              + "qualified"));
        }
      }
    }
    if (!causes.isEmpty()) {
      JsonArray rest = restOfValidation(req, o, old);
      if (oldMeta == null && req.strategy().kindRulesAlone() && !rest.isEmpty()) {
        throw StatusException.invalid(req.gvr(), req.crd().kind(), name, rest);
      }
      throw StatusException.invalid(req.gvr(), req.crd().kind(), name, causes.addAll(rest));
    }
  }

  /**
   * The errors the kind or the schema find in an object whose metadata is invalid, to be listed after the
   * metadata's, as a valid object's write would find them: the kind's own when it has any ({@link
   * ObjectStrategy#violations}: a built-in kind's rules answer alone, as its {@code prepareCreate} does; a code kind's
   * include its schema's errors first), else the schema's (custom resources); none when a check fails on such an
   * object (the metadata's errors are answered then).
   */
  private static JsonArray restOfValidation(CrdRequest req, JsonObject o, JsonObject old) {
    try {
      JsonArray own = req.strategy().violations(req, o, old);
      if (!own.isEmpty()) {
        return own;
      }
      io.mvproxy.registry.impl.schema.VersionSchema vs = req.version().validation();
      return vs == null ? own : io.mvproxy.registry.impl.schema.FieldError.causes(vs.validate(o, old,
          "status".equals(req.info().subresource()), new java.util.ArrayList<>()));
    } catch (RuntimeException e) {
      return new JsonArray();
    }
  }

  /**
   * Adds one FieldValueInvalid cause per message of the kind's name rule ({@code null}: the default
   * {@code IsDNS1123Subdomain} of {@code checked}).
   */
  private static void invalidName(JsonArray causes, String field, String value, java.util.List<String> problems,
      String checked) {
    for (String p : problems != null ? problems : ObjectMetaValidator.dns1123Subdomain(checked)) {
      causes.add(cause("FieldValueInvalid", field, "Invalid value: " + io.mvproxy.registry.impl.schema.GoValues
          .quote(value) + ": " + p));
    }
  }

  private static JsonObject cause(String reason, String field, String message) {
    return new JsonObject().put("reason", reason).put("message", message).put("field", field);
  }
}

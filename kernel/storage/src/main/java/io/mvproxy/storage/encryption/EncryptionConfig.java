package io.mvproxy.storage.encryption;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * kube-apiserver's {@code --encryption-provider-config}: an {@code apiserver.config.k8s.io/v1}
 * {@code EncryptionConfiguration} (YAML or JSON) parsed and validated as upstream
 * ({@code apiserver/pkg/server/options/encryptionconfig/config.go}, {@code apis/config/validation/validation.go}),
 * turned into one {@link ValueTransformer} per group resource. Providers {@code aesgcm}, {@code aescbc},
 * {@code secretbox} and {@code identity}; {@code kms} is refused. Resources are {@code secrets} (core),
 * {@code widgets.demo.mvproxy.io}, {@code *.} (every core resource), {@code *.apps} (every resource of a group) or
 * {@code *.*} (everything); a resource takes the providers of every entry naming it, and a wildcard entry masks
 * later entries of the resources it covers (an error, as upstream). Lookup: the exact resource, then
 * {@code *.<group>}, then {@code *.*}, else identity (which refuses encrypted values).
 */
public final class EncryptionConfig {
  /** The configuration's apiVersion. */
  public static final String API_VERSION = "apiserver.config.k8s.io/v1";
  /** The configuration's kind. */
  public static final String KIND = "EncryptionConfiguration";
  static final String AESGCM_PREFIX = "k8s:enc:aesgcm:v1:";
  static final String AESCBC_PREFIX = "k8s:enc:aescbc:v1:";
  static final String SECRETBOX_PREFIX = "k8s:enc:secretbox:v1:";
  private static final String NO_PROVIDER =
      "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity";

  /** A parsed group resource ({@code schema.GroupResource}); {@code *} is a wildcard in either part. */
  public record GroupResource(String group, String resource) {
    /**
     * @param s {@code resource} or {@code resource.group} (split at the first dot, as {@code ParseGroupResource})
     * @return the group resource
     */
    public static GroupResource parse(String s) {
      int dot = s.indexOf('.');
      return dot < 0 ? new GroupResource("", s) : new GroupResource(s.substring(dot + 1), s.substring(0, dot));
    }

    @Override
    public String toString() {
      if (group.isEmpty() && "*".equals(resource)) {
        return "*.";
      }
      return group.isEmpty() ? resource : resource + "." + group;
    }
  }

  private final Map<GroupResource, PrefixTransformers> transformers;
  private final Map<GroupResource, List<String>> providers;
  private final String contentHash;

  private EncryptionConfig(Map<GroupResource, PrefixTransformers> transformers,
                           Map<GroupResource, List<String>> providers, String contentHash) {
    this.transformers = transformers;
    this.providers = providers;
    this.contentHash = contentHash;
  }

  /**
   * @return the hex SHA-256 of the text this configuration was parsed from (UTF-8), as upstream's
   *     {@code EncryptionFileContentHash}: {@link EncryptionConfigReloader} reloads only a file whose hash differs
   */
  public String contentHash() {
    return contentHash;
  }

  /** @return the hex SHA-256 of {@code bytes} */
  static String sha256Hex(byte[] bytes) {
    try {
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Reads and parses a configuration file.
   *
   * @param file the file
   * @return the configuration
   * @throws IllegalArgumentException with upstream's text ({@code error while parsing encryption provider
   *                                  configuration file "<file>": ...}) when unreadable or invalid
   */
  public static EncryptionConfig load(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException("error opening encryption provider configuration file \"" + file + "\": "
          + e.getMessage());
    }
    try {
      return parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("error while parsing encryption provider configuration file \"" + file
          + "\": " + e.getMessage());
    }
  }

  /**
   * Parses a configuration.
   *
   * @param text YAML or JSON
   * @return the configuration
   * @throws IllegalArgumentException naming the first invalid fields as upstream's field errors
   *                                  ({@code resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: ...})
   */
  public static EncryptionConfig parse(String text) {
    JsonObject doc;
    try {
      Object o = new ObjectMapper(new YAMLFactory()).readValue(text, Object.class);
      if (!(o instanceof Map<?, ?> m)) {
        throw new IllegalArgumentException("the configuration is not an object");
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> map = (Map<String, Object>) m;
      doc = new JsonObject(map);
    } catch (IOException e) {
      throw new IllegalArgumentException("error converting YAML to JSON: " + e.getMessage().split("\n")[0]);
    }
    String apiVersion = doc.getValue("apiVersion") instanceof String s ? s : "";
    String kind = doc.getValue("kind") instanceof String s ? s : "";
    if (!API_VERSION.equals(apiVersion) || !KIND.equals(kind)) {
      throw new IllegalArgumentException("no kind \"" + kind + "\" is registered for version \"" + apiVersion
          + "\" (expected apiVersion " + API_VERSION + ", kind " + KIND + ")");
    }
    List<String> errs = new ArrayList<>();
    JsonArray resources = array(doc, "resources", "resources", errs);
    if (resources == null || resources.isEmpty()) {
      if (errs.isEmpty()) {
        errs.add("resources: Required value: at least one resources is required");
      }
      throw new IllegalArgumentException(PrefixTransformers.aggregate(errs));
    }
    Map<GroupResource, List<PrefixTransformers.Entry>> entries = new LinkedHashMap<>();
    Map<GroupResource, List<String>> names = new LinkedHashMap<>();
    for (int i = 0; i < resources.size(); i++) {
      String path = "resources[" + i + "]";
      if (!(resources.getValue(i) instanceof JsonObject rc)) {
        errs.add(path + ": Invalid value: must be an object");
        continue;
      }
      JsonArray rs = array(rc, "resources", path + ".resources", errs);
      JsonArray ps = array(rc, "providers", path + ".providers", errs);
      List<String> rnames = new ArrayList<>();
      if (rs == null || rs.isEmpty()) {
        errs.add(path + ".resources: Required value: at least one " + path + ".resources is required");
      } else {
        for (int j = 0; j < rs.size(); j++) {
          if (!(rs.getValue(j) instanceof String r)) {
            errs.add(path + ".resources[" + j + "]: Invalid value: must be a string");
            continue;
          }
          String err = resourceNameError(r);
          if (err != null) {
            errs.add(path + ".resources[" + j + "]: Invalid value: \"" + r + "\": " + err);
          }
          rnames.add(r);
        }
        overlap(rnames, path + ".resources", errs);
      }
      List<PrefixTransformers.Entry> list = new ArrayList<>();
      List<String> pnames = new ArrayList<>();
      if (ps == null || ps.isEmpty()) {
        errs.add(path + ".providers: Required value: at least one " + path + ".providers is required");
      } else {
        for (int j = 0; j < ps.size(); j++) {
          String pp = path + ".providers[" + j + "]";
          PrefixTransformers.Entry e = provider(ps.getValue(j), pp, errs, pnames);
          if (e != null) {
            list.add(e);
          }
        }
      }
      if (!errs.isEmpty()) {
        continue;
      }
      for (String r : rnames) {
        GroupResource gr = GroupResource.parse(r);
        GroupResource anyInGroup = new GroupResource(gr.group(), "*");
        GroupResource any = new GroupResource("*", "*");
        if (entries.containsKey(anyInGroup)) {
          throw new IllegalArgumentException("resource \"" + gr + "\" is masked by earlier rule \"" + anyInGroup
              + "\"");
        }
        if (entries.containsKey(any)) {
          throw new IllegalArgumentException("resource \"" + gr + "\" is masked by earlier rule \"" + any + "\"");
        }
        entries.computeIfAbsent(gr, k -> new ArrayList<>()).addAll(list);
        names.computeIfAbsent(gr, k -> new ArrayList<>()).addAll(pnames);
      }
    }
    if (!errs.isEmpty()) {
      throw new IllegalArgumentException(PrefixTransformers.aggregate(errs));
    }
    Map<GroupResource, PrefixTransformers> out = new LinkedHashMap<>();
    entries.forEach((gr, l) -> out.put(gr, new PrefixTransformers("no matching prefix found", l)));
    return new EncryptionConfig(out, names, sha256Hex(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static JsonArray array(JsonObject o, String field, String path, List<String> errs) {
    Object v = o.getValue(field);
    if (v == null || v instanceof JsonArray) {
      return (JsonArray) v;
    }
    errs.add(path + ": Invalid value: must be a list");
    return null;
  }

  /** {@code validateResourceNames}. @return the error of one resource name, or null */
  static String resourceNameError(String r) {
    if (!r.toLowerCase(java.util.Locale.ROOT).equals(r)) {
      return "resource name should not contain capital letters";
    }
    if ("*".equals(r)) {
      return "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources";
    }
    if (r.equals("apiserveripinfo") || r.equals("serviceipallocations") || r.equals("servicenodeportallocations")) {
      return "resources which do not have REST API/s cannot be encrypted";
    }
    GroupResource gr = GroupResource.parse(r);
    if ("events.k8s.io".equals(gr.group())) {
      return "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in"
          + " the config file";
    }
    if ("extensions".equals(gr.group())) {
      return "'extensions' group has been removed and cannot be used for encryption";
    }
    if ("*".equals(gr.group()) && !"*".equals(gr.resource())) {
      return "encrypting the same resource across groups is not supported";
    }
    return null;
  }

  /** {@code validateResourceOverlap}: duplicates and wildcards overlapping names of the same list. */
  private static void overlap(List<String> names, String path, List<String> errs) {
    if (names.size() < 2) {
      return;
    }
    List<GroupResource> rs = names.stream().map(GroupResource::parse).toList();
    boolean dup = false;
    boolean over = false;
    for (int i = 0; i < rs.size(); i++) {
      for (int j = 0; j < rs.size(); j++) {
        if (i == j) {
          continue;
        }
        GroupResource a = rs.get(i);
        GroupResource b = rs.get(j);
        if (a.equals(b)) {
          dup = true;
        } else if (a.equals(new GroupResource("*", "*"))
            || a.group().equals(b.group()) && ("*".equals(a.resource()) || "*".equals(b.resource()))) {
          over = true;
        }
      }
    }
    String value = new JsonArray(names).encode();
    if (dup) {
      errs.add(path + ": Invalid value: " + value + ": the same resource cannot be specified multiple times");
    }
    if (over) {
      errs.add(path + ": Invalid value: " + value + ": using overlapping resources such as 'secrets' and '*.' in"
          + " the same resource list is not allowed as they will be masked");
    }
  }

  private static PrefixTransformers.Entry provider(Object raw, String path, List<String> errs, List<String> names) {
    if (!(raw instanceof JsonObject p)) {
      errs.add(path + ": Invalid value: " + NO_PROVIDER);
      return null;
    }
    List<String> kinds = p.fieldNames().stream()
        .filter(k -> List.of("aesgcm", "aescbc", "secretbox", "identity", "kms").contains(k)).toList();
    if (kinds.isEmpty()) {
      errs.add(path + ": Invalid value: " + p.encode() + ": " + NO_PROVIDER);
      return null;
    }
    if (kinds.size() > 1) {
      errs.add(path + ": Invalid value: " + p.encode() + ": more than one provider specified in a single element,"
          + " should split into different list elements");
      return null;
    }
    String kind = kinds.get(0);
    if (p.size() > 1) {
      errs.add(path + ": Invalid value: unknown field \"" + p.fieldNames().stream().filter(k -> !k.equals(kind))
          .findFirst().orElse("") + "\"");
      return null;
    }
    switch (kind) {
      case "identity":
        names.add("identity");
        return new PrefixTransformers.Entry(new byte[0], IdentityTransformer.INSTANCE);
      case "kms":
        errs.add(path + ".kms: Unsupported value: the kms provider (envelope encryption through a KMS plugin) is not"
            + " supported by mvproxy; use aesgcm, aescbc, secretbox or identity");
        return null;
      default:
        break;
    }
    Object body = p.getValue(kind);
    JsonArray keys = body instanceof JsonObject b && b.getValue("keys") instanceof JsonArray a ? a : null;
    String kp = path + "." + kind + ".keys";
    if (keys == null || keys.isEmpty()) {
      errs.add(kp + ": Required value: at least one keys is required");
      return null;
    }
    List<Integer> sizes = "secretbox".equals(kind) ? List.of(32) : List.of(16, 24, 32);
    List<PrefixTransformers.Entry> perKey = new ArrayList<>();
    List<String> keyNames = new ArrayList<>();
    int before = errs.size();
    for (int i = 0; i < keys.size(); i++) {
      String ip = kp + "[" + i + "]";
      JsonObject k = keys.getValue(i) instanceof JsonObject o ? o : new JsonObject();
      String name = k.getValue("name") instanceof String s ? s : "";
      String secret = k.getValue("secret") instanceof String s ? s : "";
      if (name.isEmpty()) {
        errs.add(ip + ".name: Required value: name is a mandatory field for a key");
      }
      if (secret.isEmpty()) {
        errs.add(ip + ".secret: Required value: secret is a mandatory field for a key");
        continue;
      }
      byte[] bytes;
      try {
        bytes = Base64.getDecoder().decode(secret);
      } catch (IllegalArgumentException e) {
        errs.add(ip + ".secret: Invalid value: \"REDACTED\": secrets must be base64 encoded");
        continue;
      }
      if (!sizes.contains(bytes.length)) {
        errs.add(ip + ".secret: Invalid value: \"REDACTED\": secret is not of the expected length, got "
            + bytes.length + ", expected one of " + sizes.toString().replace(",", ""));
        continue;
      }
      if (name.isEmpty()) {
        continue;
      }
      ValueTransformer t = switch (kind) {
        case "aesgcm" -> new AesGcmTransformer(bytes);
        case "aescbc" -> new AesCbcTransformer(bytes);
        default -> new SecretboxTransformer(bytes);
      };
      perKey.add(new PrefixTransformers.Entry((name + ":").getBytes(StandardCharsets.UTF_8), t));
      keyNames.add(name);
    }
    if (errs.size() > before) {
      return null;
    }
    names.add(kind + "(" + String.join(",", keyNames) + ")");
    String prefix = switch (kind) {
      case "aesgcm" -> AESGCM_PREFIX;
      case "aescbc" -> AESCBC_PREFIX;
      default -> SECRETBOX_PREFIX;
    };
    String noKey = "secretbox".equals(kind) ? "no matching key was found for the provided Secretbox transformer"
        : "no matching key was found for the provided AES transformer";
    return new PrefixTransformers.Entry(prefix.getBytes(StandardCharsets.US_ASCII),
        new PrefixTransformers(noKey, perKey));
  }

  /**
   * @param group    the API group ({@code ""} for core)
   * @param resource the plural resource
   * @return the transformer of that resource (exact, then {@code *.<group>}, then {@code *.*}), or null when none
   *     is configured: values are stored as they are and encrypted ones refused (identity)
   */
  public ValueTransformer transformerFor(String group, String resource) {
    PrefixTransformers t = transformers.get(new GroupResource(group, resource));
    if (t == null) {
      t = transformers.get(new GroupResource(group, "*"));
    }
    if (t == null) {
      t = transformers.get(new GroupResource("*", "*"));
    }
    return t;
  }

  /** @return each configured resource with its providers in order, the writing one first (logs, README) */
  public Map<String, List<String>> summary() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    providers.forEach((gr, p) -> out.put(gr.toString(), List.copyOf(p)));
    return out;
  }
}

package io.mvproxy.example.wardle;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * The API the sample server serves, as kubernetes/sample-apiserver's {@code pkg/apis/wardle/v1alpha1}: group
 * {@code wardle.example.com}, version {@code v1alpha1}, namespaced {@code flunders} (kind {@code Flunder}), and its
 * discovery documents: aggregated {@code APIGroupDiscoveryList} (apidiscovery v2 / v2beta1, same shape), legacy
 * {@code APIGroupList}, {@code APIGroup} and {@code APIResourceList}. Stateless.
 */
public final class WardleApi {
  /** The API group. */
  public static final String GROUP = "wardle.example.com";
  /** The only version. */
  public static final String VERSION = "v1alpha1";
  /** {@code group/version}. */
  public static final String GROUP_VERSION = GROUP + "/" + VERSION;
  /** Plural resource name. */
  public static final String RESOURCE = "flunders";
  /** Singular resource name. */
  public static final String SINGULAR = "flunder";
  /** Kind. */
  public static final String KIND = "Flunder";
  /** Path prefix of the group-version. */
  public static final String PREFIX = "/apis/" + GROUP + "/" + VERSION;
  /** Verbs served, in the order they are listed. */
  public static final JsonArray VERBS = new JsonArray().add("create").add("delete").add("get").add("list").add("watch");
  /** The annotation naming who created an object (the sample's "whoami"). */
  public static final String CREATED_BY = GROUP + "/created-by";
  /** The annotation listing the creator's groups, comma separated. */
  public static final String CREATED_BY_GROUPS = GROUP + "/created-by-groups";

  private WardleApi() {
  }

  /**
   * @param discoveryVersion {@code v2} or {@code v2beta1}
   * @return the aggregated discovery document of that version
   */
  public static JsonObject aggregated(String discoveryVersion) {
    JsonObject kind = new JsonObject().put("group", GROUP).put("version", VERSION).put("kind", KIND);
    JsonObject resource = new JsonObject().put("resource", RESOURCE).put("singularResource", SINGULAR)
        .put("scope", "Namespaced").put("responseKind", kind).put("verbs", VERBS.copy());
    JsonObject version = new JsonObject().put("version", VERSION).put("freshness", "Current")
        .put("resources", new JsonArray().add(resource));
    JsonObject group = new JsonObject().put("metadata", new JsonObject().put("name", GROUP))
        .put("versions", new JsonArray().add(version));
    return new JsonObject().put("kind", "APIGroupDiscoveryList")
        .put("apiVersion", "apidiscovery.k8s.io/" + discoveryVersion).put("metadata", new JsonObject())
        .put("items", new JsonArray().add(group));
  }

  /** @return the legacy {@code APIGroup} of {@code /apis/wardle.example.com} */
  public static JsonObject apiGroup() {
    JsonObject v = new JsonObject().put("groupVersion", GROUP_VERSION).put("version", VERSION);
    return new JsonObject().put("kind", "APIGroup").put("apiVersion", "v1").put("name", GROUP)
        .put("versions", new JsonArray().add(v)).put("preferredVersion", v.copy());
  }

  /** @return the legacy {@code APIGroupList} of {@code /apis} */
  public static JsonObject apiGroupList() {
    JsonObject g = apiGroup();
    g.remove("kind");
    g.remove("apiVersion");
    return new JsonObject().put("kind", "APIGroupList").put("apiVersion", "v1").put("groups", new JsonArray().add(g));
  }

  /** @return the legacy {@code APIResourceList} of {@code /apis/wardle.example.com/v1alpha1} */
  public static JsonObject apiResourceList() {
    JsonObject r = new JsonObject().put("name", RESOURCE).put("singularName", SINGULAR).put("namespaced", true)
        .put("kind", KIND).put("verbs", VERBS.copy()).put("storageVersionHash", storageVersionHash());
    return new JsonObject().put("kind", "APIResourceList").put("apiVersion", "v1").put("groupVersion", GROUP_VERSION)
        .put("resources", new JsonArray().add(r));
  }

  /** @return base64 of the first 8 bytes of SHA-256 of {@code group/version/kind} (apiserver {@code discovery}) */
  static String storageVersionHash() {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest((GROUP_VERSION + "/" + KIND)
          .getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(Arrays.copyOf(d, 8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}

package io.mvproxy.authorization;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The default ClusterRoles and ClusterRoleBindings of kube-apiserver
 * ({@code plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go}, data in {@code bootstrap-policy.yaml}):
 * {@code cluster-admin}, {@code admin}, {@code edit}, {@code view} (aggregated), {@code system:aggregate-to-*},
 * {@code system:discovery}, {@code system:basic-user}, {@code system:public-info-viewer},
 * {@code system:monitoring}, {@code system:auth-delegator}, {@code system:service-account-issuer-discovery}, each
 * labelled {@code kubernetes.io/bootstrapping: rbac-defaults} and annotated
 * {@code rbac.authorization.kubernetes.io/autoupdate: "true"}.
 */
public final class BootstrapPolicy {
  /** Annotation that lets operators opt a default object out of reconciliation ({@code "false"}). */
  public static final String AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate";

  private static final JsonObject POLICY = load();

  private BootstrapPolicy() {
  }

  /** @return copies of the default ClusterRoles */
  public static List<JsonObject> clusterRoles() {
    return copies(POLICY.getJsonArray("clusterRoles"));
  }

  /** @return copies of the default ClusterRoleBindings */
  public static List<JsonObject> clusterRoleBindings() {
    return copies(POLICY.getJsonArray("clusterRoleBindings"));
  }

  /**
   * Fills an index with the defaults (what a node authorizes with before storage has answered).
   *
   * @param index the index
   */
  public static void seed(RbacIndex index) {
    index.replace(RbacIndex.CLUSTER_ROLE, clusterRoles());
    index.replace(RbacIndex.CLUSTER_ROLE_BINDING, clusterRoleBindings());
  }

  /**
   * Reconciles a stored default object with its default ({@code reconciliation/clusterrole.go},
   * {@code clusterrolebinding.go}): missing rules, subjects, labels and annotations are added, everything users
   * added is kept; an object annotated {@code autoupdate: "false"} is left alone.
   *
   * @param stored   the stored object, or null when missing
   * @param defaults the default object
   * @return the object to write, or null when nothing needs writing
   */
  public static JsonObject reconcile(JsonObject stored, JsonObject defaults) {
    if (stored == null) {
      return defaults.copy();
    }
    JsonObject md = stored.getJsonObject("metadata", new JsonObject());
    JsonObject ann = md.getJsonObject("annotations", new JsonObject());
    if ("false".equals(ann.getString(AUTOUPDATE))) {
      return null;
    }
    JsonObject out = stored.copy();
    boolean changed = false;
    JsonObject outMd = out.getJsonObject("metadata");
    for (String f : List.of("labels", "annotations")) {
      JsonObject want = defaults.getJsonObject("metadata").getJsonObject(f, new JsonObject());
      JsonObject have = outMd.getJsonObject(f);
      if (have == null) {
        have = new JsonObject();
        outMd.put(f, have);
      }
      for (Map.Entry<String, Object> e : want) {
        if (!have.containsKey(e.getKey())) {
          have.put(e.getKey(), e.getValue());
          changed = true;
        }
      }
    }
    for (String list : List.of("rules", "subjects")) {
      JsonArray want = defaults.getJsonArray(list);
      if (want == null) {
        continue;
      }
      JsonArray have = out.getJsonArray(list);
      if (have == null) {
        have = new JsonArray();
        out.put(list, have);
      }
      for (Object w : want) {
        if (!have.contains(w)) {
          have.add(w);
          changed = true;
        }
      }
    }
    if (defaults.containsKey("aggregationRule") && !defaults.getValue("aggregationRule").equals(out.getValue("aggregationRule"))) {
      out.put("aggregationRule", defaults.getJsonObject("aggregationRule").copy());
      changed = true;
    }
    if (defaults.containsKey("roleRef") && !defaults.getValue("roleRef").equals(out.getValue("roleRef"))) {
      return null; // roleRef is immutable: upstream recreates; the stored binding is kept as the operator made it
    }
    return changed ? out : null;
  }

  private static List<JsonObject> copies(JsonArray a) {
    List<JsonObject> out = new ArrayList<>();
    for (Object o : a) {
      out.add(((JsonObject) o).copy());
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static JsonObject load() {
    try (InputStream in = BootstrapPolicy.class.getResourceAsStream("bootstrap-policy.yaml")) {
      if (in == null) {
        throw new IllegalStateException("bootstrap-policy.yaml missing from the authorization jar");
      }
      return new JsonObject(new ObjectMapper(new YAMLFactory()).readValue(in, Map.class));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

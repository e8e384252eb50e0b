package io.mvproxy.controllers;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@code metadata.ownerReferences[]} entry (meta/v1 {@code types.go}).
 *
 * @param apiVersion         owner's {@code group/version}
 * @param kind               owner's kind
 * @param name               owner's name (in the dependent's namespace when the owner is namespaced)
 * @param uid                owner's uid
 * @param blockOwnerDeletion true when the dependent holds a foreground deletion of the owner back
 */
public record OwnerReference(String apiVersion, String kind, String name, String uid, boolean blockOwnerDeletion) {
  /**
   * @param metadata an object's metadata
   * @return its owner references (entries lacking a required field are skipped)
   */
  public static List<OwnerReference> of(JsonObject metadata) {
    List<OwnerReference> out = new ArrayList<>();
    JsonArray refs = metadata.getJsonArray("ownerReferences");
    if (refs == null) {
      return out;
    }
    for (Object o : refs) {
      if (o instanceof JsonObject r && r.getString("apiVersion") != null && r.getString("kind") != null
          && r.getString("name") != null && r.getString("uid") != null) {
        out.add(new OwnerReference(r.getString("apiVersion"), r.getString("kind"), r.getString("name"),
            r.getString("uid"), Boolean.TRUE.equals(r.getBoolean("blockOwnerDeletion"))));
      }
    }
    return out;
  }

  /** @return e.g. {@code Widget demo/x (demo.mvproxy.io/v1, uid 1234)} for events and logs */
  public String describe(String namespace) {
    return kind + " " + (namespace == null || namespace.isEmpty() ? "" : namespace + "/") + name + " ("
        + apiVersion + ", uid " + uid + ")";
  }
}

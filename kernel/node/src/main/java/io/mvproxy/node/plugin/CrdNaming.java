package io.mvproxy.node.plugin;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.registry.impl.model.CrdConditions;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static io.mvproxy.node.plugin.ApiCrdVerticle.now;

/**
 * {@link ApiCrdVerticle}'s naming controller for API-created CRDs
 * ({@code apiextensions-apiserver/pkg/controller/status/naming_controller.go}): {@code NamesAccepted} against the
 * accepted names of the other stored CRDs and the built-in kinds of the group, {@code status.acceptedNames},
 * {@code Established=False Installing} (or {@code NotAccepted}).
 */
final class CrdNaming {
  private final StoredCrds crds;
  private final Supplier<List<ApiSource>> builtins;

  /**
   * @param crds     the stored CRDs
   * @param builtins the node's built-in API sources (their names count)
   */
  CrdNaming(StoredCrds crds, Supplier<List<ApiSource>> builtins) {
    this.crds = crds;
    this.builtins = builtins;
  }

  /** @return the CRD with its names' verdict when it changes, else null */
  JsonObject naming(JsonObject crd) {
    CrdConditions.Names mine = CrdConditions.names(crd);
    JsonObject status = crd.getJsonObject("status", new JsonObject());
    boolean accepted = CrdConditions.isTrue(crd, CrdConditions.NAMES_ACCEPTED);
    if (accepted && mine.toJson().equals(status.getJsonObject("acceptedNames"))) {
      return null;
    }
    List<CrdConditions.Names> others = new ArrayList<>();
    String self = crd.getJsonObject("metadata").getString("name");
    Map<String, JsonObject> stored = crds.stored();
    stored.forEach((n, o) -> {
      if (!n.equals(self) && o.getJsonObject("status", new JsonObject()).getValue("acceptedNames")
          instanceof JsonObject an) {
        JsonObject view = new JsonObject().put("spec", new JsonObject().put("group", o.getJsonObject("spec",
            new JsonObject()).getString("group", "")).put("names", an));
        others.add(CrdConditions.names(view));
      }
    });
    for (ApiSource b : builtins.get()) {
      for (ServedGroupVersion gv : b.groupVersions()) {
        for (DiscoveryResource r : gv.resources()) {
          String kind = r.responseKind() == null ? "" : r.responseKind().kind();
          others.add(new CrdConditions.Names(gv.groupVersion().group(), r.resource(),
              r.singularResource() == null ? "" : r.singularResource(), r.shortNames(), kind,
              kind.isEmpty() ? "" : kind + "List"));
        }
      }
    }
    String[] verdict = CrdConditions.namesAccepted(mine, others);
    JsonObject next = crd.copy();
    String now = now();
    CrdConditions.set(next, CrdConditions.NAMES_ACCEPTED, verdict[0], verdict[1], verdict[2], now);
    if ("True".equals(verdict[0])) {
      next.getJsonObject("status").put("acceptedNames", mine.toJson());
    }
    if (!CrdConditions.isTrue(crd, CrdConditions.ESTABLISHED)) {
      if ("True".equals(verdict[0])) {
        CrdConditions.set(next, CrdConditions.ESTABLISHED, "False", "Installing",
            "the initial names have been accepted", now);
      } else {
        CrdConditions.set(next, CrdConditions.ESTABLISHED, "False", "NotAccepted", "not all names are accepted", now);
      }
    }
    return sameStatus(crd, next) ? null : next;
  }

  /** @return true when both CRDs have equal {@code status} */
  private static boolean sameStatus(JsonObject a, JsonObject b) {
    return a.getJsonObject("status", new JsonObject()).equals(b.getJsonObject("status", new JsonObject()));
  }
}

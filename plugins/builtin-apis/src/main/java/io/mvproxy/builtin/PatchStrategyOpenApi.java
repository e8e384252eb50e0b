package io.mvproxy.builtin;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ForwardingApiSource;
import io.mvproxy.api.GroupVersion;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * A built-in source whose OpenAPI says what kube-apiserver's says about strategic merge patch: every PATCH operation
 * lists {@code application/strategic-merge-patch+json} (after the merge patch, as kube orders them), and the kind's
 * tagged lists carry {@code x-kubernetes-patch-strategy} / {@code x-kubernetes-patch-merge-key} as the
 * {@code patchStrategy}/{@code patchMergeKey} struct tags of its Go type ({@link KindSemantics#PATCH_TAGS};
 * ObjectMeta's come with the shared meta definitions). Everything else is forwarded unchanged
 * ({@link ForwardingApiSource}) but the CRD capability, which a built-in kind does not have.
 */
final class PatchStrategyOpenApi extends ForwardingApiSource {
  /** The patch type built-in kinds accept beyond custom resources'. */
  static final String STRATEGIC = "application/strategic-merge-patch+json";
  private final String plural;

  /**
   * @param delegate the built-in source
   * @param plural   its resource (key of {@link KindSemantics#PATCH_TAGS})
   */
  PatchStrategyOpenApi(ApiSource delegate, String plural) {
    super(delegate);
    this.plural = plural;
  }

  @Override
  public JsonObject openApiV3(GroupVersion gv) {
    return advertise(super.openApiV3(gv), plural, false);
  }

  @Override
  public JsonObject openApiV2(GroupVersion gv) {
    return advertise(super.openApiV2(gv), plural, true);
  }

  /**
   * @param fragment a built-in kind's OpenAPI fragment ({@code paths} and {@code components.schemas} or
   *                 {@code definitions}), changed in place; null passes through
   * @param plural   the kind's resource
   * @param v2       true for a Swagger 2 fragment
   * @return the fragment
   */
  static JsonObject advertise(JsonObject fragment, String plural, boolean v2) {
    if (fragment == null) {
      return null;
    }
    for (Map.Entry<String, Object> path : fragment.getJsonObject("paths", new JsonObject())) {
      if (path.getValue() instanceof JsonObject item && item.getValue("patch") instanceof JsonObject op) {
        if (v2) {
          JsonArray consumes = op.getJsonArray("consumes", new JsonArray());
          if (!consumes.contains(STRATEGIC)) {
            int at = consumes.getList().indexOf("application/merge-patch+json");
            consumes.getList().add(at < 0 ? consumes.size() : at + 1, STRATEGIC);
          }
        } else if (op.getValue("requestBody") instanceof JsonObject body
            && body.getValue("content") instanceof JsonObject content && !content.containsKey(STRATEGIC)) {
          JsonObject next = new JsonObject();
          for (Map.Entry<String, Object> e : content) {
            next.put(e.getKey(), e.getValue());
            if ("application/merge-patch+json".equals(e.getKey())) {
              next.put(STRATEGIC, ((JsonObject) e.getValue()).copy());
            }
          }
          if (!next.containsKey(STRATEGIC)) {
            next.put(STRATEGIC, new JsonObject().put("schema", content.getJsonObject("application/json-patch+json",
                new JsonObject()).getValue("schema")));
          }
          body.put("content", next);
        }
      }
    }
    Map<String, String> tags = KindSemantics.PATCH_TAGS.getOrDefault(plural, Map.of());
    JsonObject schemas = v2 ? fragment.getJsonObject("definitions", new JsonObject())
        : fragment.getJsonObject("components", new JsonObject()).getJsonObject("schemas", new JsonObject());
    for (Map.Entry<String, Object> def : schemas) {
      if (!(def.getValue() instanceof JsonObject schema) || isList(schema)) {
        continue;
      }
      for (Map.Entry<String, String> tag : tags.entrySet()) {
        JsonObject field = field(schema, tag.getKey());
        if (field != null) {
          String[] strategy = tag.getValue().split(":", 2);
          field.put("x-kubernetes-patch-strategy", strategy[0]);
          if (strategy.length == 2) {
            field.put("x-kubernetes-patch-merge-key", strategy[1]);
          }
        }
      }
    }
    return fragment;
  }

  /** @return true for the schema of a {@code <Kind>List} (its items are the kind's, not its fields) */
  private static boolean isList(JsonObject schema) {
    return schema.getValue("x-kubernetes-group-version-kind") instanceof JsonArray gvks && gvks.stream()
        .anyMatch(g -> g instanceof JsonObject o && o.getString("kind", "").endsWith("List"));
  }

  /** @return the inline schema at a dotted path of {@code properties}, or null */
  private static JsonObject field(JsonObject schema, String dotted) {
    JsonObject at = schema;
    for (String part : dotted.split("\\.")) {
      if (!(at.getValue("properties") instanceof JsonObject props) || !(props.getValue(part) instanceof JsonObject f)) {
        return null;
      }
      at = f;
    }
    return at;
  }

  /**
   * Hidden on purpose: the wrapped built-in kind is a CRD-shaped source that offers its manifest, but a built-in
   * kind (served by the node, as kube-apiserver's) is no CustomResourceDefinition and must never be published as
   * one.
   *
   * @return empty
   */
  @Override
  public java.util.Optional<JsonObject> customResourceDefinition() {
    return java.util.Optional.empty();
  }
}

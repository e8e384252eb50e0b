package io.mvproxy.registry.impl.rest;

import io.vertx.core.json.JsonObject;

/**
 * What a list, watch or deletecollection selects: a namespace ({@code ""} for all) plus label and field selectors.
 *
 * @param namespace namespace or {@code ""}
 * @param labels    label selector
 * @param fields    field selector
 */
public record ListFilter(String namespace, LabelSelector labels, FieldSelector fields) {

  /** @return the filter of a request's path and {@code labelSelector} / {@code fieldSelector} parameters (400 when bad) */
  public static ListFilter of(CrdRequest req) {
    return new ListFilter(req.crd().namespaced() ? req.namespace() : "",
        LabelSelector.parse(req.param("labelSelector")),
        FieldSelector.parse(req.param("fieldSelector"), req.strategy().selectableFields()));
  }

  /** @return true when {@code object} is selected */
  public boolean matches(JsonObject object) {
    if (!namespace.isEmpty()
        && !namespace.equals(object.getJsonObject("metadata", new JsonObject()).getString("namespace", ""))) {
      return false;
    }
    return labels.matches(object) && fields.matches(object);
  }

  /** @return true when no selector narrows the namespace's objects */
  public boolean selectsAll() {
    return labels.isEmpty() && fields.isEmpty();
  }
}

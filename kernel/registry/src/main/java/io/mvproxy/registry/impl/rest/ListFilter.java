package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonObject;

/**
 * What a list, watch or deletecollection selects: a namespace ({@code ""} for all) plus label and field selectors.
 *
 * @param namespace namespace or {@code ""}
 * @param labels    label selector
 * @param fields    field selector
 */
public record ListFilter(String namespace, LabelSelector labels, FieldSelector fields) {

  /**
   * The filter of a request's path and {@code labelSelector} / {@code fieldSelector} parameters. A name in the path
   * (a watch of one object: {@code .../watch/<resource>/<name>} or {@code .../<resource>/<name>?watch=true}) selects
   * {@code metadata.name=<name>}; a field selector beside it must require exactly that name (apiserver
   * {@code pkg/endpoints/handlers/get.go} {@code parseListOptions}).
   *
   * @param req the request
   * @return the filter
   * @throws StatusException 400 BadRequest for a bad selector or {@code fieldSelector metadata.name doesn't match
   *                         requested name}
   */
  public static ListFilter of(CrdRequest req) {
    FieldSelector fields = FieldSelector.parse(req.param("fieldSelector"), req.strategy().selectableFields());
    String name = req.name();
    if (!name.isEmpty()) {
      if (fields.isEmpty()) {
        fields = FieldSelector.name(name);
      } else if (!name.equals(fields.equalValue("metadata.name"))) {
        throw StatusException.badRequest("fieldSelector metadata.name doesn't match requested name");
      }
    }
    return new ListFilter(req.crd().namespaced() ? req.namespace() : "",
        LabelSelector.parse(req.param("labelSelector")), fields);
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

package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdVersion;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * One request against a custom resource, resolved to the CRD version it addresses.
 *
 * @param ctx     the routing context
 * @param info    the parsed request
 * @param user    the caller
 * @param crd     the definition
 * @param version the served version named in the path
 * @param strategy the kind's behaviour ({@link ObjectStrategy#NONE} for plain custom resources)
 */
public record CrdRequest(RoutingContext ctx, RequestInfo info, UserInfo user, CrdDefinition crd, CrdVersion version,
                         ObjectStrategy strategy) {

  /** @return the resource of the path */
  public Gvr gvr() {
    return crd.gvr(version.name());
  }

  /** @return {@code group/version} of the path, the {@code apiVersion} objects are returned with */
  public String apiVersion() {
    return new GroupVersion(crd.group(), version.name()).apiVersion();
  }

  /** @return the namespace of the path, {@code ""} for none */
  public String namespace() {
    return info.namespace();
  }

  /** @return the object name of the path */
  public String name() {
    return info.name();
  }

  /** @return the storage key of the addressed object: {@code <namespace>/<name>}, or {@code <name>} when cluster-scoped */
  public String key() {
    return key(info.name());
  }

  /** @return the storage key of object {@code name} in this request's namespace */
  public String key(String name) {
    return crd.namespaced() ? info.namespace() + "/" + name : name;
  }

  /** @return the storage key prefix of this request's collection: {@code <namespace>/}, or {@code ""} for all */
  public String keyPrefix() {
    return crd.namespaced() && !info.namespace().isEmpty() ? info.namespace() + "/" : "";
  }

  /** @return the first value of query parameter {@code name}, or null */
  public String param(String name) {
    return ctx.request().getParam(name);
  }

  /** @return true for {@code ?pretty} set true ({@link io.mvproxy.api.BoolParam}): answers are indented */
  public boolean pretty() {
    return io.mvproxy.api.BoolParam.of(param("pretty"));
  }

  /**
   * @return true for {@code dryRun=All}, false without the parameter
   * @throws StatusException 422 for any other value, as apimachinery's {@code ValidateDryRun}:
   *     {@code CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"x"}: supported values:
   *     "All"} (UpdateOptions, PatchOptions or DeleteOptions by verb)
   */
  public boolean dryRun() {
    java.util.List<String> values = ctx.request().params().getAll("dryRun");
    if (values.isEmpty()) {
      return false;
    }
    if (values.stream().allMatch("All"::equals)) {
      return true;
    }
    String kind = switch (ctx.request().method().name()) {
      case "POST" -> "CreateOptions";
      case "PUT" -> "UpdateOptions";
      case "PATCH" -> "PatchOptions";
      case "DELETE" -> "DeleteOptions";
      default -> "ListOptions";
    };
    String shown = values.stream().map(v -> "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
        .collect(java.util.stream.Collectors.joining(", ", "[]string{", "}"));
    throw StatusException.invalid(new Gvr("meta.k8s.io", "v1", ""), kind, "",
        new io.vertx.core.json.JsonArray().add(new JsonObject().put("reason", "FieldValueNotSupported")
            .put("message", "Unsupported value: " + shown + ": supported values: \"All\"").put("field", "dryRun")));
  }

  /**
   * @param stored an object as stored
   * @return a copy in this kind's shape ({@link ObjectStrategy#fromStorage}), pruned and defaulted with the schema
   *     of the version it was stored in ({@link SchemaDefaults#stored}); {@code stored} is not changed (it may be
   *     shared, e.g. by the watch cache): the one copy made here is the one pruned and defaulted
   */
  public JsonObject stored(JsonObject stored) {
    return SchemaDefaults.storedInPlace(crd, version, strategy.fromStorage(stored.copy()));
  }

  /**
   * @return a copy of a stored object as returned to this request: pruned and defaulted with this version's schema
   *     ({@link SchemaDefaults#stored}), {@code apiVersion} rewritten (conversion None), {@link ObjectStrategy#present}
   *     applied
   */
  public JsonObject view(JsonObject stored) {
    JsonObject o = stored(stored);
    o.put("apiVersion", apiVersion());
    return strategy.present(o);
  }

  /**
   * Answers a write whose object breaks field rules ({@code field.ErrorList} to {@code errors.NewInvalid}).
   *
   * @param obj  the object written; its {@code metadata.name} names it in the message
   * @param errs the violations, in the order the causes list them
   * @throws StatusException 422 Invalid for this request's kind with every violation as a cause, unless {@code errs}
   *     is empty
   */
  public void failIfInvalid(JsonObject obj, java.util.List<io.mvproxy.registry.impl.schema.FieldError> errs) {
    if (!errs.isEmpty()) {
      String name = obj.getJsonObject("metadata", new JsonObject()).getString("name", "");
      throw StatusException.invalid(gvr(), crd.kind(), name, io.mvproxy.registry.impl.schema.FieldError.causes(errs));
    }
  }
}

package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.UserInfo;
import io.mvproxy.registry.impl.model.CrdVersion;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import java.util.Set;

/**
 * Dispatches a resource request to the verb handlers after checking that the path fits the CRD
 * (api-surface.md "Paths"; apiextensions-apiserver {@code pkg/apiserver/customresource_handler.go ServeHTTP}):
 * unknown version, namespaced path for a cluster-scoped resource, a path without namespace for a namespaced custom
 * resource other than a list or watch (a built-in kind's: with a name), unknown or disabled subresource -> 404;
 * a verb the path does not support -> 405; a name that cannot be a path segment ({@code .}, {@code ..}, containing
 * {@code %}) -> 400 {@code Name parameter invalid} (apiserver {@code registry/generic/registry/store.go}).
 */
public final class CrdRouter {
  private static final Set<String> SUB_VERBS = Set.of("get", "update", "patch");
  private final CrdRuntime rt;
  private final Reads reads;
  private final Writes writes;
  private final Patches patches;
  private final Deletes deletes;
  private final Watches watches;

  /** @param rt the CRD runtime */
  public CrdRouter(CrdRuntime rt) {
    this.rt = rt;
    this.reads = new Reads(rt);
    this.writes = new Writes(rt);
    this.patches = new Patches(rt, writes);
    this.deletes = new Deletes(rt);
    this.watches = new Watches(rt);
  }

  /**
   * Serves one request; always answers (errors as Status).
   *
   * @param ctx  the request
   * @param info its parsed form
   * @param user the caller
   */
  public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
    try {
      route(ctx, info, user);
    } catch (RuntimeException e) {
      Responses.fail(ctx, e);
    }
  }

  private void route(RoutingContext ctx, RequestInfo info, UserInfo user) {
    Optional<CrdVersion> version = rt.crd().served(info.version());
    if (!info.resourceRequest() || !info.group().equals(rt.crd().group())
        || !info.resource().equals(rt.crd().plural()) || version.isEmpty()) {
      throw StatusException.resourceNotFound();
    }
    CrdRequest req = new CrdRequest(ctx, info, user, rt.crd(), version.get(), rt.strategy());
    boolean hasNs = !info.namespace().isEmpty();
    boolean hasName = !info.name().isEmpty();
    String verb = info.verb();
    if (rt.crd().namespaced() && !hasNs) {
      boolean acrossNamespaces = "list".equals(verb) || "watch".equals(verb);
      if (req.strategy().typedDecoding()) {
        // a built-in kind (endpoints/installer.go): the path without namespace has only the LIST and WATCHLIST
        // routes, so a name there has no route (404) and another method on the collection is go-restful's 405
        if (hasName) {
          throw StatusException.resourceNotFound();
        }
        if (!acrossNamespaces) {
          throw notAllowed(ctx);
        }
      } else if (!acrossNamespaces) {
        // customresource_handler.go: only possiblyAcrossAllNamespacesVerbs (list, watch: a watch of one name too)
        // are served; the rest is handed on to the delegate: 404
        throw StatusException.resourceNotFound();
      }
    } else if (!rt.crd().namespaced() && hasNs) {
      throw StatusException.resourceNotFound();
    }
    // customresource_handler.go: every request to a deprecated version that reaches the CRD's handler (a scope
    // mismatch is handed on as a 404 first), whatever comes of it
    io.mvproxy.api.Warnings.add(ctx, version.get().deprecationWarning());
    if (hasName && !io.mvproxy.api.PathSegments.problems(info.name()).isEmpty()) {
      throw StatusException.badRequest("Name parameter invalid: \"" + info.name() + "\": "
          + String.join(";", io.mvproxy.api.PathSegments.problems(info.name())));
    }
    if (!req.strategy().allowsVerb(verb)) {
      throw notAllowed(ctx);
    }
    if (!hasName && ("update".equals(verb) || "patch".equals(verb))) {
      if (req.strategy().typedDecoding()) {
        throw notAllowed(ctx);  // installer.go: the collection has no PUT or PATCH route
      }
      if ("patch".equals(verb)) {
        // patch.go checks the patch type before the name ("otherwise name extraction can fail")
        PatchApplier.type(ctx.request().getHeader("Content-Type"), req.strategy().strategicMergePatch());
      }
      throw StatusException.badRequest("name must be provided");  // handlers/namer.go errEmptyName
    }
    String sub = info.subresource();
    if (!sub.isEmpty()) {
      boolean enabled = "status".equals(sub) && req.version().statusEnabled()
          || "scale".equals(sub) && req.version().scale() != null;
      boolean extra = !enabled && req.strategy().servesSubresource(sub, "update");
      if (!enabled && !extra) {
        // a built-in kind has no such route (404 without details); customresource_handler.go's default branch:
        // NewNotFound of the resource and the path's name ("gadgets.demo.mvproxy.io \"g1\" not found")
        throw req.strategy().typedDecoding() ? StatusException.resourceNotFound()
            : StatusException.notFound(req.gvr(), info.name());
      }
      if (extra && !req.strategy().servesSubresource(sub, verb)) {
        throw notAllowed(ctx);
      }
      if (!SUB_VERBS.contains(verb)) {
        // a built-in kind's subresource route has no such method (go-restful's 405); a custom resource's
        // serveStatus / serveScale answer NewMethodNotSupported
        throw req.strategy().typedDecoding() ? notAllowed(ctx) : methodNotSupported(verb);
      }
    }
    switch (verb) {
      case "get" -> reads.get(req);
      case "list" -> reads.list(req);
      case "watch" -> watches.watch(req);
      case "create" -> {
        if (!hasName) {
          writes.create(req);
        } else if (req.strategy().typedDecoding()) {
          throw notAllowed(ctx);  // installer.go: a built-in kind's item path has no POST route
        } else {
          // customresource_handler.go serves "create" whatever name the path holds: handlers.CreateResource
          // (createHandler, includeName false) creates the body's object, the path's name only authorized
          writes.create(new CrdRequest(ctx, new RequestInfo(info.resourceRequest(), info.path(), verb,
              info.apiPrefix(), info.group(), info.version(), info.namespace(), info.resource(), "", ""), user,
              rt.crd(), version.get(), rt.strategy()));
        }
      }
      case "update" -> writes.update(req);
      case "patch" -> patches.patch(req);
      case "delete" -> deletes.delete(req);
      case "deletecollection" -> deletes.deleteCollection(req);
      default -> throw notAllowed(ctx);
    }
  }

  /**
   * go-restful's answer to a method a route does not have ({@code server/handler.go serviceErrorHandler}:
   * {@code NewGenericServerResponse(405, ...)}, empty details).
   */
  private static StatusException notAllowed(RoutingContext ctx) {
    return StatusException.methodNotAllowed();
  }

  /** {@code errors.NewMethodNotSupported}: {@code <verb> is not supported on resources of kind "<plural>.<group>"}. */
  private StatusException methodNotSupported(String verb) {
    return new StatusException(StatusReason.MethodNotAllowed, verb + " is not supported on resources of kind \""
        + rt.crd().plural() + "." + rt.crd().group() + "\"", new io.vertx.core.json.JsonObject()
        .put("group", rt.crd().group()).put("kind", rt.crd().plural()));
  }
}

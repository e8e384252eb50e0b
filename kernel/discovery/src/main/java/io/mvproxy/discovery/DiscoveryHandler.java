package io.mvproxy.discovery;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Serves discovery: {@code GET /api}, {@code /apis} (aggregated v2 / v2beta1 or legacy, by {@code Accept}),
 * {@code /api/<v>}, {@code /apis/<g>}, {@code /apis/<g>/<v>} (legacy), from the latest {@link DiscoveryDocuments}
 * (discovery.md sections 2, 3 and 6; apiserver {@code aggregated/handler.go}, {@code wrapper.go}).
 *
 * <ul>
 *   <li>Aggregated answers carry the exact {@code Content-Type} of the format served, {@code ETag},
 *       {@code Vary: Accept} and {@code Cache-Control: public}; an {@code If-None-Match} equal to the ETag gets
 *       {@code 304} with no body. {@code profile=nopeer} selects this node's local view.</li>
 *   <li>Legacy {@code /apis/<g>} and {@code /apis/<g>/<v>} (and {@code /api/<v>}) that the fleet serves but this
 *       node does not are handed to the fallback with the group-version (for {@code /apis/<g>}: the group's
 *       fleet-preferred version), which proxies them to a capable peer.</li>
 *   <li>Unknown group / version: 404; unacceptable {@code Accept}: 406; a method other than GET or HEAD: 405; all
 *       as Kubernetes {@code Status} JSON. Other paths are passed on with {@link RoutingContext#next()}.</li>
 * </ul>
 * Stateless apart from its constructor arguments; reads one snapshot per request.
 */
public final class DiscoveryHandler implements Handler<RoutingContext> {
  private final Supplier<DiscoveryDocuments> documents;
  private final BiConsumer<RoutingContext, GroupVersion> fallback;
  private final java.util.function.Consumer<DiscoveryDocuments.View> served;

  /**
   * @param documents supplies the current snapshot (e.g. an {@code AtomicReference::get}); never null results
   * @param fallback  called for legacy group / group-version paths only peers serve; it must answer the request
   */
  public DiscoveryHandler(Supplier<DiscoveryDocuments> documents, BiConsumer<RoutingContext, GroupVersion> fallback) {
    this(documents, fallback, v -> { });
  }

  /**
   * @param documents supplies the current snapshot
   * @param fallback  called for legacy group / group-version paths only peers serve
   * @param served    told which view each aggregated answer came from (for the upstream
   *                  {@code aggregator_discovery_*} metrics)
   */
  public DiscoveryHandler(Supplier<DiscoveryDocuments> documents, BiConsumer<RoutingContext, GroupVersion> fallback,
                          java.util.function.Consumer<DiscoveryDocuments.View> served) {
    this.documents = Objects.requireNonNull(documents, "documents");
    this.fallback = Objects.requireNonNull(fallback, "fallback");
    this.served = Objects.requireNonNull(served, "served");
  }

  /**
   * @param path a request path without query
   * @return true for {@code /api}, {@code /apis}, {@code /api/<v>}, {@code /apis/<g>}, {@code /apis/<g>/<v>}
   *     (trailing slash allowed)
   */
  public static boolean isDiscoveryPath(String path) {
    List<String> s = segments(path);
    return !s.isEmpty() && (s.get(0).equals("api") && s.size() <= 2 || s.get(0).equals("apis") && s.size() <= 3);
  }

  /**
   * Answers the request, or calls {@code ctx.next()} when the path is not a discovery path.
   *
   * @param ctx the routing context
   */
  @Override
  public void handle(RoutingContext ctx) {
    String path = ctx.request().path();
    if (path == null || !isDiscoveryPath(path)) {
      ctx.next();
      return;
    }
    try {
      HttpMethod m = ctx.request().method();
      if (!HttpMethod.GET.equals(m) && !HttpMethod.HEAD.equals(m)) {
        throw StatusException.methodNotAllowed();
      }
      route(ctx, segments(path), documents.get());
    } catch (StatusException e) {
      io.mvproxy.api.StatusWriter.send(ctx, e);
    } catch (RuntimeException e) {
      io.mvproxy.api.StatusWriter.send(ctx, new StatusException(StatusReason.InternalError,
          "discovery failed: " + e.getMessage(), null));
    }
  }

  private void route(RoutingContext ctx, List<String> seg, DiscoveryDocuments docs) {
    String accept = ctx.request().getHeader(HttpHeaders.ACCEPT);
    if (seg.size() == 1) {
      boolean core = seg.get(0).equals("api");
      AcceptNegotiation.Result r = AcceptNegotiation.negotiate(accept);
      if (r.format().aggregated()) {
        DiscoveryDocuments.View view = r.nopeer() ? DiscoveryDocuments.View.LOCAL
            : DiscoveryDocuments.View.PEER_AGGREGATED;
        served.accept(view);
        sendAggregated(ctx, docs.aggregated(view, r.format(), core));
      } else {
        ctx.response().putHeader(HttpHeaders.VARY, "Accept");
        sendJson(ctx, 200, core ? docs.legacyApi() : docs.legacyApis());
      }
      return;
    }
    AcceptNegotiation.negotiate(accept, false);
    if (seg.get(0).equals("api")) {
      legacyVersion(ctx, docs, new GroupVersion("", seg.get(1)));
    } else if (seg.size() == 3) {
      legacyVersion(ctx, docs, new GroupVersion(seg.get(1), seg.get(2)));
    } else {
      String group = seg.get(1);
      Optional<Buffer> doc = docs.legacyGroup(group);
      if (doc.isPresent()) {
        sendJson(ctx, 200, doc.get());
        return;
      }
      Optional<String> preferred = docs.fleetPreferredVersion(group);
      if (preferred.isEmpty() || group.isEmpty()) {
        throw StatusException.resourceNotFound();
      }
      fallback.accept(ctx, new GroupVersion(group, preferred.get()));
    }
  }

  private void legacyVersion(RoutingContext ctx, DiscoveryDocuments docs, GroupVersion gv) {
    Optional<Buffer> doc = docs.legacyResourceList(gv);
    if (doc.isPresent()) {
      sendJson(ctx, 200, doc.get());
    } else if (docs.unavailableHere(gv)) {
      throw StatusException.unavailable("the server is currently unable to handle the request", 10);
    } else if (docs.servedByFleet(gv)) {
      fallback.accept(ctx, gv);
    } else {
      throw StatusException.resourceNotFound();
    }
  }

  private static void sendAggregated(RoutingContext ctx, DiscoveryDocuments.Rendered doc) {
    HttpServerResponse resp = ctx.response()
        .putHeader(HttpHeaders.ETAG, doc.etag())
        .putHeader(HttpHeaders.VARY, "Accept")
        .putHeader(HttpHeaders.CACHE_CONTROL, "public");
    if (Etags.matches(ctx.request().getHeader(HttpHeaders.IF_NONE_MATCH), doc.etag())) {
      resp.setStatusCode(304).end();
      return;
    }
    resp.putHeader(HttpHeaders.CONTENT_TYPE, doc.contentType()).setStatusCode(200);
    io.mvproxy.api.ResponseCompression.end(ctx, doc.body());
  }

  /** Discovery documents are written as kube's {@code WriteObjectNegotiated}: gzip beyond 128 KiB when accepted. */
  private static void sendJson(RoutingContext ctx, int code, Buffer body) {
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").setStatusCode(code);
    io.mvproxy.api.ResponseCompression.end(ctx, body);
  }

  private static List<String> segments(String path) {
    List<String> out = new ArrayList<>();
    for (String s : path.split("/")) {
      if (!s.isEmpty()) {
        out.add(s);
      }
    }
    return out;
  }
}

package io.mvproxy.openapi;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.StatusException;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Serves {@code GET /openapi/v2}, {@code /openapi/v3}, {@code /openapi/v3/apis/<g>/<v>} and
 * {@code /openapi/v3/api/<v>} from the current {@link OpenApiDocuments} (as {@code kube-openapi/pkg/handler} and
 * {@code handler3} do): {@code ETag} on every answer and {@code 304} when {@code If-None-Match} matches;
 * {@code /openapi/v2} as gnostic protobuf when the {@code Accept} header asks for
 * {@value OpenApiDocuments#V2_PROTOBUF} (kubectl 1.27/1.28), else JSON. A v3 document asked with {@code ?hash=}:
 * the current hash gets {@code Cache-Control: public, immutable}, {@code Expires} a year ahead and {@code Vary:
 * Accept}; another hash a {@code 301} to the current one ({@code handler3/handler.go}). A group-version the node does
 * not serve but the fleet does is handed to the fallback (the node proxies it to a peer); anything else is a 404
 * {@code Status}. A request a peer
 * proxied ({@code X-Kubernetes-Peer-Proxied}) gets the {@link OpenApiDocuments#local() local} documents, without what
 * this node merged from peers. Non-blocking.
 */
public final class OpenApiHandler implements Handler<RoutingContext> {
  private static final String V2 = "/openapi/v2";
  private static final String V3 = "/openapi/v3";

  private final Supplier<OpenApiDocuments> documents;
  private final BiConsumer<RoutingContext, GroupVersion> fallback;
  private final java.util.function.Predicate<RoutingContext> peerProxied;

  /**
   * A handler that serves every request the merged documents.
   *
   * @param documents the current documents (called once per request; must not block)
   * @param fallback  called for a fleet group-version not served locally; it must answer the request
   */
  public OpenApiHandler(Supplier<OpenApiDocuments> documents, BiConsumer<RoutingContext, GroupVersion> fallback) {
    this(documents, ctx -> false, fallback);
  }

  /**
   * @param documents   the current documents (called once per request; must not block)
   * @param peerProxied true for a request a peer proxied: it is answered from {@link OpenApiDocuments#local()}
   * @param fallback    called for a fleet group-version without a document here; it must answer the request
   */
  public OpenApiHandler(Supplier<OpenApiDocuments> documents, java.util.function.Predicate<RoutingContext> peerProxied,
                        BiConsumer<RoutingContext, GroupVersion> fallback) {
    this.documents = Objects.requireNonNull(documents, "documents");
    this.peerProxied = Objects.requireNonNull(peerProxied, "peerProxied");
    this.fallback = Objects.requireNonNull(fallback, "fallback");
  }

  /**
   * Answers one {@code /openapi/...} request (GET or HEAD; other methods get 405, other paths 404).
   *
   * @param ctx the request
   */
  @Override
  public void handle(RoutingContext ctx) {
    HttpMethod method = ctx.request().method();
    String path = ctx.request().path();
    while (path.length() > 1 && path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    if (!path.equals(V2) && !path.equals(V3) && !path.startsWith(V3 + "/")) {
      fail(ctx, StatusException.resourceNotFound());
      return;
    }
    if (method != HttpMethod.GET && method != HttpMethod.HEAD) {
      fail(ctx, StatusException.methodNotAllowed());
      return;
    }
    OpenApiDocuments docs = peerProxied.test(ctx) ? documents.get().local() : documents.get();
    if (path.equals(V2)) {
      ctx.response().putHeader(HttpHeaders.VARY, "Accept");
      send(ctx, wantsProtobuf(ctx.request().getHeader(HttpHeaders.ACCEPT)) ? docs.v2Protobuf() : docs.v2Json(), true);
      return;
    }
    if (path.equals(V3)) {
      send(ctx, docs.v3Root(), false);
      return;
    }
    GroupVersion gv = parseGroupVersion(path.substring(V3.length() + 1));
    if (gv == null) {
      fail(ctx, StatusException.resourceNotFound());
      return;
    }
    ServedDocument doc = docs.v3(gv);
    if (doc != null) {
      String hash = ctx.request().getParam("hash");
      if (hash != null && !hash.isEmpty()) {
        if (!hash.equals(doc.hash())) {
          // handler3: an old hash is sent to the current one (kubectl's cache then keys on it)
          redirect(ctx, V3 + "/" + path.substring(V3.length() + 1) + "?hash=" + doc.hash());
          return;
        }
        // the hash names this content for good: clients may keep it (only when a hash is given, as upstream)
        ctx.response().putHeader(HttpHeaders.VARY, "Accept");
        ctx.response().putHeader(HttpHeaders.EXPIRES, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
            java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).plusYears(1)));
        send(ctx, doc, false, "public, immutable");
        return;
      }
      send(ctx, doc, false);
    } else if (docs.undocumented(gv)) {
      // served here (or by peers) without a document, as an APIService whose backend has none: kube-aggregator
      // leaves it out of /openapi/v3 and answers 404; a peer asking must not get 503 Not-Served-Here (it retried
      // that every few seconds and listed the group-version in its own root, answering 503 for it)
      fail(ctx, StatusException.resourceNotFound());
    } else if (docs.inFleet(gv)) {
      fallback.accept(ctx, gv);
    } else {
      fail(ctx, StatusException.resourceNotFound());
    }
  }

  /**
   * @param rest the path after {@code /openapi/v3/}: {@code apis/<g>/<v>} or {@code api/<v>}
   * @return the group-version, or null when the path has another shape
   */
  static GroupVersion parseGroupVersion(String rest) {
    String[] parts = rest.split("/", -1);
    for (String p : parts) {
      if (p.isEmpty()) {
        return null;
      }
    }
    if (parts.length == 3 && parts[0].equals("apis")) {
      return new GroupVersion(parts[1], parts[2]);
    }
    if (parts.length == 2 && parts[0].equals("api")) {
      return new GroupVersion("", parts[1]);
    }
    return null;
  }

  /**
   * @param accept the {@code Accept} header or null
   * @return true when the first acceptable type offered is the v2 protobuf one (or its dotted alias)
   */
  static boolean wantsProtobuf(String accept) {
    if (accept == null) {
      return false;
    }
    for (String part : accept.split(",")) {
      String type = part.split(";")[0].trim().toLowerCase();
      if (type.equals(OpenApiDocuments.V2_PROTOBUF)
          || type.equals("application/com.github.proto-openapi.spec.v2.v1.0+protobuf")) {
        return true;
      }
      if (type.equals("application/json") || type.equals("*/*") || type.equals("application/*")) {
        return false;
      }
    }
    return false;
  }

  /**
   * @param gzip true for {@code /openapi/v2}, which kube-openapi serves through the NYTimes gzip handler whatever
   *             {@code APIResponseCompression} says ({@code Vary: Accept-Encoding} always; compressed from
   *             {@link io.mvproxy.api.ResponseCompression#OPENAPI_V2_THRESHOLD_BYTES} when
   *             {@link io.mvproxy.api.ResponseCompression#gzipHandlerAccepts} accepts); the v3 documents are
   *             {@code http.ServeContent}'s, never compressed
   */
  private static void send(RoutingContext ctx, ServedDocument doc, boolean gzip) {
    send(ctx, doc, gzip, "no-cache, private");
  }

  /** {@code http.Redirect}'s 301 for a GET or HEAD: {@code Location} and its small HTML body. */
  private static void redirect(RoutingContext ctx, String location) {
    HttpServerResponse resp = ctx.response().setStatusCode(301).putHeader(HttpHeaders.LOCATION, location);
    if (ctx.request().method() == HttpMethod.HEAD) {
      resp.end();
      return;
    }
    resp.putHeader(HttpHeaders.CONTENT_TYPE, "text/html; charset=utf-8")
        .end("<a href=\"" + location.replace("&", "&amp;").replace("\"", "&#34;") + "\">Moved Permanently</a>.\n\n");
  }

  private static void send(RoutingContext ctx, ServedDocument doc, boolean gzip, String cacheControl) {
    HttpServerResponse resp = ctx.response();
    resp.putHeader(HttpHeaders.ETAG, doc.etag()).putHeader(HttpHeaders.CACHE_CONTROL, cacheControl);
    if (gzip) {
      resp.headers().add(HttpHeaders.VARY, "Accept-Encoding");  // gziphandler adds it to every answer
    }
    if (etagMatches(ctx.request().getHeader(HttpHeaders.IF_NONE_MATCH), doc.etag())) {
      resp.setStatusCode(304).end();
      return;
    }
    resp.putHeader(HttpHeaders.CONTENT_TYPE, doc.contentType());
    if (ctx.request().method() == HttpMethod.HEAD) {
      resp.putHeader(HttpHeaders.CONTENT_LENGTH, String.valueOf(doc.body().length())).end();
    } else if (gzip && doc.body().length() >= io.mvproxy.api.ResponseCompression.OPENAPI_V2_THRESHOLD_BYTES
        && io.mvproxy.api.ResponseCompression.gzipHandlerAccepts(ctx.request().getHeader(HttpHeaders.ACCEPT_ENCODING))) {
      resp.putHeader(HttpHeaders.CONTENT_ENCODING, "gzip")
          .end(io.mvproxy.api.ResponseCompression.gzip(doc.body(), java.util.zip.Deflater.DEFAULT_COMPRESSION));
    } else {
      resp.end(doc.body());
    }
  }

  /**
   * @param ifNoneMatch the header, or null
   * @param etag        the current quoted ETag
   * @return true when the header lists the ETag (weak or strong) or {@code *}
   */
  static boolean etagMatches(String ifNoneMatch, String etag) {
    if (ifNoneMatch == null) {
      return false;
    }
    for (String t : ifNoneMatch.split(",")) {
      String tag = t.trim();
      if (tag.startsWith("W/")) {
        tag = tag.substring(2);
      }
      if (tag.equals("*") || tag.equals(etag)) {
        return true;
      }
    }
    return false;
  }

  private static void fail(RoutingContext ctx, StatusException e) {
    io.mvproxy.api.StatusWriter.send(ctx, e);
  }
}

package io.mvproxy.crd.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.crd.store.StoredObject;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * GET of one object (or its {@code status} / {@code scale}) and list (apiserver {@code pkg/endpoints/handlers/get.go}):
 * plain JSON, Table or PartialObjectMetadata(List) per Accept; {@code limit} / {@code continue}; label and field
 * selectors. A list's resourceVersion is the highest event version this node has released, so a watch started
 * from it misses nothing.
 */
public final class Reads {
  private final CrdRuntime rt;

  /** @param rt the CRD runtime */
  public Reads(CrdRuntime rt) {
    this.rt = rt;
  }

  /** GET one object: 200 (object, Table, PartialObjectMetadata or Scale), 404. */
  public void get(CrdRequest req) {
    MediaView view = MediaView.require(req.ctx().request().getHeader("Accept"));
    rt.store().get(req.key()).onSuccess(cur -> {
      if (cur == null) {
        Responses.fail(req.ctx(), StatusException.notFound(req.gvr(), req.name()));
        return;
      }
      JsonObject o = req.view(cur.object());
      if ("scale".equals(req.info().subresource())) {
        Responses.send(req.ctx(), 200, ScaleCodec.toScale(o, req.version().scale()));
      } else if (view.table()) {
        JsonObject meta = new JsonObject().put("resourceVersion", Long.toString(cur.resourceVersion()));
        Responses.send(req.ctx(), 200, rt.table(req.version().name()).table(List.of(o), view,
            req.param("includeObject"), meta, true), view.contentType());
      } else if (view.partial()) {
        Responses.send(req.ctx(), 200, TableRenderer.partial(o, view.metaApiVersion()), view.contentType());
      } else {
        Responses.send(req.ctx(), 200, o);
      }
    }).onFailure(t -> Responses.fail(req.ctx(), t));
  }

  /** GET the collection: 200 with a {@code <Kind>List} (or Table); 400 for bad selectors or continue tokens. */
  public void list(CrdRequest req) {
    MediaView view = MediaView.require(req.ctx().request().getHeader("Accept"));
    ListFilter filter;
    int limit;
    ContinueToken token;
    try {
      filter = ListFilter.of(req);
      limit = parseLimit(req.param("limit"));
      String cont = req.param("continue");
      token = cont == null || cont.isEmpty() ? null : ContinueToken.decode(cont);
    } catch (StatusException e) {
      Responses.fail(req.ctx(), e);
      return;
    }
    long listRv = token != null ? token.resourceVersion() : rt.store().window().highWater();
    rt.store().list(filter.namespace()).onSuccess(all -> {
      List<JsonObject> items = new ArrayList<>();
      String lastKey = null;
      int remaining = 0;
      for (StoredObject so : all) {
        if (token != null && so.key().compareTo(token.lastKey()) <= 0 || !filter.matches(so.object())) {
          continue;
        }
        if (limit > 0 && items.size() >= limit) {
          remaining++;
          continue;
        }
        items.add(req.view(so.object()));
        lastKey = so.key();
      }
      JsonObject meta = new JsonObject().put("resourceVersion", Long.toString(listRv));
      if (remaining > 0) {
        meta.put("continue", new ContinueToken(listRv, lastKey).encode());
        if (filter.selectsAll()) {
          meta.put("remainingItemCount", remaining);
        }
      }
      if (view.table()) {
        Responses.send(req.ctx(), 200, rt.table(req.version().name()).table(items, view, req.param("includeObject"),
            meta, true), view.contentType());
        return;
      }
      JsonArray arr = new JsonArray();
      if (view.partial()) {
        items.forEach(o -> arr.add(TableRenderer.partial(o, view.metaApiVersion())));
        Responses.send(req.ctx(), 200, new JsonObject().put("kind", "PartialObjectMetadataList")
            .put("apiVersion", view.metaApiVersion()).put("metadata", meta).put("items", arr), view.contentType());
        return;
      }
      items.forEach(arr::add);
      Responses.send(req.ctx(), 200, new JsonObject().put("apiVersion", req.apiVersion())
          .put("items", arr).put("kind", rt.crd().listKind()).put("metadata", meta));
    }).onFailure(t -> Responses.fail(req.ctx(), t));
  }

  private int parseLimit(String s) {
    if (s == null || s.isEmpty()) {
      return rt.options().maxListLimit();
    }
    try {
      int l = Integer.parseInt(s);
      int cap = rt.options().maxListLimit();
      return l <= 0 ? cap : cap > 0 ? Math.min(l, cap) : l;
    } catch (NumberFormatException e) {
      throw StatusException.badRequest("invalid limit: " + s);
    }
  }
}

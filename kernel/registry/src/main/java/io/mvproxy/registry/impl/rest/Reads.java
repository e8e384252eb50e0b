package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.ListParameters;
import io.mvproxy.api.storage.StoredObject;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * GET of one object (or its {@code status} / {@code scale}) and list (apiserver {@code pkg/endpoints/handlers/get.go}):
 * plain JSON, Table or PartialObjectMetadata(List) per Accept; {@code limit} / {@code continue}; label and field
 * selectors; resourceVersion / resourceVersionMatch and paging through the storage interface
 * ({@link io.mvproxy.api.storage.ResourceStorage#list}).
 */
public final class Reads {
  private final CrdRuntime rt;

  /** @param rt the CRD runtime */
  public Reads(CrdRuntime rt) {
    this.rt = rt;
  }

  /**
   * GET one object: 200 (object, Table, PartialObjectMetadata or Scale), 404. A {@code resourceVersion} N above 0
   * reads not older than N: it waits up to 3 s for the store to reach N, then {@code 504 Too large resource version}
   * (cacher.go {@code Get}, {@code waitUntilFreshAndBlock}); one that is not an unsigned integer is a {@code 500}
   * without reason, as the versioner's {@code ParseResourceVersion} error reaches the client.
   */
  public void get(CrdRequest req) {
    MediaView view = MediaView.require(req.ctx().request().getHeader("Accept"));
    String rvParam = req.param("resourceVersion");
    if (rvParam != null && !rvParam.isEmpty() && !"0".equals(rvParam)) {
      long want;
      try {
        want = io.mvproxy.api.storage.ResourceVersions.parse(rvParam);
      } catch (IllegalArgumentException e) {
        throw StatusException.withoutReason(500, e.getMessage());
      }
      io.mvproxy.api.storage.ResourceVersions.awaitRevision(rt.vertx(), () -> rt.store(req).currentRevision(), want)
          .onSuccess(v -> read(req, view)).onFailure(t -> Responses.fail(req, t));
      return;
    }
    read(req, view);
  }

  private void read(CrdRequest req, MediaView view) {
    rt.store(req).get(req.key()).onSuccess(cur -> {
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
    }).onFailure(t -> Responses.fail(req, t));
  }

  /**
   * GET the collection: 200 with a {@code <Kind>List} (or Table) whose resourceVersion covers every item; 400 for
   * bad selectors, integers ({@link ListQuery}) or continue tokens; 422 for invalid resourceVersion / resourceVersionMatch combinations;
   * 410 for compacted revisions; 504 for a resourceVersion ahead of the store (storage.md sections 4 and 5).
   */
  public void list(CrdRequest req) {
    MediaView view = MediaView.require(req.ctx().request().getHeader("Accept"));
    ListFilter filter;
    int limit;
    ListParameters params;
    try {
      limit = limit(ListQuery.decode(req::param).limit());
      filter = ListFilter.of(req);
      params = ListParameters.parse(req::param, false);
    } catch (StatusException e) {
      Responses.fail(req, e);
      return;
    }
    ListOptions opts = new ListOptions(req.keyPrefix(), params.resourceVersion(), params.match(), limit,
        params.continueToken(), filter.selectsAll() ? null : filter::matches);
    rt.store(req).list(opts).onSuccess(page -> {
      List<JsonObject> items = new ArrayList<>(page.items().size());
      for (StoredObject so : page.items()) {
        items.add(req.view(so.object()));
      }
      JsonObject meta = new JsonObject().put("resourceVersion", Long.toString(page.resourceVersion()));
      if (page.continueToken() != null) {
        meta.put("continue", page.continueToken());
        if (page.remainingItemCount() != null) {
          meta.put("remainingItemCount", page.remainingItemCount());
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
    }).onFailure(t -> Responses.fail(req, t));
  }

  private int limit(long requested) {
    int cap = rt.options().maxListLimit();
    if (requested <= 0) {
      return cap;
    }
    return cap > 0 ? (int) Math.min(requested, cap) : (int) Math.min(requested, Integer.MAX_VALUE);
  }

}

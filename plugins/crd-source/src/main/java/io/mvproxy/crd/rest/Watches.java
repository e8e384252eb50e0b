package io.mvproxy.crd.rest;

import io.mvproxy.api.BoolParam;
import io.mvproxy.api.StatusException;

/**
 * Watch requests (apiserver {@code pkg/endpoints/handlers/watch.go}): parses {@code resourceVersion},
 * {@code timeoutSeconds}, {@code allowWatchBookmarks}, {@code sendInitialEvents} (KEP-3157 watch-list: current
 * objects, then a BOOKMARK annotated {@code k8s.io/initial-events-end}) and the selectors, then runs a
 * {@link WatchSession} on a chunked response, or on a WebSocket when the request asks for an upgrade (as
 * kube-apiserver does; fabric8 tries that first).
 */
public final class Watches {
  private final CrdRuntime rt;

  /** @param rt the CRD runtime */
  public Watches(CrdRuntime rt) {
    this.rt = rt;
  }

  /**
   * Starts a watch: 200 with chunked JSON lines; 400 for bad parameters. A too-old resourceVersion is answered
   * 200 with a single ERROR event carrying a 410 Expired Status, as Kubernetes does.
   */
  public void watch(CrdRequest req) {
    ListFilter filter;
    long from;
    boolean initial;
    long timeoutS;
    try {
      filter = ListFilter.of(req);
      String rv = req.param("resourceVersion");
      initial = rv == null || rv.isEmpty() || "0".equals(rv) || BoolParam.of(req.param("sendInitialEvents"));
      from = initial ? -1 : parseLong(rv, "resourceVersion");
      if (BoolParam.of(req.param("sendInitialEvents")) && !BoolParam.of(req.param("allowWatchBookmarks"))) {
        throw StatusException.badRequest("sendInitialEvents requires allowWatchBookmarks=true");
      }
      String ts = req.param("timeoutSeconds");
      timeoutS = ts == null || ts.isEmpty() ? rt.options().defaultWatchTimeoutS() : parseLong(ts, "timeoutSeconds");
      if (timeoutS <= 0) {
        timeoutS = rt.options().defaultWatchTimeoutS();
      }
    } catch (StatusException e) {
      Responses.fail(req.ctx(), e);
      return;
    }
    boolean bookmarks = BoolParam.of(req.param("allowWatchBookmarks"));
    MediaView view;
    try {
      view = MediaView.require(req.ctx().request().getHeader("Accept"));
    } catch (StatusException e) {
      Responses.fail(req.ctx(), e);
      return;
    }
    boolean init = initial;
    long start = from;
    long timeout = timeoutS;
    if ("websocket".equalsIgnoreCase(req.ctx().request().getHeader("Upgrade"))) {
      req.ctx().request().toWebSocket()
          .onSuccess(ws -> new WatchSession(rt, req, view, filter, bookmarks,
              WatchOutput.webSocket(ws, WatchSession.MAX_QUEUED_BYTES)).start(init, start, timeout))
          .onFailure(t -> new WatchSession(rt, req, view, filter, bookmarks,
              WatchOutput.http(req.ctx().response(), WatchSession.MAX_QUEUED_BYTES)).start(init, start, timeout));
      return;
    }
    new WatchSession(rt, req, view, filter, bookmarks,
        WatchOutput.http(req.ctx().response(), WatchSession.MAX_QUEUED_BYTES)).start(initial, from, timeoutS);
  }

  private static long parseLong(String s, String what) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      throw StatusException.badRequest("invalid " + what + ": " + s);
    }
  }
}

package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.BoolParam;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.storage.ListParameters;

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
   * Starts a watch: 200 with chunked JSON lines; 400 for bad parameters, 422 for invalid resourceVersionMatch /
   * sendInitialEvents combinations (validation.go), 504 for a resourceVersion ahead of the store. A too-old
   * resourceVersion is answered 200 with a single ERROR event carrying a 410 Expired Status, as Kubernetes does.
   * Without {@code sendInitialEvents}, resourceVersion unset or {@code 0} sends the current objects first (legacy
   * watch); with {@code sendInitialEvents=true} they are followed by the {@code k8s.io/initial-events-end} bookmark;
   * {@code sendInitialEvents=false} with no resourceVersion starts at the current revision.
   */
  public void watch(CrdRequest req) {
    ListFilter filter;
    long from;
    boolean initial;
    boolean endBookmark;
    long timeoutS;
    try {
      Long ts = ListQuery.decode(req::param).timeoutSeconds();
      filter = ListFilter.of(req);
      ListParameters p = ListParameters.parse(req::param, true);
      String rv = p.resourceVersion();
      boolean noRv = rv.isEmpty() || "0".equals(rv);
      initial = p.sendInitialEvents() == null ? noRv : p.sendInitialEvents();
      // the initial-events-end bookmark goes only to a watch that allows bookmarks; one that does not is still
      // served (apimachinery's validation leaves allowWatchBookmarks unchecked for backward compatibility)
      endBookmark = p.initialEvents() && BoolParam.of(req.param("allowWatchBookmarks"));
      // sendInitialEvents from N: a snapshot not older than N (the watch cache waits for it, then 504)
      from = initial ? (noRv ? 0 : parseRv(rv)) : noRv ? -1 : parseRv(rv);
      timeoutS = ts == null ? 0 : ts;
      if (timeoutS == 0) {
        // get.go ListResource: only 0 (or none) takes the default; a negative timeout has expired already
        timeoutS = rt.options().defaultWatchTimeoutS();
      }
    } catch (StatusException e) {
      Responses.fail(req, e);
      return;
    }
    boolean bookmarks = BoolParam.of(req.param("allowWatchBookmarks"));
    MediaView view;
    try {
      view = MediaView.require(req.ctx().request().getHeader("Accept"));
    } catch (StatusException e) {
      Responses.fail(req, e);
      return;
    }
    boolean init = initial;
    boolean end = endBookmark;
    long start = from;
    long timeout = timeoutS;
    if ("websocket".equalsIgnoreCase(req.ctx().request().getHeader("Upgrade"))) {
      req.ctx().request().toWebSocket()
          .onSuccess(ws -> new WatchSession(rt, req, view, filter, bookmarks,
              WatchOutput.webSocket(ws, WatchSession.MAX_QUEUED_BYTES)).start(init, end, start, timeout))
          .onFailure(t -> new WatchSession(rt, req, view, filter, bookmarks,
              WatchOutput.http(req.ctx().response(), WatchSession.MAX_QUEUED_BYTES)).start(init, end, start, timeout));
      return;
    }
    new WatchSession(rt, req, view, filter, bookmarks,
        WatchOutput.http(req.ctx().response(), WatchSession.MAX_QUEUED_BYTES)).start(init, end, start, timeout);
  }

  /** The cacher's Watch returns the versioner's error as it is: a 500 without reason. */
  private static long parseRv(String s) {
    try {
      return io.mvproxy.api.storage.ResourceVersions.parse(s);
    } catch (IllegalArgumentException e) {
      throw StatusException.withoutReason(500, e.getMessage());
    }
  }
}

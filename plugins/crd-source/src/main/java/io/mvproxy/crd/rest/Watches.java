package io.mvproxy.crd.rest;

import io.mvproxy.api.StatusException;

/**
 * Watch requests (apiserver {@code pkg/endpoints/handlers/watch.go}): parses {@code resourceVersion},
 * {@code timeoutSeconds}, {@code allowWatchBookmarks}, {@code sendInitialEvents} (KEP-3157 watch-list: current
 * objects, then a BOOKMARK annotated {@code k8s.io/initial-events-end}) and the selectors, then runs a
 * {@link WatchSession}.
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
      initial = rv == null || rv.isEmpty() || "0".equals(rv) || "true".equals(req.param("sendInitialEvents"));
      from = initial ? -1 : parseLong(rv, "resourceVersion");
      if ("true".equals(req.param("sendInitialEvents")) && !"true".equals(req.param("allowWatchBookmarks"))) {
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
    boolean bookmarks = "true".equals(req.param("allowWatchBookmarks"));
    new WatchSession(rt, req, MediaView.of(req.ctx().request().getHeader("Accept")), filter, bookmarks)
        .start(initial, from, timeoutS);
  }

  private static long parseLong(String s, String what) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      throw StatusException.badRequest("invalid " + what + ": " + s);
    }
  }
}

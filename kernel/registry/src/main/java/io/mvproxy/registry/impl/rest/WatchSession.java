package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.Watch;
import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.api.storage.WatchListener;
import io.mvproxy.api.storage.WatchOptions;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * One running watch over {@link io.mvproxy.api.storage.ResourceStorage#watch} (the node's watch cache): events are
 * filtered, converted to the client's version (or a Table) and written as {@code {"type":...,"object":...}} lines on
 * a chunked 200 response (or a WebSocket), on the request's context. Selectors are applied to both the old and new
 * state, so an object leaving the selection is reported DELETED and one entering it ADDED (apiserver
 * {@code storage/cacher/cache_watcher.go}). With {@code allowWatchBookmarks}, BOOKMARK events carry the revision the
 * watch has caught up to every {@code bookmarkIntervalMs} and once shortly before {@code timeoutSeconds} ends
 * (2 s before, as cache_watcher.go; half-way for watches of 4 s or less). A storage error ends the stream with one
 * ERROR event (410 Expired when the revision is too old). Ends on {@code timeoutSeconds}, client disconnect, or a
 * write queue that stays full (a slow client re-watches).
 */
final class WatchSession implements WatchListener {
  /**
   * Bytes a watch may have queued towards a slow client before it is ended (the client re-watches from its last
   * resourceVersion); kube-apiserver likewise drops watchers whose buffer stays full.
   */
  static final int MAX_QUEUED_BYTES = 16 * 1024 * 1024;
  /** How long before the deadline the last bookmark is sent, ms (cache_watcher.go: 2 s before the deadline). */
  static final long DEADLINE_BOOKMARK_MS = 2000;
  private final CrdRuntime rt;
  private final CrdRequest req;
  private final MediaView view;
  private final ListFilter filter;
  private final boolean bookmarks;
  private final WatchOutput out;
  private final List<Buffer> pending = new ArrayList<>();
  private boolean opened;
  private StorageException pendingError;
  private boolean endBookmark;
  private boolean firstTable = true;
  private boolean closed;
  private boolean counted;
  private Watch watch;
  private final List<Long> timers = new ArrayList<>();
  /** The request's context: every write to the response happens on it (see {@link #onRequestContext}). */
  private final Context ctx;
  private final Thread loop;

  /** Built on the request's context (the ingress handler or the WebSocket upgrade's callback). */
  WatchSession(CrdRuntime rt, CrdRequest req, MediaView view, ListFilter filter, boolean bookmarks, WatchOutput out) {
    this.rt = rt;
    this.req = req;
    this.view = view;
    this.filter = filter;
    this.bookmarks = bookmarks;
    this.out = out;
    Context current = Vertx.currentContext();
    this.ctx = current != null ? current : rt.vertx().getOrCreateContext();
    this.loop = Thread.currentThread();
  }

  /**
   * Runs {@code r} on the request's context: inline when already there, else queued to it (in order). The store's
   * futures and listener calls may complete on another thread (a storage worker, the context that built the store);
   * a response written from two threads can put the HTTP/2 DATA of an early event on the wire before the HEADERS
   * frame of the response head (Go clients then fail the stream: "received DATA before a HEADERS frame").
   */
  private void onRequestContext(Runnable r) {
    if (Thread.currentThread() == loop) {
      r.run();
    } else {
      ctx.runOnContext(v -> r.run());
    }
  }

  /**
   * @param initial     true to send current objects first (as ADDED events)
   * @param endBookmark true to follow them with the {@code k8s.io/initial-events-end} bookmark (sendInitialEvents)
   * @param from        revision to start after; -1 for the current revision; with {@code initial}: the snapshot's
   *                    lowest revision (0: any)
   * @param timeoutS    seconds before the watch ends
   */
  void start(boolean initial, boolean endBookmark, long from, long timeoutS) {
    this.endBookmark = endBookmark;
    counted = true;
    rt.watches().incrementAndGet();
    Future<Long> start = initial || from >= 0 ? Future.succeededFuture(Math.max(from, 0))
        : rt.store(req).currentRevision();
    start.compose(f -> rt.store(req).watch(new WatchOptions(req.keyPrefix(), f, initial), this)).onComplete(ar ->
        onRequestContext(() -> started(ar.succeeded() ? ar.result() : null, ar.cause(), initial, timeoutS)));
  }

  private void started(Watch w, Throwable failure, boolean initial, long timeoutS) {
    if (failure == null) {
      watch = w;
      if (closed) {
        w.cancel();
        return;
      }
      open(timeoutS);
      if (pendingError != null) {
        error(pendingError);
      }
      return;
    }
    // accepted watches report storage errors as one ERROR event on the 200 stream (cacher.go newErrWatcher)
    if (failure instanceof StorageException se && (se.storageCode() == StorageException.Code.EXPIRED
        || initial && se.storageCode() == StorageException.Code.TOO_LARGE_RESOURCE_VERSION)) {
      open(timeoutS);
      error(se);
      return;
    }
    close(false);
    Responses.fail(req, failure);
  }

  private void open(long timeoutS) {
    out.onClose(() -> close(false));
    out.open();
    opened = true;
    pending.forEach(this::write);
    pending.clear();
    long timeoutMs = Math.max(1, timeoutS * 1000);  // a negative timeoutSeconds ends the watch at once
    timers.add(rt.vertx().setTimer(timeoutMs, id -> close(true)));
    if (bookmarks) {
      timers.add(rt.vertx().setPeriodic(rt.options().bookmarkIntervalMs(), id -> bookmark()));
      long at = timeoutMs > 2 * DEADLINE_BOOKMARK_MS ? timeoutMs - DEADLINE_BOOKMARK_MS : timeoutMs / 2;
      timers.add(rt.vertx().setTimer(Math.max(1, at), id -> bookmark()));
    }
  }

  @Override
  public void onEvent(WatchEvent e) {
    onRequestContext(() -> event(e));
  }

  private void event(WatchEvent e) {
    if (closed) {
      return;
    }
    JsonObject now = e.object().object();
    JsonObject prev = e.previous() == null ? null : e.previous().object();
    if (e.type() == WatchEvent.Type.DELETED) {
      if (prev != null && filter.matches(prev) || filter.matches(now)) {
        send("DELETED", now);
      }
      return;
    }
    boolean in = filter.matches(now);
    boolean was = prev != null && filter.matches(prev);
    if (in && was) {
      send("MODIFIED", now);
    } else if (in) {
      send("ADDED", now);
    } else if (was) {
      send("DELETED", now);
    }
  }

  @Override
  public void onInitialEventsEnd(long revision) {
    onRequestContext(() -> initialEventsEnd(revision));
  }

  private void initialEventsEnd(long revision) {
    if (closed || !endBookmark) {
      return;
    }
    JsonObject end = bookmarkObject(revision);
    end.getJsonObject("metadata").put("annotations", new JsonObject().put("k8s.io/initial-events-end", "true"));
    write(line("BOOKMARK", bookmarkView(end)));
  }

  @Override
  public void onError(StorageException error) {
    onRequestContext(() -> error(error));
  }

  private void error(StorageException error) {
    if (closed) {
      return;
    }
    if (!opened) { // the storage failed the watch before the response head was sent: end it once started
      pendingError = error;
      return;
    }
    write(line("ERROR", error.toStatus()));
    close(true);
  }

  private void bookmark() {
    if (closed || watch == null) {
      return;
    }
    write(line("BOOKMARK", bookmarkView(bookmarkObject(watch.progressRevision()))));
  }

  /**
   * A BOOKMARK's object in the view asked for, as every event's (apiserver {@code handlers/response.go}
   * {@code watchEmbeddedEncoder}: a PartialObjectMetadata for a metadata informer, which cannot decode the kind
   * itself, or a Table); when the Table cannot be made of the bare object, the object itself, as upstream's
   * "failed to transform object".
   */
  private JsonObject bookmarkView(JsonObject bookmark) {
    // asTable: a row holding the initial-events-end annotation carries PartialObjectMetadata unless includeObject
    // is Object (None included)
    String include = req.param("includeObject");
    boolean end = bookmark.getJsonObject("metadata").containsKey("annotations");
    try {
      return render(bookmark, end && !"Object".equals(include) ? "Metadata" : include);
    } catch (RuntimeException e) {
      return bookmark;
    }
  }

  private JsonObject bookmarkObject(long rv) {
    return new JsonObject().put("kind", rt.crd().kind()).put("apiVersion", req.apiVersion())
        .put("metadata", new JsonObject().put("resourceVersion", Long.toString(rv)));
  }

  private void send(String type, JsonObject stored) {
    write(line(type, render(req.view(stored), req.param("includeObject"))));
  }

  /**
   * @param o             an object in the client's version
   * @param includeObject the Table rows' {@code includeObject}
   * @return {@code o} as the view asks: itself, a Table or a PartialObjectMetadata
   */
  private JsonObject render(JsonObject o, String includeObject) {
    if (view.table()) {
      JsonObject meta = new JsonObject().put("resourceVersion", o.getJsonObject("metadata").getString(
          "resourceVersion", ""));
      o = rt.table(req.version().name()).table(List.of(o), view, includeObject, meta, firstTable);
      firstTable = false;
    } else if (view.partial()) {
      o = TableRenderer.partial(o, view.metaApiVersion());
    }
    return o;
  }

  private void write(Buffer b) {
    if (!opened) {
      pending.add(b);
      return;
    }
    if (closed || out.closed()) {
      close(false);
      return;
    }
    if (out.full()) {
      close(true);
      return;
    }
    out.write(b);
  }

  private static Buffer line(String type, JsonObject object) {
    return new JsonObject().put("type", type).put("object", object).toBuffer().appendString("\n");
  }

  private void close(boolean end) {
    if (closed) {
      return;
    }
    closed = true;
    if (watch != null) {
      watch.cancel();
    }
    timers.forEach(rt.vertx()::cancelTimer);
    if (counted) {
      rt.watches().decrementAndGet();
    }
    if (end && opened) {
      out.end();
    }
  }
}

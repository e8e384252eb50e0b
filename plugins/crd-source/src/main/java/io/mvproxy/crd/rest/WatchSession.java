package io.mvproxy.crd.rest;

import io.mvproxy.api.StatusReason;
import io.mvproxy.crd.store.EventWindow;
import io.mvproxy.crd.store.StoredObject;
import io.mvproxy.crd.store.TooOldException;
import io.mvproxy.crd.store.WatchEvent;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One running watch: events from the {@link EventWindow} are filtered, converted to the client's version (or a
 * Table) and written as {@code {"type":...,"object":...}} lines on a chunked 200 response, on the request's
 * context. Without a resourceVersion (or with {@code 0}) current objects are sent first as synthetic ADDED events.
 * Selectors are applied to both the old and new state, so an object leaving the selection is reported DELETED and
 * one entering it ADDED (apiserver {@code storage/cacher/cache_watcher.go}). Only events newer than the requested
 * resourceVersion are sent. Known limit: a write that lands more than the window's reorder holdback after taking
 * its resourceVersion can be missed by a watch started from a higher version. Ends on {@code timeoutSeconds},
 * client disconnect, or a write queue that stays full (a slow client re-watches).
 */
final class WatchSession {
  /**
   * Bytes a watch may have queued towards a slow client before it is ended (the client re-watches from its last
   * resourceVersion); kube-apiserver likewise drops watchers whose buffer stays full.
   */
  static final int MAX_QUEUED_BYTES = 16 * 1024 * 1024;
  private final CrdRuntime rt;
  private final CrdRequest req;
  private final MediaView view;
  private final ListFilter filter;
  private final boolean bookmarks;
  private final Context context;
  private final WatchOutput out;
  private final Map<String, Long> listed = new HashMap<>();
  private final List<WatchEvent> buffered = new ArrayList<>();
  private boolean buffering;
  private long after = Long.MIN_VALUE;
  private boolean firstTable = true;
  private boolean closed;
  private Runnable cancel = () -> { };
  private long timeoutTimer = -1;
  private long bookmarkTimer = -1;

  WatchSession(CrdRuntime rt, CrdRequest req, MediaView view, ListFilter filter, boolean bookmarks, WatchOutput out) {
    this.rt = rt;
    this.req = req;
    this.view = view;
    this.filter = filter;
    this.bookmarks = bookmarks;
    this.context = rt.vertx().getOrCreateContext();
    this.out = out;
  }

  /**
   * @param initial  true to send current objects first
   * @param from     resourceVersion to start after (ignored when {@code initial})
   * @param timeoutS seconds before the watch ends
   */
  void start(boolean initial, long from, long timeoutS) {
    EventWindow window = rt.store().window();
    long start = initial ? window.highWater() : from;
    EventWindow.Subscription sub;
    try {
      sub = window.subscribe(start, e -> context.runOnContext(v -> onEvent(e)));
    } catch (TooOldException e) {
      JsonObject status = new JsonObject().put("kind", "Status").put("apiVersion", "v1")
          .put("metadata", new JsonObject()).put("status", "Failure").put("message", e.getMessage())
          .put("reason", StatusReason.Expired.name()).put("code", StatusReason.Expired.code());
      out.open();
      out.write(line("ERROR", status));
      out.end();
      return;
    }
    cancel = sub.cancel();
    out.onClose(() -> close(false));
    out.open();
    timeoutTimer = rt.vertx().setTimer(timeoutS * 1000, id -> close(true));
    if (bookmarks) {
      bookmarkTimer = rt.vertx().setPeriodic(rt.options().bookmarkIntervalMs(), id -> {
        long rv = window.highWater();
        context.runOnContext(v -> bookmark(rv));
      });
    }
    buffering = initial;
    if (!initial) {
      after = start;
    }
    sub.replay().forEach(this::onEvent);
    if (initial) {
      rt.store().list(filter.namespace()).onSuccess(all -> {
        long stateRv = start;
        for (StoredObject so : all) {
          listed.put(so.key(), so.resourceVersion());
          stateRv = Math.max(stateRv, so.resourceVersion());
          if (filter.matches(so.object())) {
            send("ADDED", so.object());
          }
        }
        if (io.mvproxy.api.BoolParam.of(req.param("sendInitialEvents"))) {
          JsonObject end = bookmarkObject(stateRv);
          end.getJsonObject("metadata").put("annotations",
              new JsonObject().put("k8s.io/initial-events-end", "true"));
          write(line("BOOKMARK", end));
        }
        buffering = false;
        List<WatchEvent> pending = new ArrayList<>(buffered);
        buffered.clear();
        pending.forEach(this::onEvent);
      }).onFailure(t -> close(true));
    }
  }

  private void onEvent(WatchEvent e) {
    if (closed) {
      return;
    }
    if (buffering) {
      buffered.add(e);
      return;
    }
    Long seen = listed.get(e.key());
    if (seen != null && e.resourceVersion() <= seen || e.resourceVersion() <= after) {
      // already in the client's state: sent by the initial list, or older than the version it watches from
      // (this node's window may lag the node the client listed on)
      return;
    }
    boolean now = !"DELETED".equals(e.type()) && filter.matches(e.object());
    boolean before = e.previous() != null && filter.matches(e.previous());
    if ("DELETED".equals(e.type())) {
      if (before || filter.matches(e.object())) {
        send("DELETED", e.object());
      }
    } else if (now && before) {
      send("MODIFIED", e.object());
    } else if (now) {
      send("ADDED", e.object());
    } else if (before) {
      send("DELETED", e.object());
    }
  }

  private void bookmark(long rv) {
    if (closed) {
      return;
    }
    write(line("BOOKMARK", bookmarkObject(rv)));
  }

  private JsonObject bookmarkObject(long rv) {
    return new JsonObject().put("kind", rt.crd().kind()).put("apiVersion", req.apiVersion())
        .put("metadata", new JsonObject().put("resourceVersion", Long.toString(rv)));
  }

  private void send(String type, JsonObject stored) {
    JsonObject o = req.view(stored);
    if (view.table()) {
      JsonObject meta = new JsonObject().put("resourceVersion", o.getJsonObject("metadata").getString(
          "resourceVersion", ""));
      o = rt.table(req.version().name()).table(List.of(o), view, req.param("includeObject"), meta, firstTable);
      firstTable = false;
    } else if (view.partial()) {
      o = TableRenderer.partial(o, view.metaApiVersion());
    }
    write(line(type, o));
  }

  private void write(Buffer b) {
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
    cancel.run();
    rt.vertx().cancelTimer(timeoutTimer);
    if (bookmarkTimer >= 0) {
      rt.vertx().cancelTimer(bookmarkTimer);
    }
    if (end) {
      out.end();
    }
  }
}

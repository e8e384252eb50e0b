package io.mvproxy.storage;

import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.ListResult;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.api.storage.Watch;
import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.api.storage.WatchListener;
import io.mvproxy.api.storage.WatchOptions;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * The watch cache of one resource on one node (the idea of kube-apiserver's {@code storage/cacher/cacher.go} and
 * {@code watch_cache.go}): ONE backend watch over the resource's whole key range, opened on the first client watch,
 * feeds a ring of the last {@code capacity} events, and every client watch of the resource on this node is a
 * filtered reader of it. A watch from a revision the ring no longer covers gets its own backend watch from that
 * revision (etcd still has the history until compaction; 410 Expired after), so a client that listed through another
 * node never misses an event. When the backend watch fails, every client watch gets the error (the clients
 * re-watch) and the next watch reopens it.
 */
public final class WatchCache {
  private final Vertx vertx;
  private final Backend backend;
  private final String base;
  private final int capacity;
  private final Function<Kv, StoredObject> decode;
  private final ArrayDeque<Keyed> ring = new ArrayDeque<>();
  private final List<Sub> subs = new CopyOnWriteArrayList<>();
  private Future<Void> started;
  private BackendWatch backendWatch;
  private long highWater;
  private long oldestServable;
  private int generation;
  private int backendWatches;

  private record Keyed(String key, WatchEvent event) {
  }

  /**
   * @param vertx    the node's Vert.x
   * @param backend  the backend
   * @param base     the resource's full key prefix ({@code /registry/<prefix>/})
   * @param capacity events kept in the ring
   * @param decode   backend pair to object
   */
  WatchCache(Vertx vertx, Backend backend, String base, int capacity, Function<Kv, StoredObject> decode) {
    this.vertx = vertx;
    this.backend = backend;
    this.base = base;
    this.capacity = Math.max(1, capacity);
    this.decode = decode;
  }

  /** @return client watches currently served by this cache */
  public int watchers() {
    return subs.size();
  }

  /** @return backend watches open for this resource now (the shared one plus any for lagging clients) */
  public synchronized int backendWatches() {
    return backendWatches;
  }

  /** @return the highest revision the cache has caught up to */
  public synchronized long highWater() {
    return highWater;
  }

  Future<Watch> watch(WatchOptions o, WatchListener l, ObjectStore store) {
    Context ctx = vertx.getOrCreateContext();
    Promise<Watch> p = Promise.promise();
    ensureStarted().onFailure(p::fail).onSuccess(v -> {
      if (o.initialEvents()) {
        listAll(store, o.keyPrefix()).onFailure(p::fail).onSuccess(lr -> p.complete(subscribe(ctx, o.keyPrefix(),
            lr.resourceVersion(), l, lr.items())));
        return;
      }
      long from = o.fromRevision();
      boolean ahead;
      synchronized (this) {
        ahead = from > highWater;
      }
      if (!ahead) {
        p.complete(subscribe(ctx, o.keyPrefix(), from, l, null));
        return;
      }
      backend.currentRevision().onFailure(p::fail).onSuccess(cur -> {
        if (from > cur) {
          p.fail(StorageException.tooLargeResourceVersion(from, cur));
        } else {
          p.complete(subscribe(ctx, o.keyPrefix(), from, l, null));
        }
      });
    });
    return p.future();
  }

  /** Lists every object under the prefix at one revision (pages of 500 at the first page's revision). */
  private Future<ListResult> listAll(ObjectStore store, String keyPrefix) {
    List<StoredObject> all = new ArrayList<>();
    Promise<ListResult> p = Promise.promise();
    listPage(store, keyPrefix, null, all, p);
    return p.future();
  }

  private void listPage(ObjectStore store, String keyPrefix, String token, List<StoredObject> all,
                        Promise<ListResult> p) {
    store.list(new ListOptions(keyPrefix, null, null, 500, token, null)).onFailure(p::fail).onSuccess(r -> {
      all.addAll(r.items());
      if (r.continueToken() != null) {
        listPage(store, keyPrefix, r.continueToken(), all, p);
      } else {
        p.complete(new ListResult(all, r.resourceVersion(), null, null));
      }
    });
  }

  private synchronized Future<Void> ensureStarted() {
    if (started != null && !started.failed()) {
      return started;
    }
    int gen = ++generation;
    started = backend.currentRevision().map(rev -> {
      synchronized (this) {
        if (gen != generation) {
          return null;
        }
        highWater = Math.max(highWater, rev);
        oldestServable = rev;
        ring.clear();
        backendWatch = backend.watch(base, base, Keys.prefixEnd(base), rev, new Shared(gen));
        backendWatches++;
      }
      return null;
    });
    return started;
  }

  /** Registers a client watch after {@code from}; events the ring holds after it are replayed first. */
  private synchronized Watch subscribe(Context ctx, String keyPrefix, long from, WatchListener l,
                                       List<StoredObject> initial) {
    Sub s = new Sub(ctx, base + keyPrefix, from, l);
    if (initial != null) {
      ctx.runOnContext(v -> {
        for (StoredObject so : initial) {
          if (!s.cancelled) {
            l.onEvent(new WatchEvent(WatchEvent.Type.ADDED, so, null));
          }
        }
        if (!s.cancelled) {
          l.onInitialEventsEnd(from);
        }
      });
    }
    if (from < oldestServable) {
      s.direct = backend.watch(base, s.prefix, Keys.prefixEnd(s.prefix), from, new Direct(s));
      backendWatches++;
      return s;
    }
    List<WatchEvent> replay = new ArrayList<>();
    for (Keyed k : ring) {
      if (k.event().revision() > from && k.key().startsWith(s.prefix)) {
        replay.add(k.event());
      }
    }
    long hw = highWater;
    s.enqueue(replay, hw);
    subs.add(s);
    return s;
  }

  private void release(Sub s) {
    subs.remove(s);
    if (s.direct != null) {
      s.direct.cancel();
      synchronized (this) {
        backendWatches--;
      }
    }
  }

  /** Stops the shared backend watch and ends every client watch with 503 (storage closing). */
  synchronized void close() {
    generation++;
    if (backendWatch != null) {
      backendWatch.cancel();
      backendWatch = null;
    }
    started = null;
    for (Sub s : subs) {
      s.fail(StorageException.unavailable("storage", "closed"));
    }
    subs.clear();
  }

  private WatchEvent convert(BackendEvent e) {
    if (e.delete()) {
      if (e.previous() == null) {
        return null;
      }
      Kv last = new Kv(e.previous().key(), e.previous().value(), e.revision(), e.previous().createRevision());
      return new WatchEvent(WatchEvent.Type.DELETED, decode.apply(last), decode.apply(e.previous()));
    }
    StoredObject now = decode.apply(e.kv());
    boolean created = e.kv().createRevision() == e.kv().modRevision();
    return new WatchEvent(created ? WatchEvent.Type.ADDED : WatchEvent.Type.MODIFIED, now,
        created || e.previous() == null ? null : decode.apply(e.previous()));
  }

  /** Listener of the shared backend watch. */
  private final class Shared implements BackendWatch.Listener {
    private final int gen;

    Shared(int gen) {
      this.gen = gen;
    }

    @Override
    public void onEvents(List<BackendEvent> events) {
      synchronized (WatchCache.this) {
        if (gen != generation) {
          return;
        }
        List<Keyed> batch = new ArrayList<>(events.size());
        for (BackendEvent e : events) {
          WatchEvent we;
          try {
            we = convert(e);
          } catch (RuntimeException ex) {
            continue;
          }
          if (we == null) {
            continue;
          }
          Keyed k = new Keyed(e.kv().key(), we);
          batch.add(k);
          ring.addLast(k);
          highWater = Math.max(highWater, e.revision());
          while (ring.size() > capacity) {
            oldestServable = Math.max(oldestServable, ring.pollFirst().event().revision());
          }
        }
        long hw = highWater;
        for (Sub s : subs) {
          List<WatchEvent> mine = new ArrayList<>();
          for (Keyed k : batch) {
            if (k.key().startsWith(s.prefix)) {
              mine.add(k.event());
            }
          }
          s.enqueue(mine, hw);
        }
      }
    }

    @Override
    public void onProgress(long revision) {
      synchronized (WatchCache.this) {
        if (gen != generation) {
          return;
        }
        highWater = Math.max(highWater, revision);
        for (Sub s : subs) {
          s.enqueue(List.of(), highWater);
        }
      }
    }

    @Override
    public void onError(StorageException error) {
      synchronized (WatchCache.this) {
        if (gen != generation) {
          return;
        }
        generation++;
        backendWatch = null;
        backendWatches--;
        started = null;
        for (Sub s : subs) {
          s.fail(error);
        }
        subs.clear();
      }
    }
  }

  /** Listener of a lagging client's own backend watch. */
  private final class Direct implements BackendWatch.Listener {
    private final Sub sub;

    Direct(Sub sub) {
      this.sub = sub;
    }

    @Override
    public void onEvents(List<BackendEvent> events) {
      List<WatchEvent> out = new ArrayList<>();
      long last = 0;
      for (BackendEvent e : events) {
        try {
          WatchEvent we = convert(e);
          if (we != null) {
            out.add(we);
          }
        } catch (RuntimeException ignored) {
          // an unreadable value is skipped, as the shared watch does
        }
        last = e.revision();
      }
      sub.enqueue(out, last);
    }

    @Override
    public void onProgress(long revision) {
      sub.enqueue(List.of(), revision);
    }

    @Override
    public void onError(StorageException error) {
      sub.fail(error);
    }
  }

  /** One client watch: delivers on its context, in order; tracks the revision it has caught up to. */
  private final class Sub implements Watch {
    final Context ctx;
    final String prefix;
    final WatchListener listener;
    volatile boolean cancelled;
    volatile long progress;
    long after;
    BackendWatch direct;

    Sub(Context ctx, String prefix, long from, WatchListener listener) {
      this.ctx = ctx;
      this.prefix = prefix;
      this.after = from;
      this.progress = from;
      this.listener = listener;
    }

    void enqueue(List<WatchEvent> events, long caughtUpTo) {
      ctx.runOnContext(v -> {
        for (WatchEvent e : events) {
          deliver(e);
        }
        if (!cancelled && caughtUpTo > progress) {
          progress = caughtUpTo;
        }
      });
    }

    void deliver(WatchEvent e) {
      if (cancelled || e.revision() <= after) {
        return;
      }
      after = e.revision();
      progress = Math.max(progress, after);
      listener.onEvent(e);
    }

    void fail(StorageException error) {
      ctx.runOnContext(v -> {
        if (!cancelled) {
          cancelled = true;
          release(this);
          listener.onError(error);
        }
      });
    }

    @Override
    public long progressRevision() {
      return progress;
    }

    @Override
    public void cancel() {
      if (!cancelled) {
        cancelled = true;
        release(this);
      }
    }
  }
}

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
 * filtered reader of it. The shared watch starts at the first client watch's revision (so a client that listed
 * through another node misses no event), or at the current revision. A watch from a revision the ring no longer
 * covers gets one ERROR event with 410 Expired {@code too old resource version: N (M)}, M the oldest revision the
 * ring can still serve from, as the cacher's {@code getAllEventsSinceLocked}; the client relists. A
 * {@code sendInitialEvents} watch from revision N first waits (up to 3 s, as {@code waitUntilFreshAndBlock}) until
 * the store reaches N, else 504 Too large resource version; a plain watch from a revision ahead of the store is
 * served, its events starting after that revision. When the backend watch fails, every client watch gets
 * the error (the clients re-watch) and the next watch reopens it.
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
  private StorageException lastError;
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

  /** @return backend watches open for this resource now (0 or 1: the shared one) */
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
    ensureStarted(o.initialEvents() ? 0 : o.fromRevision()).onFailure(p::fail).onSuccess(v -> {
      if (o.initialEvents()) {
        Future<Void> fresh = o.fromRevision() > 0 ? store.waitForRevision(o.fromRevision()) : Future.succeededFuture();
        fresh.compose(x -> listAll(store, o.keyPrefix())).onFailure(p::fail).onSuccess(lr -> p.complete(
            subscribe(ctx, o.keyPrefix(), lr.resourceVersion(), l, lr.items())));
        return;
      }
      // a revision ahead of the cache, or of the store itself (a client that read it through a node whose cache
      // is ahead of this one's), is watched as the cacher does (getAllEventsSinceLocked, cacheWatcher.process):
      // nothing is replayed, and only events after it are sent once the store passes it
      p.complete(subscribe(ctx, o.keyPrefix(), o.fromRevision(), l, null));
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

  /**
   * Opens the shared backend watch unless it runs: after {@code hint} when that revision is older than the current
   * one (the first client's start; the backend still has that history, else the watch fails with 410), else after
   * the current revision.
   */
  private synchronized Future<Void> ensureStarted(long hint) {
    if (started != null && !started.failed()) {
      return started;
    }
    int gen = ++generation;
    Future<Void> f = backend.currentRevision().map(rev -> {
      long from;
      synchronized (this) {
        if (gen != generation) {
          return null;
        }
        from = hint > 0 && hint < rev ? hint : rev;
        highWater = Math.max(highWater, from);
        oldestServable = from;
        ring.clear();
        backendWatches++;
      }
      // the backend is called without this cache's monitor: jetcd calls Shared.onError holding its own watch lock,
      // so opening or closing a watch under the monitor deadlocked with an etcd failure (seen in EtcdStorageTest)
      BackendWatch w = backend.watch(base, base, Keys.prefixEnd(base), from, new Shared(gen));
      boolean current;
      synchronized (this) {
        current = gen == generation;
        if (current) {
          backendWatch = w;
        }
      }
      if (!current) {
        // it failed within backend.watch (a worker's answer attached after it came), or the cache closed meanwhile:
        // Shared.onError ended this generation, so subscribers get its error (lastError) and the next watch reopens
        w.cancel();
      }
      return null;
    });
    if (gen == generation) { // else it ran and failed within this call: started stays null, the next watch reopens
      started = f;
    }
    return f;
  }

  /** Registers a client watch after {@code from}; events the ring holds after it are replayed first. */
  private synchronized Watch subscribe(Context ctx, String keyPrefix, long from, WatchListener l,
                                       List<StoredObject> initial) {
    Sub s = new Sub(ctx, base + keyPrefix, from, l);
    if (backendWatch == null) { // the shared watch failed between its start and this subscription
      s.fail(lastError != null ? lastError : StorageException.unavailable("storage", "watch closed"));
      return s;
    }
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
      s.fail(StorageException.expired("too old resource version: " + from + " (" + oldestServable + ")"));
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
  }

  /**
   * Stops the shared backend watch and ends every client watch with 503 (storage closing). The backend watch is
   * cancelled outside this cache's monitor (see {@link #ensureStarted}): a node closing its storage while etcd failed
   * hung in that deadlock.
   */
  void close() {
    BackendWatch w;
    synchronized (this) {
      generation++;
      w = backendWatch;
      backendWatch = null;
      started = null;
      for (Sub s : subs) {
        s.fail(StorageException.unavailable("storage", "closed"));
      }
      subs.clear();
    }
    if (w != null) {
      w.cancel();
    }
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
            // a value that cannot be read (e.g. not decryptable) is never delivered as data
            java.util.logging.Logger.getLogger(WatchCache.class.getName()).warning("watch event at revision "
                + e.revision() + " dropped: " + ex.getMessage());
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
        lastError = error;
        backendWatches--;
        started = null;
        for (Sub s : subs) {
          s.fail(error);
        }
        subs.clear();
      }
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

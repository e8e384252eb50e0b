package io.mvproxy.builtin;

import io.mvproxy.api.storage.Preconditions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.api.storage.WatchListener;
import io.mvproxy.api.storage.WatchOptions;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * kube-apiserver's {@code --event-ttl} (default 1h): an Event is removed from storage that long after its last
 * write. Upstream gives every Event write an etcd lease of the TTL ({@code pkg/registry/core/event/storage}'s
 * {@code TTLFunc}, {@code etcd3/store.go}'s lease manager, which reuses a lease for a minute, so an Event lives
 * between the TTL and the TTL plus 60 s); here each node follows the events' store and deletes, through storage as
 * the lease's expiry does (no admission, no audit event; watchers see {@code DELETED}), every Event whose last write
 * it saw at least the TTL ago, with that write's resourceVersion as precondition (a write meanwhile wins: the delete
 * gets a conflict and the new write starts its own TTL). Every node does it; the first delete wins, the others' get
 * a conflict or not-found, which are ignored. The clock is the node's: an Event written before the node started
 * counts from the node's first sight of it, so a fleet that restarts keeps older Events up to one TTL longer.
 */
final class EventTtl {
  private static final Logger LOG = Logger.getLogger(EventTtl.class.getName());
  /**
   * The most Events one sweep deletes, one after the other (the rest wait for the next sweep), so a backlog after a
   * long stop is spread out: 10,000 per sweep of at most 30 s keeps up with over 300 Events written per second.
   */
  static final int MAX_DELETES_PER_SWEEP = 10_000;

  private final Vertx vertx;
  private final Duration ttl;
  private final LongSupplier clockMillis;
  private final long periodMillis;
  /**
   * storage key to the last write seen: its resourceVersion and when this node saw it (epoch ms); written on the
   * follow's context only (concurrent for the tests' reads).
   */
  private final Map<String, Seen> seen = new java.util.concurrent.ConcurrentHashMap<>();
  private ResourceStorage store;
  private boolean sweeping;

  private record Seen(long resourceVersion, long atMillis) {
  }

  /**
   * @param vertx        runs the sweeps
   * @param ttl          how long after its last write an Event is deleted (positive)
   * @param clockMillis  the clock, epoch milliseconds
   * @param periodMillis time between sweeps ({@link #sweepPeriodMillis(Duration)})
   */
  EventTtl(Vertx vertx, Duration ttl, LongSupplier clockMillis, long periodMillis) {
    this.vertx = vertx;
    this.ttl = ttl;
    this.clockMillis = clockMillis;
    this.periodMillis = periodMillis;
  }

  /**
   * The time between sweeps: a tenth of the TTL, between 1 s and 30 s (upstream's lease reuse lets an Event outlive
   * its TTL by up to 60 s; this stays within it).
   *
   * @param ttl the TTL
   * @return the sweep period, ms
   */
  static long sweepPeriodMillis(Duration ttl) {
    return Math.max(1_000, Math.min(30_000, ttl.toMillis() / 10));
  }

  /** Delay before a broken watch (storage unreachable, 410) lists and watches again, ms (as the registry's follows). */
  static final long REFOLLOW_DELAY_MS = 1000;

  /**
   * Follows the Events' store (core v1; events.k8s.io Events share it) and sweeps periodically. Unlike the registry's
   * follows, which keep every object to report the ones gone during a relist, this keeps only each Event's last
   * resourceVersion and time. Does nothing when {@code store} is null.
   *
   * @param store the Events' storage
   */
  void start(ResourceStorage store) {
    this.store = store;
    if (store == null) {
      return;
    }
    vertx.runOnContext(v -> {
      follow(vertx.getOrCreateContext());
      vertx.setPeriodic(periodMillis, t -> sweep());
    });
  }

  /** Lists (as ADDED) and watches; after a break lists again, forgetting the Events the new list lacks. */
  private void follow(Context ctx) {
    Set<String> relisted = new HashSet<>();
    boolean[] initialDone = {false};
    Runnable again = () -> vertx.setTimer(REFOLLOW_DELAY_MS, t -> ctx.runOnContext(v -> follow(ctx)));
    store.watch(new WatchOptions("", 0, true), new WatchListener() {
      @Override
      public void onEvent(WatchEvent e) {
        if (!initialDone[0]) {
          relisted.add(e.object().key());
        }
        apply(e);
      }

      @Override
      public void onInitialEventsEnd(long revision) {
        initialDone[0] = true;
        seen.keySet().removeIf(k -> !relisted.contains(k));
        relisted.clear();
      }

      @Override
      public void onError(StorageException error) {
        again.run();
      }
    }).onFailure(t -> again.run());
  }

  /**
   * Deletes through {@code store} without following it (tests feed {@link #apply} themselves).
   *
   * @param store the Events' storage
   */
  void useStore(ResourceStorage store) {
    this.store = store;
  }

  /** Records a write (ADDED, MODIFIED) or forgets a deleted Event. Runs on the follow's context. */
  void apply(WatchEvent e) {
    StoredObject o = e.object();
    if (e.type() == WatchEvent.Type.DELETED) {
      seen.remove(o.key());
      return;
    }
    Seen old = seen.get(o.key());
    if (old == null || old.resourceVersion() != o.resourceVersion()) {
      seen.put(o.key(), new Seen(o.resourceVersion(), clockMillis.getAsLong()));
    }
  }

  /**
   * Deletes the Events whose last seen write is at least the TTL old, one at a time, at most
   * {@link #MAX_DELETES_PER_SWEEP}; a sweep still running when the next is due is not doubled.
   *
   * @return completes when this sweep's deletes are done (never fails)
   */
  Future<Void> sweep() {
    if (sweeping || store == null) {
      return Future.succeededFuture();
    }
    long now = clockMillis.getAsLong();
    List<Map.Entry<String, Seen>> due = new ArrayList<>();
    for (Map.Entry<String, Seen> en : seen.entrySet()) {
      if (now - en.getValue().atMillis() >= ttl.toMillis()) {
        due.add(Map.entry(en.getKey(), en.getValue()));
        if (due.size() == MAX_DELETES_PER_SWEEP) {
          break;
        }
      }
    }
    if (due.isEmpty()) {
      return Future.succeededFuture();
    }
    sweeping = true;
    Future<Void> chain = Future.succeededFuture();
    for (Map.Entry<String, Seen> en : due) {
      chain = chain.compose(v -> expire(en.getKey(), en.getValue()));
    }
    return chain.onComplete(ar -> sweeping = false);
  }

  private Future<Void> expire(String key, Seen s) {
    return store.delete(key, new Preconditions(null, Long.toString(s.resourceVersion())), o -> { })
        .<Void>mapEmpty().recover(t -> {
          if (t instanceof StorageException se && (se.storageCode() == StorageException.Code.NOT_FOUND
              || se.storageCode() == StorageException.Code.CONFLICT)) {
            // another node expired it first, or it was written again (the watch brings the new write)
            if (se.storageCode() == StorageException.Code.NOT_FOUND) {
              seen.remove(key, s);
            }
          } else {
            LOG.fine(() -> "expiring event " + key + " failed (retried next sweep): " + t);
          }
          return Future.succeededFuture();
        });
  }

  /**
   * @param key an Event's storage key ({@code <ns>/<name>})
   * @return when this node saw its last write (epoch ms, its clock), or -1 when it times no such Event
   */
  long seenAt(String key) {
    Seen s = seen.get(key);
    return s == null ? -1 : s.atMillis();
  }
}

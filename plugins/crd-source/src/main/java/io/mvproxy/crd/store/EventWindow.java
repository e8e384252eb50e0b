package io.mvproxy.crd.store;

import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A bounded, resourceVersion-ordered window of recent events of one resource, the equivalent of kube-apiserver's
 * watch cache ({@code apiserver/pkg/storage/cacher/watch_cache.go}), fed by the cluster-wide map listener.
 *
 * <p>Ordering: a writer takes its resourceVersion from the cluster counter before its write lands, so events of
 * concurrent writers to different keys can arrive out of order (per key they are ordered, since every write is a
 * compare-and-set on the value the version was taken after). Arriving events are held back
 * {@code holdbackMs} and released sorted by resourceVersion; an event later than that is still delivered
 * (after higher ones). Thread-safe; subscribers are called under the window's lock and must only enqueue.
 */
public final class EventWindow {
  private final Vertx vertx;
  private final int capacity;
  private final long holdbackNanos;
  private final TreeMap<Long, WatchEvent> window = new TreeMap<>();
  private final TreeMap<Long, Pending> pending = new TreeMap<>();
  private final List<Consumer<WatchEvent>> subscribers = new CopyOnWriteArrayList<>();
  private long highWater;
  private long oldest;
  private boolean timerSet;
  private boolean closed;

  private record Pending(WatchEvent event, long arrival) {
  }

  /** What {@link #subscribe} returns: the events to replay, and a handle to stop receiving. */
  public record Subscription(List<WatchEvent> replay, Runnable cancel) {
  }

  /**
   * @param vertx      for the release timer
   * @param capacity   events kept (at least 1)
   * @param holdbackMs reordering delay in ms (0 releases at once)
   */
  public EventWindow(Vertx vertx, int capacity, long holdbackMs) {
    this.vertx = vertx;
    this.capacity = Math.max(1, capacity);
    this.holdbackNanos = holdbackMs * 1_000_000L;
  }

  /**
   * Sets where the window starts: versions up to {@code startRv} are not in it (a watch from before is too old).
   *
   * @param startRv the counter value read after the listener was registered
   */
  public synchronized void start(long startRv) {
    highWater = Math.max(highWater, startRv);
    oldest = Math.max(oldest, startRv);
  }

  /** @return the highest released resourceVersion: a list served now is complete up to it */
  public synchronized long highWater() {
    return highWater;
  }

  /** @return the oldest resourceVersion a watch may start after */
  public synchronized long oldest() {
    return oldest;
  }

  /** Adds an event arriving from the map listener (any thread). */
  public void offer(WatchEvent e) {
    synchronized (this) {
      if (closed) {
        return;
      }
      pending.put(e.resourceVersion(), new Pending(e, System.nanoTime()));
      if (holdbackNanos > 0) {
        if (!timerSet) {
          timerSet = true;
          vertx.setTimer(Math.max(1, holdbackNanos / 1_000_000L), id -> flush());
        }
        return;
      }
    }
    flush();
  }

  /**
   * Subscribes to events after {@code fromRv}.
   *
   * @param fromRv start after this version
   * @param sink   receives released events in order, called under the window lock (enqueue only)
   * @return the window's events after {@code fromRv} to replay first, and a cancel handle
   * @throws TooOldException when {@code fromRv} is older than the window
   */
  public synchronized Subscription subscribe(long fromRv, Consumer<WatchEvent> sink) throws TooOldException {
    if (fromRv < oldest) {
      throw new TooOldException(fromRv, oldest);
    }
    List<WatchEvent> replay = new ArrayList<>(window.tailMap(fromRv, false).values());
    subscribers.add(sink);
    return new Subscription(replay, () -> subscribers.remove(sink));
  }

  /** @return the number of live subscriptions (watches) */
  public int subscriberCount() {
    return subscribers.size();
  }

  /** Stops releasing events and drops subscribers. */
  public synchronized void close() {
    closed = true;
    subscribers.clear();
    pending.clear();
  }

  private synchronized void flush() {
    timerSet = false;
    if (pending.isEmpty()) {
      return;
    }
    long cutoff = System.nanoTime() - holdbackNanos;
    long releaseUpTo = Long.MIN_VALUE;
    for (Pending p : pending.values()) {
      if (p.arrival() <= cutoff) {
        releaseUpTo = Math.max(releaseUpTo, p.event().resourceVersion());
      }
    }
    Iterator<Map.Entry<Long, Pending>> it = pending.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Long, Pending> en = it.next();
      if (en.getKey() > releaseUpTo) {
        break;
      }
      it.remove();
      release(en.getValue().event());
    }
    if (!pending.isEmpty() && !closed) {
      timerSet = true;
      vertx.setTimer(Math.max(1, holdbackNanos / 1_000_000L), id -> flush());
    }
  }

  private void release(WatchEvent e) {
    window.put(e.resourceVersion(), e);
    highWater = Math.max(highWater, e.resourceVersion());
    while (window.size() > capacity) {
      oldest = Math.max(oldest, window.pollFirstEntry().getKey());
    }
    for (Consumer<WatchEvent> s : subscribers) {
      s.accept(e);
    }
  }
}

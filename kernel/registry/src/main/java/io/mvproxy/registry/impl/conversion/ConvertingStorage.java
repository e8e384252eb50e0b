package io.mvproxy.registry.impl.conversion;

import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.ListResult;
import io.mvproxy.api.storage.Preconditions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.api.storage.Watch;
import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.api.storage.WatchListener;
import io.mvproxy.api.storage.WatchOptions;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The storage of a webhook-converted CRD as one request version sees it (apiextensions-apiserver's
 * {@code crConverter} inside the CRD's storage codec): objects are stored in the storage version and every read
 * (get, list, watch, the state a write returns) is converted to the request version, a write converted from it.
 * Objects the REST handlers hand to {@link #create} and {@link #guaranteedUpdate} are in the request version's shape
 * (whatever {@code apiVersion} they carry). A list is converted in one ConversionReview; watch events are converted
 * in order, the events queued meanwhile in one review. A failed conversion fails the call with the converter's
 * {@code 500 InternalError} and writes nothing; a watch ends with it.
 */
public final class ConvertingStorage implements ResourceStorage {
  /** Most watch events (objects and their previous states) converted in one review. */
  static final int WATCH_BATCH = 250;
  private final ResourceStorage raw;
  private final WebhookConverter converter;
  private final String requestApiVersion;
  private final String storageApiVersion;
  private final String kind;
  private final String listKind;

  /**
   * @param raw               the storage of the CRD's objects (storage version)
   * @param converter         the CRD's conversion webhook
   * @param requestApiVersion {@code group/version} the caller reads and writes
   * @param storageApiVersion {@code group/version} of the storage version
   * @param kind              the CRD's kind
   * @param listKind          its list kind
   */
  public ConvertingStorage(ResourceStorage raw, WebhookConverter converter, String requestApiVersion,
                           String storageApiVersion, String kind, String listKind) {
    this.raw = raw;
    this.converter = converter;
    this.requestApiVersion = requestApiVersion;
    this.storageApiVersion = storageApiVersion;
    this.kind = kind;
    this.listKind = listKind;
  }

  private static String gvk(String apiVersion, String kind) {
    return apiVersion + ", Kind=" + kind;
  }

  /** @return stored objects in the request version (one review), keys and revisions kept */
  private Future<List<StoredObject>> out(List<StoredObject> stored, boolean list) {
    List<JsonObject> objs = new ArrayList<>(stored.size());
    stored.forEach(so -> objs.add(so.object()));
    return converter.convert(objs, requestApiVersion, gvk(storageApiVersion, list ? listKind : kind), list)
        .map(conv -> {
          List<StoredObject> res = new ArrayList<>(stored.size());
          for (int i = 0; i < stored.size(); i++) {
            res.add(new StoredObject(stored.get(i).key(), conv.get(i), stored.get(i).resourceVersion()));
          }
          return res;
        });
  }

  private Future<StoredObject> out(StoredObject so) {
    return out(List.of(so), false).map(l -> l.get(0));
  }

  /** @return {@code o} (request version's shape) converted to the storage version */
  private Future<JsonObject> in(JsonObject o) {
    JsonObject labelled = o.copy().put("apiVersion", requestApiVersion);
    if (labelled.getValue("kind") == null) {
      labelled.put("kind", kind);
    }
    return converter.convert(List.of(labelled), storageApiVersion, gvk(requestApiVersion, kind), false)
        .map(l -> l.get(0));
  }

  /** @return the underlying storage's prefix */
  @Override
  public String prefix() {
    return raw.prefix();
  }

  /** Reads one object and converts it to the request version; fails as the storage does, or 500 (conversion). */
  @Override
  public Future<StoredObject> get(String key) {
    return raw.get(key).compose(this::out);
  }

  /** Lists (filters see stored objects) and converts the page in one review; fails as the storage does, or 500. */
  @Override
  public Future<ListResult> list(ListOptions options) {
    return raw.list(options).compose(page -> page.items().isEmpty() ? Future.succeededFuture(page)
        : out(page.items(), true).map(items -> new ListResult(items, page.resourceVersion(), page.continueToken(),
        page.remainingItemCount())));
  }

  /** Converts to the storage version, creates, converts the stored object back; 500 when a conversion fails. */
  @Override
  public Future<StoredObject> create(String key, JsonObject object) {
    return in(object).compose(stored -> raw.create(key, stored)).compose(this::out);
  }

  /**
   * The guaranteed update across conversions, outside the storage's retry loop: read, convert to the request
   * version, transform, convert the result to the storage version, then write only if the object is still the one
   * read (else all again). An unchanged result writes nothing. Fails as the storage does, with what
   * {@code tryUpdate} threw, or 500 (conversion).
   */
  @Override
  public Future<StoredObject> guaranteedUpdate(String key, Preconditions preconditions, UpdateFunction tryUpdate) {
    return attempt(key, preconditions, tryUpdate, 100);
  }

  private static final class Raced extends RuntimeException {
    Raced() {
      super(null, null, false, false);
    }
  }

  private Future<StoredObject> attempt(String key, Preconditions pre, UpdateFunction tryUpdate, int left) {
    return raw.get(key).compose(cur -> {
      String failure = pre.failure(cur);
      if (failure != null) {
        return Future.failedFuture(StorageException.conflict(key, failure));
      }
      return out(cur).compose(view -> {
        JsonObject next = tryUpdate.update(view);
        if (sameContent(next, view.object())) {
          return Future.succeededFuture(view);
        }
        return in(next).compose(stored -> raw.guaranteedUpdate(key, pre, c -> {
          if (c.resourceVersion() != cur.resourceVersion()) {
            throw new Raced();
          }
          return stored;
        })).compose(this::out);
      });
    }).recover(t -> t instanceof Raced && left > 1 ? attempt(key, pre, tryUpdate, left - 1)
        : Future.failedFuture(t instanceof Raced ? StorageException.conflict(key, "the object has been modified; "
        + "please apply your changes to the latest version and try again") : t));
  }

  private static boolean sameContent(JsonObject a, JsonObject b) {
    JsonObject x = a.copy();
    JsonObject y = b.copy();
    x.remove("apiVersion");
    y.remove("apiVersion");
    strip(x);
    strip(y);
    return x.equals(y);
  }

  private static void strip(JsonObject o) {
    if (o.getValue("metadata") instanceof JsonObject m) {
      m.remove("resourceVersion");
    }
  }

  /**
   * Deletes and converts the last state to the request version ({@code validate} sees the stored form); fails as the
   * storage does, or 500 (conversion of the answer: the object is deleted then).
   */
  @Override
  public Future<StoredObject> delete(String key, Preconditions preconditions, Consumer<StoredObject> validate) {
    return raw.delete(key, preconditions, validate).compose(this::out);
  }

  /**
   * Watches the storage and converts each event's object and previous state to the request version, in order (the
   * events that arrive during a conversion go in the next review, at most {@link #WATCH_BATCH} objects); a failed
   * conversion ends the watch with the 500. {@link Watch#progressRevision()} never passes an event still converting.
   */
  @Override
  public Future<Watch> watch(WatchOptions options, WatchListener listener) {
    ConvertingListener conv = new ConvertingListener(listener, options.fromRevision());
    return raw.watch(options, conv).map(w -> {
      conv.inner = w;
      return conv;
    });
  }

  /** Queues raw events, converts them in batches and delivers them in order. */
  private final class ConvertingListener implements WatchListener, Watch {
    private final WatchListener sink;
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private boolean busy;
    private boolean ended;
    private long delivered;
    volatile Watch inner;

    ConvertingListener(WatchListener sink, long from) {
      this.sink = sink;
      this.delivered = from;
    }

    @Override
    public void onEvent(WatchEvent event) {
      queue.add(event);
      pump();
    }

    @Override
    public void onInitialEventsEnd(long revision) {
      queue.add(revision);
      pump();
    }

    @Override
    public void onError(StorageException error) {
      queue.add(error);
      pump();
    }

    private void pump() {
      if (busy || ended || queue.isEmpty()) {
        return;
      }
      Object head = queue.peek();
      if (!(head instanceof WatchEvent)) {
        queue.poll();
        if (head instanceof Long rev) {
          sink.onInitialEventsEnd(rev);
        } else {
          ended = true;
          sink.onError((StorageException) head);
          return;
        }
        pump();
        return;
      }
      List<WatchEvent> batch = new ArrayList<>();
      List<StoredObject> objs = new ArrayList<>();
      while (queue.peek() instanceof WatchEvent e && objs.size() < WATCH_BATCH) {
        queue.poll();
        batch.add(e);
        objs.add(e.object());
        if (e.previous() != null) {
          objs.add(e.previous());
        }
      }
      busy = true;
      out(objs, objs.size() > 1).onComplete(ar -> {
        busy = false;
        if (ended) {
          return;
        }
        if (ar.failed()) {
          ended = true;
          queue.clear();
          if (inner != null) {
            inner.cancel();
          }
          sink.onError(ar.cause() instanceof StorageException se ? se
              : StorageException.internal(null, String.valueOf(ar.cause().getMessage())));
          return;
        }
        int i = 0;
        for (WatchEvent e : batch) {
          StoredObject o = ar.result().get(i++);
          StoredObject p = e.previous() == null ? null : ar.result().get(i++);
          delivered = e.revision();
          sink.onEvent(new WatchEvent(e.type(), o, p));
          if (ended) {
            return;
          }
        }
        pump();
      });
    }

    @Override
    public long progressRevision() {
      Watch w = inner;
      long p = w == null ? 0 : w.progressRevision();
      return busy || !queue.isEmpty() ? Math.min(p, delivered) : p;
    }

    @Override
    public void cancel() {
      ended = true;
      queue.clear();
      Watch w = inner;
      if (w != null) {
        w.cancel();
      }
    }
  }

  /** @return the storage's current revision */
  @Override
  public Future<Long> currentRevision() {
    return raw.currentRevision();
  }

  /** @return the number of stored objects under {@code keyPrefix} */
  @Override
  public Future<Long> count(String keyPrefix) {
    return raw.count(keyPrefix);
  }
}

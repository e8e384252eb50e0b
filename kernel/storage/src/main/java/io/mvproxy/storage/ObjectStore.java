package io.mvproxy.storage;

import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.ListResult;
import io.mvproxy.api.storage.Preconditions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.ResourceVersionMatch;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.api.storage.Watch;
import io.mvproxy.api.storage.WatchListener;
import io.mvproxy.api.storage.WatchOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.mvproxy.storage.encryption.IdentityTransformer;
import io.mvproxy.storage.encryption.TransformException;
import io.mvproxy.storage.encryption.ValueTransformer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * {@link ResourceStorage} of one resource over a {@link Backend}, with kube-apiserver's object semantics
 * ({@code apiserver/pkg/storage/etcd3/store.go}): values are the object's JSON without
 * {@code metadata.resourceVersion} / {@code selfLink}; an object's resourceVersion is its key's mod revision, a
 * list's the revision it was read at; create is "put if mod revision 0"; update and delete are compare-and-set on
 * the mod revision read, retried with the state a lost race returns. Lists follow the resourceVersion /
 * resourceVersionMatch table of storage.md section 4 and page with kube-apiserver's continue tokens. Watches go
 * through this resource's {@link WatchCache}.
 *
 * <p>Encryption at rest ({@code --encryption-provider-config}): values pass through the resource's
 * {@link ValueTransformer} with the full key as authenticated data, as {@code etcd3/store.go}; an encrypted value is
 * handed to the backend as a byte string ({@link Kv#value()}), so ciphertext reaches etcd byte for byte, while values
 * in the clear stay text, as before encryption existed (older nodes of a fleet read them). A value that cannot be read
 * is a 500 InternalError ({@code unable to transform key "<key>": <reason>}), never data; an update that changes
 * nothing still writes when the value is stale (not written by the first provider), so a replace re-encrypts.
 */
public final class ObjectStore implements ResourceStorage {
  /** Largest page read when a filter keeps a page short (etcd3/store.go maxLimit). */
  static final long MAX_PAGE = 10_000;
  /** Attempts of a compare-and-set loop before 409 (etcd3 retries without bound; a bound stops a livelock). */
  static final int MAX_ATTEMPTS = 1000;

  private final Vertx vertx;
  private final Backend backend;
  private final String prefix;
  private final String base;
  private final WatchCache cache;
  /** Swapped by {@link #useTransformer} when the encryption configuration is reloaded; read once per value. */
  private volatile ValueTransformer transformer;

  /**
   * @param vertx      the node's Vert.x
   * @param backend    the backend
   * @param rootPrefix the backend's key prefix ({@code --etcd-prefix}, e.g. {@code /registry})
   * @param prefix     the resource prefix ({@code demo.example.com/widgets})
   * @param cacheSize  events the watch cache keeps
   */
  public ObjectStore(Vertx vertx, Backend backend, String rootPrefix, String prefix, int cacheSize) {
    this(vertx, backend, rootPrefix, prefix, cacheSize, null);
  }

  /**
   * @param vertx       the node's Vert.x
   * @param backend     the backend
   * @param rootPrefix  the backend's key prefix ({@code --etcd-prefix}, e.g. {@code /registry})
   * @param prefix      the resource prefix ({@code demo.example.com/widgets})
   * @param cacheSize   events the watch cache keeps
   * @param transformer the resource's encryption ({@link io.mvproxy.storage.encryption.EncryptionConfig}), or null
   *                    for none (values stored as they are; encrypted ones refused, as upstream's identity)
   */
  public ObjectStore(Vertx vertx, Backend backend, String rootPrefix, String prefix, int cacheSize,
                     ValueTransformer transformer) {
    this.transformer = transformer;
    this.vertx = vertx;
    this.backend = backend;
    this.prefix = prefix;
    this.base = (rootPrefix.endsWith("/") ? rootPrefix : rootPrefix + "/") + prefix + "/";
    this.cache = new WatchCache(vertx, backend, base, cacheSize, this::decode);
  }

  @Override
  public String prefix() {
    return prefix;
  }

  /**
   * Replaces the resource's encryption ({@code --encryption-provider-config-automatic-reload}): values written from
   * now on use {@code next}'s first provider, values read are tried with its providers.
   *
   * @param next the new transformer, or null for none
   */
  public void useTransformer(ValueTransformer next) {
    this.transformer = next;
  }

  /** @return the full key prefix of this resource ({@code /registry/<prefix>/}) */
  public String base() {
    return base;
  }

  /** @return this resource's watch cache */
  public WatchCache cache() {
    return cache;
  }

  @Override
  public Future<StoredObject> get(String key) {
    try {
      Keys.checkRelative(key, false);
    } catch (StorageException e) {
      return Future.failedFuture(e);
    }
    return backend.get(base, base + key).compose(kv -> kv == null
        ? Future.failedFuture(StorageException.notFound(key)) : Future.succeededFuture(decode(kv)));
  }

  @Override
  public Future<ListResult> list(ListOptions o) {
    long withRev;
    long minRev = 0;
    String from;
    String listPrefix;
    try {
      Keys.checkRelative(o.keyPrefix(), true);
      listPrefix = base + o.keyPrefix();
      if (!listPrefix.endsWith("/")) {
        listPrefix += "/";
      }
      from = listPrefix;
      String rvParam = o.resourceVersion() == null ? "" : o.resourceVersion();
      ResourceVersionMatch match = o.match() == null ? ResourceVersionMatch.UNSET : o.match();
      if (o.continueToken() != null && !o.continueToken().isEmpty()) {
        if (!rvParam.isEmpty() && !"0".equals(rvParam)) {
          throw StorageException.badRequest("specifying resource version is not allowed when using continue");
        }
        ContinueToken t = ContinueToken.decode(o.continueToken());
        from = listPrefix + t.startKey();
        withRev = t.resourceVersion() > 0 ? t.resourceVersion() : 0;
        return page(o, listPrefix, from, withRev, true);
      }
      long rv = rvParam.isEmpty() ? -1 : parseRv(rvParam);
      if (match == ResourceVersionMatch.EXACT) {
        withRev = rv;
      } else if (match == ResourceVersionMatch.NOT_OLDER_THAN) {
        withRev = 0;
        minRev = Math.max(rv, 0);
      } else if (rv > 0 && o.limit() > 0) {
        withRev = rv;
      } else {
        withRev = 0;
        minRev = Math.max(rv, 0);
      }
    } catch (StorageException e) {
      return Future.failedFuture(e);
    }
    String f = from;
    String lp = listPrefix;
    long wr = withRev;
    Future<Void> fresh = minRev > 0 ? waitForRevision(minRev) : Future.succeededFuture();
    return fresh.compose(v -> page(o, lp, f, wr, false));
  }

  /** storage.ValidateListOptions: 400 {@code invalid resource version: <the versioner's error>}. */
  private static long parseRv(String s) {
    try {
      return io.mvproxy.api.storage.ResourceVersions.parse(s);
    } catch (IllegalArgumentException e) {
      throw StorageException.badRequest("invalid resource version: " + e.getMessage());
    }
  }

  /**
   * Waits (up to {@link io.mvproxy.api.storage.ResourceVersions#FRESH_WAIT_MS}) until the store's revision reaches
   * {@code rev}, else 504.
   */
  Future<Void> waitForRevision(long rev) {
    return io.mvproxy.api.storage.ResourceVersions.awaitRevision(vertx, backend::currentRevision, rev);
  }

  /** One list walk: what stays fixed across the backend reads of one page. */
  private record Walk(String listPrefix, String end, String firstFrom, long limit, Predicate<JsonObject> filter,
                      boolean continued, List<StoredObject> items, Promise<ListResult> result) {
  }

  /** Reads until {@code limit} items pass the filter or the range ends (etcd3/store.go GetList). */
  private Future<ListResult> page(ListOptions o, String listPrefix, String from, long withRev, boolean continued) {
    Walk w = new Walk(listPrefix, Keys.prefixEnd(listPrefix), from, Math.max(o.limit(), 0), o.filter(), continued,
        new ArrayList<>(), Promise.promise());
    read(w, from, withRev, w.limit());
    return w.result().future();
  }

  private void read(Walk w, String from, long withRev, long pageSize) {
    backend.range(base, from, w.end(), withRev, pageSize).onFailure(t -> {
      if (t instanceof StorageException se && se.storageCode() == StorageException.Code.EXPIRED) {
        w.result().fail(w.continued()
            ? StorageException.continueExpired(ContinueToken.encodeStart(
                w.firstFrom().substring(w.listPrefix().length()), -1))
            : StorageException.expired(StorageException.LIST_TOO_OLD));
      } else {
        w.result().fail(t);
      }
    }).onSuccess(r -> {
      long rev = withRev > 0 ? withRev : r.revision();
      String lastKey = null;
      int consumed = 0;
      try {
        for (Kv kv : r.kvs()) {
          lastKey = kv.key();
          consumed++;
          StoredObject so = decode(kv);
          if (w.filter() == null || w.filter().test(so.object())) {
            w.items().add(so);
            if (w.limit() > 0 && w.items().size() >= w.limit()) {
              break;
            }
          }
        }
      } catch (RuntimeException e) {
        w.result().fail(e);
        return;
      }
      boolean full = w.limit() > 0 && w.items().size() >= w.limit();
      if (!full && r.more() && lastKey != null) {
        read(w, lastKey + "\u0000", rev, Math.min(Math.max(pageSize, 1) * 2, MAX_PAGE));
        return;
      }
      String token = null;
      Long remaining = null;
      if (full && (r.more() || consumed < r.kvs().size())) {
        token = ContinueToken.encode(lastKey, w.listPrefix(), rev);
        if (w.filter() == null) {
          remaining = r.count() - consumed;
        }
      }
      w.result().complete(new ListResult(List.copyOf(w.items()), rev, token, remaining));
    });
  }

  @Override
  public Future<StoredObject> create(String key, JsonObject object) {
    String plain;
    String value;
    try {
      Keys.checkRelative(key, false);
      JsonObject meta = object.getJsonObject("metadata");
      if (meta != null && meta.getValue("resourceVersion") instanceof String rv && !rv.isEmpty()) {
        throw StorageException.badRequest("resourceVersion should not be set on objects to be created");
      }
      plain = encode(object);
      value = toStored(base + key, plain);
    } catch (StorageException e) {
      return Future.failedFuture(e);
    }
    return backend.create(base, base + key, value).compose(r -> r.succeeded()
        ? Future.succeededFuture(object(base + key, plain, r.revision()))
        : Future.failedFuture(StorageException.keyExists(key)));
  }

  @Override
  public Future<StoredObject> guaranteedUpdate(String key, Preconditions preconditions, UpdateFunction tryUpdate) {
    try {
      Keys.checkRelative(key, false);
    } catch (StorageException e) {
      return Future.failedFuture(e);
    }
    return backend.get(base, base + key).compose(kv -> updateLoop(key, kv, preconditions, tryUpdate, MAX_ATTEMPTS));
  }

  private Future<StoredObject> updateLoop(String key, Kv kv, Preconditions pre, UpdateFunction fn, int left) {
    if (kv == null) {
      return Future.failedFuture(StorageException.notFound(key));
    }
    StoredObject cur;
    String plain;
    String value;
    try {
      Plain old = fromStored(kv);
      cur = object(kv.key(), old.json(), kv.modRevision());
      String failed = pre == null ? null : pre.failure(cur);
      if (failed != null) {
        throw StorageException.conflict(key, "Precondition failed: " + failed);
      }
      JsonObject next = fn.update(cur);
      plain = encode(next);
      // etcd3/store.go: no write when nothing changed, unless the stored value is stale (key rotation)
      if (!old.stale() && plain.equals(old.json())) {
        return Future.succeededFuture(cur);
      }
      value = toStored(kv.key(), plain);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return backend.update(base, kv.key(), kv.modRevision(), value).compose(r -> {
      if (r.succeeded()) {
        return Future.succeededFuture(object(kv.key(), plain, r.revision()));
      }
      if (left <= 1) {
        return Future.failedFuture(StorageException.conflict(key, StorageException.OPTIMISTIC_LOCK));
      }
      return updateLoop(key, r.current(), pre, fn, left - 1);
    });
  }

  @Override
  public Future<StoredObject> delete(String key, Preconditions preconditions, Consumer<StoredObject> validate) {
    try {
      Keys.checkRelative(key, false);
    } catch (StorageException e) {
      return Future.failedFuture(e);
    }
    return backend.get(base, base + key).compose(kv -> deleteLoop(key, kv, preconditions, validate, MAX_ATTEMPTS));
  }

  private Future<StoredObject> deleteLoop(String key, Kv kv, Preconditions pre, Consumer<StoredObject> validate,
                                          int left) {
    if (kv == null) {
      return Future.failedFuture(StorageException.notFound(key));
    }
    StoredObject cur;
    String plain;
    try {
      plain = fromStored(kv).json();
      cur = object(kv.key(), plain, kv.modRevision());
      String failed = pre == null ? null : pre.failure(cur);
      if (failed != null) {
        throw StorageException.conflict(key, "Precondition failed: " + failed);
      }
      if (validate != null) {
        validate.accept(cur);
      }
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return backend.delete(base, kv.key(), kv.modRevision()).compose(r -> {
      if (r.succeeded()) {
        return Future.succeededFuture(object(kv.key(), plain, r.revision()));
      }
      if (left <= 1) {
        return Future.failedFuture(StorageException.conflict(key, StorageException.OPTIMISTIC_LOCK));
      }
      return deleteLoop(key, r.current(), pre, validate, left - 1);
    });
  }

  @Override
  public Future<Watch> watch(WatchOptions options, WatchListener listener) {
    try {
      Keys.checkRelative(options.keyPrefix(), true);
    } catch (StorageException e) {
      return Future.failedFuture(e);
    }
    return cache.watch(options, listener, this);
  }

  @Override
  public Future<Long> currentRevision() {
    return backend.currentRevision();
  }

  @Override
  public Future<Long> count(String keyPrefix) {
    try {
      Keys.checkRelative(keyPrefix, true);
    } catch (StorageException e) {
      return Future.failedFuture(e);
    }
    String p = base + keyPrefix;
    return backend.count(base, p, Keys.prefixEnd(p)).map(c -> c[0]);
  }

  /** @return the value stored for {@code o}: its JSON without resourceVersion and selfLink */
  static String encode(JsonObject o) {
    JsonObject meta = o.getJsonObject("metadata");
    if (meta == null || !meta.containsKey("resourceVersion") && !meta.containsKey("selfLink")) {
      return o.encode();
    }
    JsonObject c = o.copy();
    c.getJsonObject("metadata").remove("resourceVersion");
    c.getJsonObject("metadata").remove("selfLink");
    return c.encode();
  }

  /**
   * The stored value of an object.
   *
   * @param fullKey the full key (authenticated data of the encryption)
   * @param json    the object's JSON text
   * @return the backend value: the JSON text itself when stored in the clear (no transformer, or identity first),
   *     else the encrypted bytes as a byte string (one char per byte, starting {@code k8s:enc:})
   * @throws StorageException 500 when the transformer fails
   */
  String toStored(String fullKey, String json) {
    ValueTransformer transformer = this.transformer;
    if (transformer == null) {
      return json;
    }
    byte[] out;
    try {
      out = transformer.toStorage(json.getBytes(StandardCharsets.UTF_8), fullKey.getBytes(StandardCharsets.UTF_8));
    } catch (TransformException e) {
      throw StorageException.internal(fullKey, "unable to transform key \"" + fullKey + "\": " + e.getMessage());
    }
    return Kv.isEncrypted(out) ? new String(out, StandardCharsets.ISO_8859_1)
        : new String(out, StandardCharsets.UTF_8);
  }

  /**
   * A stored value read back.
   *
   * @param json  the object's JSON text
   * @param stale true when not written by the first provider (a rewrite re-encrypts it)
   */
  record Plain(String json, boolean stale) {
  }

  /**
   * @return the JSON text of {@code kv}'s value
   * @throws StorageException 500 InternalError {@code unable to transform key "<key>": <reason>} when it cannot be
   *                          decrypted (kube-apiserver's text)
   */
  Plain fromStored(Kv kv) {
    String v = kv.value();
    boolean encrypted = v.startsWith(IdentityTransformer.ENCRYPTED_PREFIX);
    ValueTransformer transformer = this.transformer;
    if (transformer == null) {
      if (encrypted) {
        throw StorageException.internal(kv.key(), "unable to transform key \"" + kv.key() + "\": "
            + IdentityTransformer.READ_ENCRYPTED);
      }
      return new Plain(v, false);
    }
    try {
      ValueTransformer.Read r = transformer.fromStorage(v.getBytes(encrypted ? StandardCharsets.ISO_8859_1
          : StandardCharsets.UTF_8), kv.key().getBytes(StandardCharsets.UTF_8));
      return new Plain(new String(r.data(), StandardCharsets.UTF_8), r.stale());
    } catch (TransformException e) {
      throw StorageException.internal(kv.key(), "unable to transform key \"" + kv.key() + "\": " + e.getMessage());
    }
  }

  /** @return the object of {@code kv} with {@code metadata.resourceVersion} = its mod revision */
  StoredObject decode(Kv kv) {
    return object(kv.key(), fromStored(kv).json(), kv.modRevision());
  }

  private StoredObject object(String fullKey, String json, long modRevision) {
    JsonObject o;
    try {
      o = new JsonObject(json);
    } catch (DecodeException e) {
      throw StorageException.internal(fullKey, "stored value of " + fullKey + " is not JSON");
    }
    JsonObject meta = o.getJsonObject("metadata");
    if (meta == null) {
      meta = new JsonObject();
      o.put("metadata", meta);
    }
    meta.put("resourceVersion", Long.toString(modRevision));
    return new StoredObject(fullKey.substring(base.length()), o, modRevision);
  }
}

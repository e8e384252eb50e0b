package io.mvproxy.builtin;

import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.security.serviceaccount.InvalidTokenException;
import io.mvproxy.security.serviceaccount.ServiceAccountGetter;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ServiceAccounts service account tokens are checked against, as kube-apiserver's token getter
 * ({@code pkg/controller/serviceaccount/tokengetter.go}): an in-memory index kept current by a storage watch, and a
 * storage read on a miss or when asked for a fresh copy (an account created a moment ago on another node).
 */
final class ServiceAccountCache implements ServiceAccountGetter {
  private final CrdApiSource accounts;
  private final Map<String, Found> byKey = new ConcurrentHashMap<>();

  /** @param accounts the serviceaccounts source; its objects are followed from now on */
  ServiceAccountCache(CrdApiSource accounts) {
    this.accounts = accounts;
    accounts.follow(this::apply);
  }

  private void apply(WatchEvent e) {
    JsonObject md = e.object().object().getJsonObject("metadata", new JsonObject());
    String key = md.getString("namespace", "") + "/" + md.getString("name", "");
    if (e.type() == WatchEvent.Type.DELETED) {
      byKey.remove(key);
    } else {
      byKey.put(key, found(e.object().object()));
    }
  }

  private static Found found(JsonObject sa) {
    JsonObject md = sa.getJsonObject("metadata", new JsonObject());
    return new Found(md.getString("uid", ""), md.getValue("deletionTimestamp") != null);
  }

  /**
   * @return the cached account (fresh: from storage); fails with {@link InvalidTokenException}
   *     {@code serviceaccounts "<name>" not found} when it is not stored
   */
  @Override
  public Future<Found> get(String namespace, String name, boolean fresh) {
    Found cached = fresh ? null : byKey.get(namespace + "/" + name);
    if (cached != null) {
      return Future.succeededFuture(cached);
    }
    return accounts.get(namespace, name).compose(o -> o == null
        ? Future.failedFuture(new InvalidTokenException("serviceaccounts \"" + name + "\" not found"))
        : Future.succeededFuture(found(o)));
  }
}

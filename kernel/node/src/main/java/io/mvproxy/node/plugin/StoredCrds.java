package io.mvproxy.node.plugin;

import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.api.storage.Watch;
import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.api.storage.WatchListener;
import io.mvproxy.api.storage.WatchOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Logger;

import static io.mvproxy.node.plugin.ApiCrdVerticle.RESYNC_MS;

/**
 * {@link ApiCrdVerticle}'s view of the stored CustomResourceDefinitions, as an informer keeps it
 * ({@code k8s.io/client-go/tools/cache}): a watch from the first listing on (re-opened 1 s after it ends), and a
 * relist every {@link ApiCrdVerticle#RESYNC_MS} whose difference from the watched state (when the list is not older)
 * is applied. Every change after the first listing calls the verticle back. Runs on the verticle's context.
 */
final class StoredCrds {
  private static final Logger LOG = Logger.getLogger(ApiCrdVerticle.class.getName());

  private final Vertx vertx;
  private final ResourceStorage store;
  private final Runnable onChange;
  private Watch watch;
  private boolean stopped;
  private final Promise<Void> synced = Promise.promise();
  /** Stored CRDs by name (this node's watch). */
  private Map<String, JsonObject> stored = new HashMap<>();
  private Map<String, JsonObject> initial;
  /** Highest revision applied from the watch or a relist. */
  private long revision;

  /**
   * @param vertx    the verticle's Vert.x (timers)
   * @param store    the CRDs' storage ({@link ApiCrdVerticle#PREFIX})
   * @param onChange called on the verticle's context after each applied change (not during the first listing)
   */
  StoredCrds(Vertx vertx, ResourceStorage store, Runnable onChange) {
    this.vertx = vertx;
    this.store = store;
    this.onChange = onChange;
  }

  /** Opens the watch and starts the periodic relist (call on the verticle's context). */
  void start() {
    startWatch();
    vertx.setPeriodic(RESYNC_MS, t -> resync());
  }

  /** Cancels the watch; no watch is opened again. */
  void stop() {
    stopped = true;
    if (watch != null) {
      watch.cancel();
    }
  }

  /** @return the stored CRDs by name as last applied (empty before the first listing); not to be modified */
  Map<String, JsonObject> stored() {
    return stored;
  }

  /** @return completes once the first listing is applied */
  Future<Void> synced() {
    return synced.future();
  }

  private void changed() {
    onChange.run();
  }

  /** Watches the stored CRDs from their first listing on; on an error or a failed watch, again 1 s later. */
  private void startWatch() {
    if (stopped) {
      return;
    }
    initial = new HashMap<>();
    store.watch(new WatchOptions("", 0, true), new WatchListener() {
      @Override
      public void onEvent(WatchEvent e) {
        try {
          apply(e);
        } catch (RuntimeException ex) {
          LOG.log(java.util.logging.Level.WARNING, "CustomResourceDefinition watch event not applied", ex);
        }
      }

      private void apply(WatchEvent e) {
        JsonObject o = e.object().object();
        String name = o.getJsonObject("metadata").getString("name");
        Map<String, JsonObject> into = initial != null ? initial : stored;
        revision = Math.max(revision, e.revision());
        if (e.type() == WatchEvent.Type.DELETED) {
          into.remove(name);
        } else {
          into.put(name, withRv(o, e.object().resourceVersion()));
        }
        if (initial == null) {
          changed();
        }
      }

      @Override
      public void onInitialEventsEnd(long revision) {
        stored = initial;
        initial = null;
        LOG.fine("stored CustomResourceDefinitions listed at revision " + revision + ": " + stored.size());
        synced.tryComplete();
        try {
          changed();
        } catch (RuntimeException ex) {
          LOG.log(java.util.logging.Level.WARNING, "CustomResourceDefinitions not applied", ex);
        }
      }

      @Override
      public void onError(StorageException error) {
        LOG.fine("CustomResourceDefinition watch ended: " + error.getMessage() + "; watching again");
        vertx.setTimer(1000, t -> startWatch());
      }
    }).onSuccess(w -> watch = w).onFailure(t -> {
      LOG.fine("CustomResourceDefinition watch failed: " + t.getMessage() + "; retrying");
      vertx.setTimer(1000, x -> startWatch());
    });
  }

  /** Lists the stored CRDs and applies what differs from the watched state (when the list is not older). */
  private void resync() {
    if (stopped || initial != null) {
      return;
    }
    store.list(ListOptions.all("")).onSuccess(page -> {
      if (initial != null || page.resourceVersion() < revision) {
        return;
      }
      Map<String, JsonObject> listed = new HashMap<>();
      for (StoredObject so : page.items()) {
        JsonObject o = so.object();
        listed.put(o.getJsonObject("metadata").getString("name"), withRv(o, so.resourceVersion()));
      }
      if (!listed.equals(stored)) {
        LOG.info("stored CustomResourceDefinitions relisted at revision " + page.resourceVersion()
            + " differ from the watched ones; applying the list");
        stored = listed;
        revision = page.resourceVersion();
        changed();
      }
    });
  }

  private static JsonObject withRv(JsonObject o, long rv) {
    JsonObject c = o.copy();
    c.getJsonObject("metadata").put("resourceVersion", Long.toString(rv));
    return c;
  }
}

package io.mvproxy.storage;

import io.mvproxy.api.storage.StorageException;
import java.util.List;

/** A running backend watch over a key range. */
public interface BackendWatch {

  /** Stops it; no listener call follows. Idempotent. */
  void cancel();

  /** Receives a backend watch's output, from any thread, one call at a time, in revision order. */
  interface Listener {
    /** @param events the next changes, in revision order */
    void onEvents(List<BackendEvent> events);

    /** @param revision a revision every change up to which was delivered (etcd progress notification) */
    void onProgress(long revision);

    /** @param error the watch ended: 410 Expired (compacted) or 503 */
    void onError(StorageException error);
  }
}

package io.mvproxy.node.audit;

import io.vertx.core.json.JsonObject;

/** An audit backend ({@code audit.Sink}): takes events without ever blocking the caller. */
public interface AuditSink extends AutoCloseable {
  /**
   * Queues one event; never blocks.
   *
   * @param event an {@code audit.k8s.io/v1} Event (not changed afterwards by the caller)
   * @return false when the event was dropped (counted in {@code apiserver_audit_error_total})
   */
  boolean process(JsonObject event);

  /** Delivers what is queued (within a few seconds) and releases the backend. */
  @Override
  void close();
}

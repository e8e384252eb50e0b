package io.mvproxy.testkit;

import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.storage.Storage;
import io.vertx.core.Vertx;

/**
 * The node services a test hands to an API source or a plugin loader (shared through the mvproxy-storage test-jar):
 * a Vert.x instance, a storage (or null when the source stores nothing) and a server ID; every other service keeps
 * {@link ApiSourceContext}'s default (none). Subclass to offer more (service resolution, proxy client key pair).
 */
public class TestSourceContext implements ApiSourceContext {
  private final Vertx vertx;
  private final Storage storage;
  private final String serverId;

  /**
   * @param vertx    the Vert.x instance the source runs on
   * @param storage  the storage it keeps objects in, or null
   * @param serverId the node's server ID
   */
  public TestSourceContext(Vertx vertx, Storage storage, String serverId) {
    this.vertx = vertx;
    this.storage = storage;
    this.serverId = serverId;
  }

  @Override
  public Vertx vertx() {
    return vertx;
  }

  /** @return the storage given at construction, or null */
  @Override
  public Storage storage() {
    return storage;
  }

  @Override
  public String serverId() {
    return serverId;
  }
}

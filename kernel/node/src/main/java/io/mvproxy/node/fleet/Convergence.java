package io.mvproxy.node.fleet;

import java.util.logging.Logger;

/**
 * The stages of fleet convergence after a node's API set changes (issue 16 item 6), logged at INFO on logger
 * {@code io.mvproxy.node.fleet.Convergence} as {@code convergence <stage> origin=<serverId> etag=<etag>
 * at=<epoch ms>}, so a benchmark or test can break a plugin drop's way into every peer's merged discovery down
 * by stage from the nodes' logs (the processes share a clock on one machine):
 * <ol>
 *   <li>{@code file-event}: the plugin folder's watch reported a change (origin node);</li>
 *   <li>{@code applied}: a new jar is loaded and installed, or a removed one withdrawn: the local API set changed (origin node);</li>
 *   <li>{@code announced}: the new local discovery ETag is published to the fleet (origin node);</li>
 *   <li>{@code announce-received}: a peer got the announcement (each peer);</li>
 *   <li>{@code fetched}: the peer fetched the origin's local discovery (each peer);</li>
 *   <li>{@code merged}: the peer's merged view with it is published (each peer).</li>
 * </ol>
 */
public final class Convergence {
  private static final Logger LOG = Logger.getLogger(Convergence.class.getName());

  private Convergence() {
  }

  /**
   * Logs one stage.
   *
   * @param stage  one of the stage names above
   * @param origin the server ID of the node whose API set changed ({@code "-"} when not known at this stage)
   * @param etag   the origin's local discovery ETag ({@code "-"} when not known yet)
   */
  public static void stage(String stage, String origin, String etag) {
    LOG.info("convergence " + stage + " origin=" + origin + " etag=" + etag + " at=" + System.currentTimeMillis());
  }
}

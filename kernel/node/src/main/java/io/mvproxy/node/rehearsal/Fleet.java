package io.mvproxy.node.rehearsal;

import io.mvproxy.security.DevPki;
import java.io.IOException;
import java.util.List;

/**
 * What the rehearsal does to a fleet: its nodes (name, HTTPS URL reachable from this machine, plugin set), the PKI
 * its clients use (admin certificate, CA, kubeconfig with one context per node), and per node: swap the plugin set,
 * start, wait for the start, stop gracefully (SIGTERM). {@link RehearsalFleet} runs local node processes,
 * {@link ComposeFleet} the containers of the repository's {@code docker-compose.yml}.
 */
interface Fleet extends AutoCloseable {
  /** @return the PKI (admin client certificate, CA, kubeconfig) */
  DevPki pki();

  /** @return the nodes in declaration order */
  List<RehearsalFleet.NodeProcess> nodes();

  /**
   * Replaces the jars in a node's plugin folder with another set (only while the node is stopped).
   *
   * @param n   the node
   * @param set the set
   * @throws IOException on file errors
   */
  void install(RehearsalFleet.NodeProcess n, RehearsalFleet.PluginSet set) throws IOException;

  /**
   * Starts a node (returns at once).
   *
   * @param n the node
   * @throws IOException when it cannot be started
   */
  void start(RehearsalFleet.NodeProcess n) throws IOException;

  /**
   * Waits until the node logged that it is ready.
   *
   * @param n         the node
   * @param timeoutMs longest wait, ms
   * @throws IllegalStateException naming its log when it exits or the wait times out
   */
  void awaitStarted(RehearsalFleet.NodeProcess n, long timeoutMs) throws IOException, InterruptedException;

  /**
   * SIGTERM and wait for the exit (SIGKILL after 30 s).
   *
   * @param n the node
   * @return its exit code
   */
  int stop(RehearsalFleet.NodeProcess n) throws InterruptedException;

  /** Stops every node and whatever the fleet started for them. */
  @Override
  void close();
}

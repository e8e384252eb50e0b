package io.mvproxy.node.rehearsal;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of one rehearsal.
 *
 * @param dir             scratch folder (PKI, configs, plugin folders, node logs of each run)
 * @param home            the mvproxy checkout holding {@code plugins/examples}
 * @param soak            traffic time before the first upgrade, after each node's upgrade and after the last
 * @param namespacePeriod time between two namespaces created and deleted
 * @param drain           longest wait after the traffic for deleted namespaces and collected dependents
 * @param startTimeout    longest wait for a node to be ready (also for the last soak's minimum traffic)
 * @param nodeHeap        {@code -Xmx} of each node
 * @param upgrades        how many nodes are upgraded, one at a time in {@link Rehearsal#NODES} order (1..3; 3: the
 *                        whole rolling upgrade; fewer leave the fleet mixed until the end, the old nodes taken out
 *                        of the load balancer only for the end-of-run checks)
 * @param minPairs        owner/dependent pairs the traffic must have created before it stops (the last soak lasts
 *                        until then, at most {@code startTimeout})
 * @param seed            seed of every random choice of a run (the ports tried, which live owner a read asks for):
 *                        each run (gate on, gate off) draws from its own {@code new Random(seed)}, so both runs and a
 *                        repeated run make the same choices; timing (and so what the choices meet) still varies
 * @param storage         the nodes' storage: {@code memory} (the fleet's own, Hazelcast) or {@code etcd} (each run
 *                        starts its own local etcd on free loopback ports with an empty data folder, stopped at the
 *                        end, and the nodes run with {@code --storage-backend=etcd3})
 * @param compose         true: the fleet is the repository's {@code docker-compose.yml} (its containers, its etcd
 *                        members; {@link ComposeFleet}), storage {@code etcd}; false: local node processes
 */
public record RehearsalSettings(Path dir, Path home, Duration soak, Duration namespacePeriod, Duration drain,
                                Duration startTimeout, String nodeHeap, int upgrades, int minPairs, long seed,
                                String storage, boolean compose) {
  /** The storage names {@link #storage} takes. */
  public static final java.util.List<String> STORAGES = java.util.List.of("memory", "etcd");

  /** Validates the counts and the storage name. */
  public RehearsalSettings {
    if (compose && !"etcd".equals(storage)) {
      throw new IllegalArgumentException("the compose fleet runs on etcd, not " + storage);
    }
    if (!STORAGES.contains(storage)) {
      throw new IllegalArgumentException("storage must be memory or etcd: " + storage);
    }
    if (upgrades < 1 || upgrades > Rehearsal.NODES.size()) {
      throw new IllegalArgumentException("upgrades must be 1.." + Rehearsal.NODES.size() + ": " + upgrades);
    }
    if (minPairs < 0) {
      throw new IllegalArgumentException("minPairs must be >= 0: " + minPairs);
    }
  }

  /**
   * @param dir  scratch folder
   * @param home checkout
   * @return the CI settings (a fresh seed, see {@link #newSeed}): 2 of the 3 nodes upgraded (the fleet stays mixed to the end), 4 s soaks, a namespace
   *     every 2 s, at least 4 pairs, 40 s drain, a start-up limit of 300 s (a loaded 2-core machine), 384 MiB heaps
   */
  public static RehearsalSettings shortRun(Path dir, Path home) {
    return shortRun(dir, home, "memory");
  }

  /**
   * @param dir     scratch folder
   * @param home    checkout
   * @param storage {@code memory} or {@code etcd}
   * @return the CI settings of {@link #shortRun(Path, Path)} on that storage
   */
  public static RehearsalSettings shortRun(Path dir, Path home, String storage) {
    return new RehearsalSettings(dir, home, Duration.ofSeconds(4), Duration.ofSeconds(2), Duration.ofSeconds(40),
        Duration.ofSeconds(300), "384m", 2, 4, newSeed(), storage, false);
  }

  /** @return a seed for a run given none (from {@link java.security.SecureRandom}) */
  public static long newSeed() {
    return new java.security.SecureRandom().nextLong();
  }
}

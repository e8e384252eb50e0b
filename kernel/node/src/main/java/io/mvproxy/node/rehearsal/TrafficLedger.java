package io.mvproxy.node.rehearsal;

import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

import static io.mvproxy.node.rehearsal.Traffic.CORE;
import static io.mvproxy.node.rehearsal.Traffic.SPROCKETS;
import static io.mvproxy.node.rehearsal.Traffic.W1;

/**
 * What the rehearsal's {@link Traffic} leaves to count and check: every answer by {@link Outcome} (false 404s by
 * resource), the watch events, the churned namespaces and the owner/dependent pairs; the checks run beside the traffic
 * (a deleted namespace gone, a deleted owner's dependent collected, noted in the {@link Journal}) and the end-of-run
 * checks that make the {@link RunReport}.
 */
final class TrafficLedger {
  /** A namespace of the churn: its name, when its delete was accepted and when it was seen gone (nanoTime). */
  static final class Churned {
    final String name;
    volatile long deletedAt;
    volatile long goneAt;

    Churned(String name) {
      this.name = name;
    }
  }

  /** An owner and its dependent (paths), whether the owner is deleted, and when (nanoTime). */
  static final class Pair {
    final String ownerPath;
    final String ownerResource;
    final String dependentPath;
    final boolean deleteOwner;
    volatile long ownerDeletedAt;
    volatile long dependentGoneAt;

    Pair(String ownerPath, String ownerResource, String dependentPath, boolean deleteOwner) {
      this.ownerPath = ownerPath;
      this.ownerResource = ownerResource;
      this.dependentPath = dependentPath;
      this.deleteOwner = deleteOwner;
    }
  }

  private final FleetClient client;
  private final Journal journal;
  private final Map<Outcome, LongAdder> outcomes = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> falseByResource = new ConcurrentHashMap<>();
  /** Watch events seen (lines of the watch streams, kubectl's watch lines). */
  final LongAdder watchEvents = new LongAdder();
  private final LongAdder inconsistent = new LongAdder();
  /** The churned namespaces, in creation order. */
  final List<Churned> namespaces = new CopyOnWriteArrayList<>();
  /** The owner/dependent pairs, in creation order. */
  final List<Pair> pairs = new CopyOnWriteArrayList<>();

  /**
   * @param client the load balancer (the checks' reads)
   * @param journal the run's journal
   */
  TrafficLedger(FleetClient client, Journal journal) {
    this.client = client;
    this.journal = journal;
  }

  /** Counts one answer. @param resource its resource @param o its outcome */
  void count(String resource, Outcome o) {
    outcomes.computeIfAbsent(o, k -> new LongAdder()).increment();
    if (o == Outcome.FALSE_404) {
      falseByResource.computeIfAbsent(resource, k -> new LongAdder()).increment();
    }
  }

  /** @return true when every deleted namespace is gone and every deleted owner's dependent too */
  boolean drained() {
    return namespaces.stream().allMatch(n -> n.deletedAt == 0 || n.goneAt > 0)
        && pairs.stream().allMatch(p -> p.ownerDeletedAt == 0 || p.dependentGoneAt > 0);
  }

  /** @return one round of the namespace check: a deleted namespace answered 404 is noted gone */
  Future<?> checkNamespaces() {
    List<Future<?>> fs = new ArrayList<>();
    for (Churned ns : namespaces) {
      if (ns.deletedAt > 0 && ns.goneAt == 0) {
        fs.add(client.send(HttpMethod.GET, "/api/v1/namespaces/" + ns.name, null, null).map(a -> {
          if (a.status() == 404) {
            ns.goneAt = System.nanoTime();
            journal.mark(Journal.MarkKind.NAMESPACE_GONE, ns.name, a.node());
          }
          return null;
        }));
      }
    }
    return Future.join(fs);
  }

  /** @return one round of the pair check: a deleted owner's dependent answered 404 is noted collected */
  Future<?> checkPairs() {
    List<Future<?>> fs = new ArrayList<>();
    for (Pair p : pairs) {
      if (p.ownerDeletedAt > 0 && p.dependentGoneAt == 0) {
        fs.add(client.send(HttpMethod.GET, p.dependentPath, null, null).map(a -> {
          if (a.status() == 404) {
            p.dependentGoneAt = System.nanoTime();
            journal.mark(Journal.MarkKind.DEPENDENT_COLLECTED, p.dependentPath, a.node());
          }
          return null;
        }));
      }
    }
    return Future.join(fs);
  }

  /**
   * The end-of-run checks, through a fleet where every node serves every API: live owners' dependents still there,
   * finished namespaces empty.
   *
   * @param gate      the run's gate
   * @param seconds   run length
   * @param upgradeMs each node's upgrade time
   * @return the report
   */
  Future<RunReport> report(boolean gate, long seconds, List<Long> upgradeMs) {
    List<Future<Integer>> wrong = new ArrayList<>();
    List<String> wrongPaths = new CopyOnWriteArrayList<>();
    List<String> contentLeft = new CopyOnWriteArrayList<>();
    for (Pair p : pairs) {
      if (!p.deleteOwner) {
        wrong.add(client.send(HttpMethod.GET, p.ownerPath, null, null).compose(o -> !o.ok()
            ? Future.succeededFuture(0) : gone(p.dependentPath)).map(n -> {
              if (n > 0) {
                wrongPaths.add(p.dependentPath + " (owner " + p.ownerPath + " alive)");
              }
              return n;
            }));
      }
    }
    List<Future<Integer>> left = new ArrayList<>();
    for (Churned ns : namespaces) {
      if (ns.goneAt > 0) {
        List<Future<Integer>> counts = new ArrayList<>();
        for (String coll : List.of(W1 + ns.name + "/widgets", CORE + ns.name + "/configmaps",
            SPROCKETS + ns.name + "/sprockets")) {
          counts.add(client.send(HttpMethod.GET, coll, null, null).map(a -> a.ok()
              ? a.body().getJsonArray("items", new JsonArray()).size() : 0));
        }
        left.add(Future.all(counts).map(cf -> {
          int n = counts.stream().mapToInt(Future::result).sum();
          if (n > 0) {
            contentLeft.add(ns.name + " (" + n + " objects left)");
          }
          return n;
        }));
      }
    }
    return Future.all(wrong).compose(w -> Future.all(left)).map(v -> {
      Map<Outcome, Long> req = new EnumMap<>(Outcome.class);
      outcomes.forEach((k, n) -> req.put(k, n.sum()));
      Map<String, Long> fb = new java.util.TreeMap<>();
      falseByResource.forEach((k, n) -> fb.put(k, n.sum()));
      int wronglyCollected = wrong.stream().mapToInt(Future::result).sum();
      int withContent = (int) left.stream().filter(f -> f.result() > 0).count();
      int objectsLeft = left.stream().mapToInt(Future::result).sum();
      List<Long> gc = pairs.stream().filter(p -> p.dependentGoneAt > 0)
          .map(p -> (p.dependentGoneAt - p.ownerDeletedAt) / 1_000_000).sorted().toList();
      List<Long> nsMs = namespaces.stream().filter(n -> n.goneAt > 0)
          .map(n -> (n.goneAt - n.deletedAt) / 1_000_000).sorted().toList();
      int deleted = (int) namespaces.stream().filter(n -> n.deletedAt > 0).count();
      int finished = (int) namespaces.stream().filter(n -> n.goneAt > 0).count();
      return new RunReport(gate, seconds, req, fb, watchEvents.sum(), pairs.size(), wronglyCollected,
          (int) inconsistent.sum(),
          (int) pairs.stream().filter(p -> p.ownerDeletedAt > 0).count(), gc.size(), median(gc), deleted, finished,
          withContent, objectsLeft, deleted - finished, median(nsMs), upgradeMs, journal, List.copyOf(wrongPaths),
          List.copyOf(contentLeft));
    });
  }

  /** @return 1 when every node in rotation answers 404 for the path, else 0 (a disagreement is counted) */
  private Future<Integer> gone(String path) {
    List<Future<FleetClient.Answer>> reads = new ArrayList<>();
    for (String node : client.rotation()) {
      reads.add(client.sendTo(node, HttpMethod.GET, path, null, null));
    }
    return Future.all(reads).map(cf -> {
      long missing = reads.stream().filter(f -> f.result().status() == 404).count();
      if (missing > 0 && missing < reads.size()) {
        inconsistent.increment();
      }
      return missing == reads.size() ? 1 : 0;
    });
  }

  private static long median(List<Long> sorted) {
    return sorted.isEmpty() ? -1 : sorted.get(sorted.size() / 2);
  }
}

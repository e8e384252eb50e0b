package io.mvproxy.node.rehearsal;

import java.util.EnumMap;
import java.util.Map;

/**
 * What one run of the rehearsal measured.
 *
 * @param gate                  {@code UnknownVersionInteroperabilityProxy}
 * @param seconds               length of the run (traffic start to end of the checks), s
 * @param requests              client requests by outcome (reads, writes, watch opens, namespace and pair steps)
 * @param falseByResource       false 404s by resource ({@code resource.group/version})
 * @param watchEvents           watch events received
 * @param pairs                 owner/dependent pairs created (owner of a new-only API or version, dependent served
 *                              by every node)
 * @param wronglyCollected      dependents of owners that still exist that every node answers 404 for
 * @param inconsistentReads     dependents the nodes disagree about at the end (some 404, some not)
 * @param ownersDeleted         owners deleted on purpose (background)
 * @param dependentsCollected   their dependents the garbage collector removed in time
 * @param gcMedianMs            median time from an owner's deletion to its dependent's 404, ms (-1: none)
 * @param namespaces            namespaces created and deleted
 * @param namespacesFinished    of those, gone by the end
 * @param namespacesWithContent of the finished ones, those with objects still stored in them
 * @param objectsLeft           objects left in finished namespaces
 * @param namespacesStuck       not gone by the end of the drain
 * @param namespaceMedianMs     median time from a namespace's DELETE to its 404, ms (-1: none)
 * @param upgradeMs             time of each node's upgrade (stop, new jars, start, ready), ms
 * @param journal               what the run did and saw, for the HTML report ({@link HtmlReport})
 * @param wronglyCollectedPaths the dependents wrongly collected (path and owner)
 * @param namespacesLeftFull    the finished namespaces with content (name and count)
 */
public record RunReport(boolean gate, long seconds, Map<Outcome, Long> requests, Map<String, Long> falseByResource,
                        long watchEvents, int pairs, int wronglyCollected, int inconsistentReads, int ownersDeleted,
                        int dependentsCollected, long gcMedianMs, int namespaces, int namespacesFinished,
                        int namespacesWithContent, int objectsLeft, int namespacesStuck, long namespaceMedianMs,
                        java.util.List<Long> upgradeMs, Journal journal,
                        java.util.List<String> wronglyCollectedPaths, java.util.List<String> namespacesLeftFull) {
  /** Copies. */
  public RunReport {
    EnumMap<Outcome, Long> r = new EnumMap<>(Outcome.class);
    for (Outcome o : Outcome.values()) {
      r.put(o, requests.getOrDefault(o, 0L));
    }
    requests = java.util.Collections.unmodifiableMap(r);
    falseByResource = Map.copyOf(falseByResource);
    upgradeMs = java.util.List.copyOf(upgradeMs);
    wronglyCollectedPaths = java.util.List.copyOf(wronglyCollectedPaths);
    namespacesLeftFull = java.util.List.copyOf(namespacesLeftFull);
  }

  /**
   * What makes a gate-on run fail ({@code bin/mvproxy rehearse} exits 1): any false 404, any 404 naming an object
   * (every object the traffic addresses exists: it created it and has not deleted it), any dependent of a live owner
   * collected, any namespace finished with content left.
   *
   * @return one line per failed check, empty when the run passed
   */
  public java.util.List<String> failures() {
    java.util.List<String> f = new java.util.ArrayList<>();
    if (false404s() > 0) {
      f.add(false404s() + " false 404s " + falseByResource);
    }
    if (requests.get(Outcome.OBJECT_NOT_FOUND) > 0) {
      f.add(requests.get(Outcome.OBJECT_NOT_FOUND) + " 404s naming an existing object");
    }
    if (wronglyCollected > 0) {
      f.add(wronglyCollected + " dependents of live owners garbage-collected " + wronglyCollectedPaths);
    }
    if (namespacesWithContent > 0) {
      f.add(namespacesWithContent + " namespaces finished with content left " + namespacesLeftFull);
    }
    return f;
  }

  /**
   * @return the non-2xx answers to which {@link Causes} names no cause (each listed, with the facts, in the HTML
   *     report); 0 when the run kept no journal
   */
  public long unexplained() {
    if (journal() == null) {
      return 0;
    }
    Causes causes = new Causes(journal());
    return journal().requests().stream().filter(q -> q.outcome() != Outcome.OK)
        .filter(q -> !causes.of(q).explained()).count();
  }

  /** @return the number of false 404s */
  public long false404s() {
    return requests.get(Outcome.FALSE_404);
  }

  /** @return every request counted */
  public long total() {
    return requests.values().stream().mapToLong(Long::longValue).sum();
  }
}

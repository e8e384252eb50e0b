package io.mvproxy.discovery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;

/**
 * Merges several ordered lists into one that keeps their relative orders (discovery.md section 5; apimachinery
 * {@code pkg/util/sort/sort.go}, {@code MergePreservingRelativeOrder}, as used by the apiserver's
 * {@code peer_aggregated_handler.go}).
 *
 * <ol>
 *   <li>If one list already holds every distinct item exactly once, that list is returned (the first such).</li>
 *   <li>Otherwise a precedence graph is built from neighbouring items of every list and topologically sorted,
 *       always taking the lexicographically smallest available item next.</li>
 *   <li>If the graph has a cycle, all distinct items are returned in lexicographic order.</li>
 * </ol>
 * The result only depends on the lists' contents and order, never on hashing, so every node computes the same one.
 */
public final class OrderPreservingMerge {
  private OrderPreservingMerge() {
  }

  /**
   * @param lists ordered lists of items (none null); may be empty
   * @return a new list holding every distinct item once, in an order compatible with the inputs where possible
   */
  public static List<String> merge(List<List<String>> lists) {
    Set<String> all = new LinkedHashSet<>();
    for (List<String> l : lists) {
      all.addAll(l);
    }
    for (List<String> l : lists) {
      if (l.size() == all.size() && new LinkedHashSet<>(l).size() == all.size()) {
        return new ArrayList<>(l);
      }
    }
    Map<String, List<String>> edges = new HashMap<>();
    Map<String, Integer> indegree = new HashMap<>();
    for (String item : all) {
      indegree.put(item, 0);
    }
    for (List<String> l : lists) {
      for (int i = 1; i < l.size(); i++) {
        edges.computeIfAbsent(l.get(i - 1), k -> new ArrayList<>()).add(l.get(i));
        indegree.merge(l.get(i), 1, Integer::sum);
      }
    }
    PriorityQueue<String> ready = new PriorityQueue<>();
    for (Map.Entry<String, Integer> e : indegree.entrySet()) {
      if (e.getValue() == 0) {
        ready.add(e.getKey());
      }
    }
    List<String> out = new ArrayList<>(all.size());
    while (!ready.isEmpty()) {
      String next = ready.poll();
      out.add(next);
      for (String to : edges.getOrDefault(next, List.of())) {
        if (indegree.merge(to, -1, Integer::sum) == 0) {
          ready.add(to);
        }
      }
    }
    if (out.size() != all.size()) {
      return new ArrayList<>(new TreeSet<>(all));
    }
    return out;
  }
}

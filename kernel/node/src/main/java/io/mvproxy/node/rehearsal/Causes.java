package io.mvproxy.node.rehearsal;

import io.mvproxy.node.rehearsal.Journal.NodeEvent;
import io.mvproxy.node.rehearsal.Journal.NodeKind;
import io.mvproxy.node.rehearsal.Journal.Request;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The cause the rehearsal attributes to each non-2xx answer of a run, from its {@link Journal} alone (what the
 * client saw and when each node started, was ready, left the load balancer, got SIGTERM; no node logs). A cause is
 * <b>explained</b> when the data shows the answer is the right one:
 * <ul>
 *   <li>a 404 for an API no node served yet (before the first node on the new plugin set was ready);</li>
 *   <li>with the gate off, a false 404: the answering node lacks the API and does not proxy;</li>
 *   <li>a 503 inside a named {@link Window}: a <i>restart</i> of a node (SIGTERM to {@code /readyz} 200) while no
 *   live node serves the API, or a node <i>learning</i> a peer (from the peer's {@code /readyz} 200 to the node's
 *   first 2xx for the new APIs after it: measured, so the report shows how long each window lasts, at most; a
 *   window that never closes explains nothing);</li>
 *   <li>no answer from a node that got SIGTERM while the request was in flight;</li>
 *   <li>a 403 for a create in a namespace whose DELETE was accepted before.</li>
 * </ul>
 * Everything else is <b>unexplained</b>, with the facts the journal holds (the answering node's state, the object's
 * creation and the Status message): a gate-on false 404 and a 404 naming an object the traffic created and has not
 * deleted are always unexplained.
 */
public final class Causes {
  /**
   * A cause.
   *
   * @param explained true when the data shows the answer is right (see the class comment)
   * @param window    the name of the window it falls in, or empty
   * @param text      what happened, as precisely as the journal tells
   */
  public record Cause(boolean explained, String window, String text) {
  }

  /**
   * A named time window in which a 503 is right.
   *
   * @param name   {@code W1}, {@code W2}, ...
   * @param what   e.g. {@code node-a restart} or {@code node-b learning node-a}
   * @param fromMs start, ms since the run's start
   * @param toMs   end, ms since the run's start (-1: never closed)
   */
  public record Window(String name, String what, long fromMs, long toMs) {
    /** @return its length, ms (-1 when never closed) */
    public long lengthMs() {
      return toMs < 0 ? -1 : toMs - fromMs;
    }

    boolean contains(long t) {
      return t >= fromMs && (toMs < 0 || t <= toMs);
    }
  }

  private final Journal journal;
  private final List<NodeEvent> events;
  private final List<Request> requests;
  private final List<Window> windows = new ArrayList<>();
  private final Map<String, Window> restarts = new LinkedHashMap<>();
  private final Map<String, Window> learning = new LinkedHashMap<>();

  /** @param journal a finished run's journal */
  public Causes(Journal journal) {
    this.journal = journal;
    this.events = journal.nodeEvents();
    this.requests = journal.requests();
    buildWindows();
  }

  /** @return the named windows, in time order */
  public List<Window> windows() {
    return List.copyOf(windows);
  }

  private void buildWindows() {
    int n = 0;
    List<Window> found = new ArrayList<>();
    for (NodeEvent e : events) {
      if (e.kind() == NodeKind.SIGTERM) {
        long ready = events.stream().filter(x -> x.node().equals(e.node()) && x.kind() == NodeKind.READY
            && x.atMs() >= e.atMs()).mapToLong(NodeEvent::atMs).findFirst().orElse(-1);
        found.add(new Window("", e.node() + " restart (SIGTERM to /readyz 200)", e.atMs(), ready));
      }
    }
    for (NodeEvent e : events) {
      if (e.kind() != NodeKind.READY || !"new".equals(e.pluginSet())) {
        continue;
      }
      for (String y : journal.nodes()) {
        if (y.equals(e.node())) {
          continue;
        }
        long learnt = requests.stream().filter(r -> r.node().equals(y) && r.newResource() && r.atMs() >= e.atMs()
            && r.status() >= 200 && r.status() < 300).mapToLong(Request::atMs).findFirst().orElse(-1);
        found.add(new Window("", y + " learning that " + e.node() + " serves the new APIs (" + e.node()
            + " /readyz 200 to " + y + "'s first 2xx for them)", e.atMs(), learnt));
      }
    }
    found.sort(java.util.Comparator.comparingLong(Window::fromMs));
    for (Window w : found) {
      Window named = new Window("W" + (++n), w.what(), w.fromMs(), w.toMs());
      windows.add(named);
      if (w.what().contains(" restart ")) {
        restarts.put(named.name(), named);
      } else {
        learning.put(named.name(), named);
      }
    }
  }

  /**
   * @param node a node
   * @param t    ms since the run's start
   * @return its last event at or before t, if any
   */
  private Optional<NodeEvent> last(String node, long t) {
    NodeEvent found = null;
    for (NodeEvent e : events) {
      if (e.atMs() > t) {
        break;
      }
      if (e.node().equals(node)) {
        found = e;
      }
    }
    return Optional.ofNullable(found);
  }

  /** @return whether the node is ready (READY seen since its last start, no SIGTERM since) at t */
  private boolean ready(String node, long t) {
    boolean ready = false;
    for (NodeEvent e : events) {
      if (e.atMs() > t) {
        break;
      }
      if (e.node().equals(node)) {
        switch (e.kind()) {
          case READY -> ready = true;
          case STARTED, SIGTERM, EXITED -> ready = false;
          default -> {
          }
        }
      }
    }
    return ready;
  }

  /** @return the nodes ready at t that serve the resource kind (new-only or served by every set) */
  private List<String> servers(boolean newResource, long t) {
    List<String> s = new ArrayList<>();
    for (String n : journal.nodes()) {
      if (ready(n, t) && (!newResource || last(n, t).map(e -> "new".equals(e.pluginSet())).orElse(false))) {
        s.add(n);
      }
    }
    return s;
  }

  private String state(String node, long t) {
    return last(node, t).map(e -> node + " (" + e.pluginSet() + " set; " + e.kind().name().toLowerCase(Locale.ROOT)
        .replace('_', ' ') + " at " + sec(e.atMs()) + ")").orElse(node);
  }

  private static String sec(long ms) {
    return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
  }

  /**
   * @param r a counted non-2xx request of the journal
   * @return its cause
   */
  public Cause of(Request r) {
    String msg = r.message().isEmpty() ? "" : " Message: \"" + r.message() + "\"";
    long t = r.atMs();
    switch (r.outcome()) {
      case OK:
        return new Cause(true, "", "");
      case NOT_SERVED_YET: {
        long first = events.stream().filter(e -> e.kind() == NodeKind.READY && "new".equals(e.pluginSet()))
            .mapToLong(NodeEvent::atMs).findFirst().orElse(-1);
        return new Cause(true, "", "true 404: no node served " + r.resource() + " yet"
            + (first >= 0 ? " (the first node on the new set was ready at " + sec(first) + ")" : ""));
      }
      case FALSE_404: {
        List<String> s = servers(r.newResource(), t);
        String facts = state(r.node(), t) + " lacks " + r.resource() + "; served then by " + (s.isEmpty() ? "no "
            + "ready node (it was served before)" : String.join(", ", s));
        return journal.gate()
            ? new Cause(false, "", "unexplained with the gate on: " + facts + "; the answering node should have "
                + "proxied or answered 503." + msg)
            : new Cause(true, "", facts + "; gate off: no Mixed Version Proxy, the node answers its own 404");
      }
      case UNAVAILABLE:
        return unavailable(r, t, msg);
      case OBJECT_NOT_FOUND:
        return objectNotFound(r, t, msg);
      case NO_ANSWER: {
        Optional<NodeEvent> term = events.stream().filter(e -> e.node().equals(r.node())
            && e.kind() == NodeKind.SIGTERM && e.atMs() >= t - 1000 && e.atMs() <= t + r.tookMs()).findFirst();
        if (term.isPresent()) {
          return new Cause(true, restartAt(r.node(), term.get().atMs()), r.node() + " got SIGTERM at "
              + sec(term.get().atMs()) + " while the request was in flight (sent at " + sec(t) + ")." + msg);
        }
        return new Cause(false, "", "unexplained: no answer from " + state(r.node(), t) + "." + msg);
      }
      case FORBIDDEN: {
        String ns = namespaceOf(r.path());
        Optional<Journal.Mark> del = journal.marks().stream().filter(m -> m.kind()
            == Journal.MarkKind.NAMESPACE_DELETED && m.subject().equals(ns) && m.atMs() <= t).findFirst();
        if (del.isPresent()) {
          return new Cause(true, "", "namespace " + ns + " is being terminated (its DELETE accepted at "
              + sec(del.get().atMs()) + ")." + msg);
        }
        return new Cause(false, "", "unexplained 403 from " + state(r.node(), t) + "." + msg);
      }
      default:
        return new Cause(false, "", "unexplained " + r.status() + " " + r.reason() + " from " + state(r.node(), t)
            + "." + msg);
    }
  }

  private String restartAt(String node, long t) {
    return restarts.values().stream().filter(w -> w.what().startsWith(node + " ") && w.contains(t))
        .map(Window::name).findFirst().orElse("");
  }

  private Cause unavailable(Request r, long t, String msg) {
    List<String> s = servers(r.newResource(), t);
    if (s.contains(r.node())) {
      return new Cause(false, "", "unexplained: " + state(r.node(), t) + " serves " + r.resource()
          + " itself." + msg);
    }
    if (s.isEmpty()) {
      Optional<Window> w = restarts.values().stream().filter(x -> x.contains(t)).findFirst();
      if (w.isPresent()) {
        return new Cause(true, w.get().name(), "no live node serves " + r.resource() + " during "
            + w.get().what() + " (" + sec(w.get().fromMs()) + " to " + (w.get().toMs() < 0 ? "the end"
            : sec(w.get().toMs())) + "): retry." + msg);
      }
      return new Cause(false, "", "unexplained: no ready node serves " + r.resource() + " and no node is "
          + "restarting (404 expected)." + msg);
    }
    for (String x : s) {
      // a window never closed (no 2xx for the new APIs from that node afterwards) explains nothing
      Optional<Window> w = learning.values().stream().filter(l -> l.what().startsWith(r.node() + " learning that "
          + x + " ") && l.toMs() >= 0 && l.contains(t)).findFirst();
      if (w.isPresent()) {
        return new Cause(true, w.get().name(), r.node() + " had not yet learnt that " + x + " serves "
            + r.resource() + " (" + x + " ready at " + sec(w.get().fromMs()) + "; " + r.node() + "'s first 2xx for "
            + "the new APIs at " + (w.get().toMs() < 0 ? "never" : sec(w.get().toMs())) + ")." + msg);
      }
    }
    return new Cause(false, "", "unexplained: " + state(r.node(), t) + " answered 503 while " + String.join(", ", s)
        + " served " + r.resource() + " and it had answered 2xx for the new APIs since." + msg);
  }

  private Cause objectNotFound(Request r, long t, String msg) {
    String named = r.namedKind() + " \"" + r.namedName() + "\"";
    if ("namespaces".equals(r.namedKind())) {
      List<Journal.Mark> marks = journal.marks().stream().filter(m -> m.subject().equals(r.namedName())).toList();
      Optional<Journal.Mark> created = marks.stream().filter(m -> m.kind() == Journal.MarkKind.NAMESPACE_CREATED)
          .findFirst();
      Optional<Journal.Mark> deleted = marks.stream().filter(m -> m.kind() == Journal.MarkKind.NAMESPACE_DELETED
          && m.atMs() <= t).findFirst();
      if (deleted.isPresent()) {
        return new Cause(true, "", "namespace " + r.namedName() + " was deleted at " + sec(deleted.get().atMs())
            + "." + msg);
      }
      if (created.isPresent()) {
        Journal.Mark c = created.get();
        String node = state(r.node(), t);
        boolean restartedSince = events.stream().anyMatch(e -> e.node().equals(r.node())
            && e.kind() == NodeKind.READY && e.atMs() >= c.atMs() - 5000 && e.atMs() <= t);
        return new Cause(false, "", "unexplained: " + r.method() + " answered NotFound for " + named + " by "
            + node + ", " + (t - c.atMs()) + " ms after the namespace was created through " + c.node()
            + (c.node().equals(r.node()) ? " (the same node)" : " (another node: the answering node's view of "
            + "namespaces may have trailed that write)")
            + (restartedSince ? "; " + r.node() + " had become ready shortly before" : "") + "." + msg);
      }
    }
    return new Cause(false, "", "unexplained: " + r.method() + " answered NotFound for " + named + ", which the "
        + "traffic created and has not deleted, by " + state(r.node(), t) + "." + msg);
  }

  private static String namespaceOf(String path) {
    int i = path.indexOf("/namespaces/");
    if (i < 0) {
      return "";
    }
    String rest = path.substring(i + "/namespaces/".length());
    int j = rest.indexOf('/');
    return j < 0 ? rest : rest.substring(0, j);
  }
}

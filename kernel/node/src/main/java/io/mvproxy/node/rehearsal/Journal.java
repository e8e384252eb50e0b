package io.mvproxy.node.rehearsal;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Everything one rehearsal run did and saw, timed from the run's start (before the first node starts): the nodes'
 * life (process started, {@code /readyz} 200, in and out of the load balancer, SIGTERM, exit, plugin set), every
 * counted client request with its answer, and the namespace and garbage-collection events. {@link Causes} explains
 * the non-2xx answers from it and {@link HtmlReport} draws it. Thread-safe (appended from the Vert.x event loops and
 * the rehearsal's thread).
 */
public final class Journal {
  /** What happened to a node. */
  public enum NodeKind {
    /** Its JVM was started (on the plugin set named by the event). */
    STARTED,
    /** {@code /readyz} answered 200. */
    READY,
    /** Put in the load balancer's rotation. */
    IN_ROTATION,
    /** Taken out of the rotation. */
    OUT_OF_ROTATION,
    /** SIGTERM sent. */
    SIGTERM,
    /** The process exited (its plugin folder may then be changed). */
    EXITED
  }

  /**
   * One node event.
   *
   * @param atMs      time since the run's start, ms
   * @param node      node name
   * @param kind      what happened
   * @param pluginSet label of the plugin set in its folder then ({@code old}, {@code new})
   */
  public record NodeEvent(long atMs, String node, NodeKind kind, String pluginSet) {
  }

  /** A namespace or garbage-collection event. */
  public enum MarkKind {
    /** A churn namespace was created (subject: its name). */
    NAMESPACE_CREATED("namespace created"),
    /** Its DELETE answered 2xx. */
    NAMESPACE_DELETED("namespace DELETE accepted"),
    /** It answered 404 (the namespace controller finished it). */
    NAMESPACE_GONE("namespace gone"),
    /** An owner of a pair was created (subject: its path). */
    OWNER_CREATED("owner created"),
    /** An owner was deleted on purpose (background). */
    OWNER_DELETED("owner deleted"),
    /** Its dependent answered 404 (the garbage collector removed it). */
    DEPENDENT_COLLECTED("dependent collected"),
    /** Every node in rotation asked once for each new API. */
    PROBE("probe of the new APIs");

    private final String label;

    MarkKind(String label) {
      this.label = label;
    }

    /** @return the legend label */
    public String label() {
      return label;
    }
  }

  /**
   * One mark.
   *
   * @param atMs    time since the run's start, ms
   * @param kind    what happened
   * @param subject the namespace name or object path
   * @param node    the node that answered the request (empty when none)
   */
  public record Mark(long atMs, MarkKind kind, String subject, String node) {
  }

  /**
   * One counted client request.
   *
   * @param atMs        time it was sent, since the run's start, ms
   * @param tookMs      time to the answer (a watch: to its response head), ms
   * @param node        node name that got it
   * @param method      HTTP method ({@code WATCH} for a watch's GET)
   * @param path        path and query
   * @param resource    {@code resource.group/version}
   * @param newResource true when only the "new" plugin set serves the resource
   * @param status      HTTP status (0: no answer)
   * @param reason      the Status reason ({@code NotFound}, {@code ServiceUnavailable}, ...), or empty
   * @param message     the Status message or the transport error, or empty
   * @param namedKind   a 404's {@code details.kind} (e.g. {@code namespaces}), or empty
   * @param namedName   a 404's {@code details.name}, or empty
   * @param outcome     how it is counted
   */
  public record Request(long atMs, long tookMs, String node, String method, String path, String resource,
                        boolean newResource, int status, String reason, String message, String namedKind,
                        String namedName, Outcome outcome) {
  }

  private final long origin = System.nanoTime();
  private final long seed;
  private final boolean gate;
  private final Map<String, String> nodeByUrl = new ConcurrentHashMap<>();
  private final List<NodeEvent> nodeEvents = new ArrayList<>();
  private final List<Mark> marks = new ArrayList<>();
  private final List<Request> requests = new ArrayList<>();
  private volatile long trafficStartMs = -1;
  private volatile long trafficEndMs = -1;

  /**
   * @param gate {@code UnknownVersionInteroperabilityProxy} of the run
   * @param seed the seed of the run's random choices
   */
  public Journal(boolean gate, long seed) {
    this.gate = gate;
    this.seed = seed;
  }

  /** @return the run's gate */
  public boolean gate() {
    return gate;
  }

  /** @return the seed of the run's random choices */
  public long seed() {
    return seed;
  }

  /** @return ms since the run's start */
  public long now() {
    return (System.nanoTime() - origin) / 1_000_000;
  }

  /**
   * @param nanoTime a {@link System#nanoTime()} value of this run
   * @return it as ms since the run's start
   */
  public long at(long nanoTime) {
    return (nanoTime - origin) / 1_000_000;
  }

  /** @param url a node's base URL @param name its name */
  void nodeUrl(String url, String name) {
    nodeByUrl.put(url, name);
  }

  /** @param url a node's base URL @return its name (the URL when unknown) */
  String nodeName(String url) {
    return nodeByUrl.getOrDefault(url, url);
  }

  /** Notes the start of the client traffic. */
  void trafficStarted() {
    trafficStartMs = now();
  }

  /** Notes the end of the client traffic. */
  void trafficStopped() {
    trafficEndMs = now();
  }

  /** @return when the client traffic started, ms since the run's start (-1: not yet) */
  public long trafficStartMs() {
    return trafficStartMs;
  }

  /** @return when the client traffic stopped, ms since the run's start (-1: not yet) */
  public long trafficEndMs() {
    return trafficEndMs;
  }

  /** @param node node name @param kind what happened @param pluginSet its plugin set label */
  synchronized void node(String node, NodeKind kind, String pluginSet) {
    nodeEvents.add(new NodeEvent(now(), node, kind, pluginSet));
  }

  /** @param kind what happened @param subject namespace or path @param nodeUrl the answering node's URL or null */
  synchronized void mark(MarkKind kind, String subject, String nodeUrl) {
    marks.add(new Mark(now(), kind, subject, nodeUrl == null ? "" : nodeName(nodeUrl)));
  }

  /**
   * Records a counted request.
   *
   * @param sentMs      when it was sent (ms since the run's start)
   * @param nodeUrl     the node's URL
   * @param method      method
   * @param path        path
   * @param resource    resource label
   * @param newResource only the new set serves it
   * @param status      status (0: none)
   * @param body        the answer's body (a Status for errors), may be empty
   * @param outcome     how it was counted
   */
  void request(long sentMs, String nodeUrl, String method, String path, String resource, boolean newResource,
               int status, JsonObject body, Outcome outcome) {
    JsonObject details = body.getJsonObject("details", new JsonObject());
    Request r = new Request(sentMs, now() - sentMs, nodeName(nodeUrl), method, path, resource, newResource, status,
        status >= 300 ? String.valueOf(body.getValue("reason", "")) : "",
        status == 0 || status >= 300 ? String.valueOf(body.getValue("message", "")) : "",
        status == 404 ? String.valueOf(details.getValue("kind", "")) : "",
        status == 404 ? String.valueOf(details.getValue("name", "")) : "", outcome);
    synchronized (this) {
      requests.add(r);
    }
  }

  /** @param e a node event with its own time (replaying a run) */
  synchronized void add(NodeEvent e) {
    nodeEvents.add(e);
  }

  /** @param m a mark with its own time (replaying a run) */
  synchronized void add(Mark m) {
    marks.add(m);
  }

  /** @param r a request with its own time (replaying a run) */
  synchronized void add(Request r) {
    requests.add(r);
  }

  /** @return the node events, in time order */
  public synchronized List<NodeEvent> nodeEvents() {
    return nodeEvents.stream().sorted(Comparator.comparingLong(NodeEvent::atMs)).toList();
  }

  /** @return the marks, in time order */
  public synchronized List<Mark> marks() {
    return marks.stream().sorted(Comparator.comparingLong(Mark::atMs)).toList();
  }

  /** @return the counted requests, in the order they were sent */
  public synchronized List<Request> requests() {
    return requests.stream().sorted(Comparator.comparingLong(Request::atMs)).toList();
  }

  /** @return the node names seen, in first-event order */
  public synchronized List<String> nodes() {
    return nodeEvents.stream().map(NodeEvent::node).distinct().toList();
  }
}

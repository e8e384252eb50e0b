package io.mvproxy.node.rehearsal;

import io.mvproxy.node.rehearsal.TrafficLedger.Churned;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

import static io.mvproxy.node.rehearsal.Traffic.CORE;
import static io.mvproxy.node.rehearsal.Traffic.GADGETS;
import static io.mvproxy.node.rehearsal.Traffic.NS;
import static io.mvproxy.node.rehearsal.Traffic.SPROCKETS;
import static io.mvproxy.node.rehearsal.Traffic.W1;
import static io.mvproxy.node.rehearsal.Traffic.W2;
import static io.mvproxy.node.rehearsal.TrafficObjects.configMap;
import static io.mvproxy.node.rehearsal.TrafficObjects.namespace;
import static io.mvproxy.node.rehearsal.TrafficObjects.sprocket;
import static io.mvproxy.node.rehearsal.TrafficObjects.widget;
import static io.mvproxy.node.rehearsal.TrafficObjects.yaml;

/**
 * The kubectl share of the rehearsal's {@link Traffic} (the binary on {@code PATH}), each invocation to the next node
 * in rotation: {@code kubectl apply -f -} of a namespace with content then {@code kubectl delete namespace --wait},
 * {@code kubectl apply -f -} of a v2 widget or a sprocket, {@code kubectl get -w --watch-only} held 5 s. Each
 * invocation is one counted request in the {@link TrafficLedger} and the {@link Journal}, classified by
 * {@link Kubectl#answer}.
 */
final class KubectlTraffic {
  private final FleetClient client;
  private final Journal journal;
  private final Kubectl kubectl;
  private final long drainMs;
  private final AtomicInteger seq;
  private final TrafficLedger ledger;
  private final List<Churned> namespaces;
  private final LongAdder watchEvents;
  /** True once a node serving the new plugin set is ready. */
  private final BooleanSupplier newServed;

  /**
   * @param client    the load balancer (which node each invocation goes to)
   * @param journal   the run's journal
   * @param kubectl   the runner
   * @param drainMs   {@code kubectl delete namespace --wait} is stopped this + 60 s after its start, ms
   * @param seq       the traffic's sequence of names
   * @param ledger    where answers, namespaces and watch events are counted
   * @param newServed true once a node serving the new plugin set is ready
   */
  KubectlTraffic(FleetClient client, Journal journal, Kubectl kubectl, long drainMs, AtomicInteger seq,
                 TrafficLedger ledger, BooleanSupplier newServed) {
    this.client = client;
    this.journal = journal;
    this.kubectl = kubectl;
    this.drainMs = drainMs;
    this.seq = seq;
    this.ledger = ledger;
    this.namespaces = ledger.namespaces;
    this.watchEvents = ledger.watchEvents;
    this.newServed = newServed;
  }

  private void count(String resource, Outcome o) {
    ledger.count(resource, o);
  }

  /** One counted kubectl invocation through the next node in rotation. */
  private Future<Kubectl.Answer> kubectl(String verb, String resource, boolean isNew, String path, List<String> args,
                                         String stdin, long maxMs, java.util.function.Consumer<String> onLine) {
    return kubectl(verb, resource, isNew, path, args, stdin, maxMs, false, onLine);
  }

  /**
   * One counted kubectl invocation; with {@code sprocketInside}, kubectl's "no matches for kind "Sprocket"" is
   * counted for sprockets (a resource of the new set) rather than for the invocation's own resource.
   */
  private Future<Kubectl.Answer> kubectl(String verb, String resource, boolean isNew, String path, List<String> args,
                                         String stdin, long maxMs, boolean sprocketInside,
                                         java.util.function.Consumer<String> onLine) {
    String node = client.pick();
    boolean newNow = newServed.getAsBoolean();
    long sent = journal.now();
    return kubectl.run(journal.nodeName(node), args, stdin, maxMs, onLine).map(Kubectl::answer)
        .otherwise(t -> new Kubectl.Answer(0, new JsonObject().put("message", "kubectl did not run: "
            + t.getMessage()))).map(a -> {
              boolean sprocket = sprocketInside && a.status() == 404
                  && a.body().getString("message", "").contains("kind \"Sprocket\"");
              String res = sprocket ? "sprockets.sprockets.mvproxy.io/v1" : resource;
              boolean isNewRes = sprocket || isNew;
              Outcome o = Outcome.of(a.status(), a.body(), !isNewRes || newNow);
              count(res, o);
              journal.request(sent, node, "kubectl " + verb, path, res, isNewRes, a.status(), a.body(), o);
              return a;
            });
  }

  /** kubectl apply of a namespace with content, then kubectl delete namespace --wait. */
  Future<?> kubectlNamespace() {
    Churned ns = new Churned("rk-" + seq.incrementAndGet());
    boolean sprocket = newServed.getAsBoolean();
    StringBuilder y = new StringBuilder();
    y.append(yaml(namespace(ns.name)));
    JsonObject w = widget("demo.mvproxy.io/v1", "content");
    w.getJsonObject("metadata").put("namespace", ns.name);
    JsonObject cm = configMap("content", null);
    cm.getJsonObject("metadata").put("namespace", ns.name);
    y.append(yaml(w)).append(yaml(cm));
    if (sprocket) {
      JsonObject sp = sprocket("content");
      sp.getJsonObject("metadata").put("namespace", ns.name);
      y.append(yaml(sp));
    }
    String created = "namespace/" + ns.name + " created";
    java.util.concurrent.atomic.AtomicReference<String> applyNode = new java.util.concurrent.atomic.AtomicReference<>();
    return kubectl("apply", "namespaces/v1", false, CORE + ns.name, List.of("apply", "-f", "-",
        "--request-timeout=15s"), y.toString(), 60_000, true, line -> {
          if (line.strip().equals(created)) {
            namespaces.add(ns);
            journal.mark(Journal.MarkKind.NAMESPACE_CREATED, ns.name, null);
          }
        }).compose(a -> {
          if (!namespaces.contains(ns)) {
            return Future.succeededFuture();
          }
          String deleted = "namespace \"" + ns.name + "\" deleted";
          // no --timeout, as users run it (kubectl waits as long as the namespace exists); stopped after the drain
          return kubectl("delete", "namespaces/v1", false, CORE + ns.name, List.of("delete", "namespace", ns.name,
              "--wait=true", "--request-timeout=15s"), null, drainMs + 60_000,
              line -> {
                if (line.strip().equals(deleted) && ns.deletedAt == 0) {
                  ns.deletedAt = System.nanoTime();
                  journal.mark(Journal.MarkKind.NAMESPACE_DELETED, ns.name, null);
                }
              }).map(d -> {
                if (d.status() == 200 && ns.deletedAt > 0 && ns.goneAt == 0) {
                  ns.goneAt = System.nanoTime();
                  journal.mark(Journal.MarkKind.NAMESPACE_GONE, ns.name, null);
                }
                return null;
              });
        });
  }

  /** kubectl apply of a v2 widget or a sprocket (resources of the new set), in turn. */
  Future<?> kubectlApply() {
    int i = seq.incrementAndGet();
    JsonObject obj;
    String resource;
    String path;
    if (i % 2 == 0) {
      obj = widget("demo.mvproxy.io/v2", "kubectl-steady");
      resource = "widgets.demo.mvproxy.io/v2";
      path = W2 + NS + "/widgets/kubectl-steady";
    } else {
      obj = sprocket("kubectl-steady");
      resource = "sprockets.sprockets.mvproxy.io/v1";
      path = SPROCKETS + NS + "/sprockets/kubectl-steady";
    }
    obj.getJsonObject("metadata").put("namespace", NS);
    obj.getJsonObject("spec").put(i % 2 == 0 ? "size" : "teeth", i);
    return kubectl("apply", resource, true, path, List.of("apply", "-f", "-", "--request-timeout=15s"), yaml(obj),
        60_000, null);
  }

  /** kubectl get -w of widgets v1 (every node serves them) or of gadgets (the new set), held 5 s. */
  Future<?> kubectlWatch() {
    boolean gadgets = seq.incrementAndGet() % 2 == 0;
    String resource = gadgets ? "gadgets.demo.mvproxy.io/v1" : "widgets.demo.mvproxy.io/v1";
    String path = gadgets ? GADGETS + "?watch=true" : W1 + NS + "/widgets?watch=true";
    List<String> args = gadgets
        ? List.of("get", "gadgets.v1.demo.mvproxy.io", "--watch-only", "-o", "name")
        : List.of("get", "widgets.v1.demo.mvproxy.io", "-n", NS, "--watch-only", "-o", "name");
    return kubectl("get -w", resource, gadgets, path, args, null, 5000, line -> watchEvents.increment());
  }
}

package io.mvproxy.node.rehearsal;

import io.mvproxy.node.rehearsal.TrafficLedger.Churned;
import io.mvproxy.node.rehearsal.TrafficLedger.Pair;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import static io.mvproxy.node.rehearsal.TrafficObjects.configMap;
import static io.mvproxy.node.rehearsal.TrafficObjects.namespace;
import static io.mvproxy.node.rehearsal.TrafficObjects.sprocket;
import static io.mvproxy.node.rehearsal.TrafficObjects.widget;
import static io.mvproxy.node.rehearsal.TrafficObjects.yaml;

/**
 * The rehearsal's steady client traffic through the {@link FleetClient} load balancer, and what it leaves to check.
 * Loops (each waits for its step before the next):
 * <ul>
 *   <li>reads every 100 ms, in turn: widgets v1 and configmaps (every node serves them), widgets v2, gadgets and
 *   sprockets (only the "new" plugin set serves them), and a GET of a live pair's owner;</li>
 *   <li>writes every 250 ms: merge patches of steady widgets through v1 and through v2;</li>
 *   <li>two watches held open ({@code timeoutSeconds=15}, reopened through the next node): widgets v1 in the
 *   rehearsal namespace and gadgets;</li>
 *   <li>a namespace created, filled (a widget, a configmap, and a sprocket once a node serves them) and deleted
 *   every {@code namespacePeriod};</li>
 *   <li>once a node serves the new APIs, an owner/dependent pair every second across API versions: a Gadget
 *   ({@code demo.mvproxy.io/v1}, cluster-scoped) owning a v1 widget, a {@code demo.mvproxy.io/v2} Widget owning a
 *   configmap, a Sprocket owning a configmap; every fourth owner is deleted at once (background), the others live
 *   until the end.</li>
 *   <li>with a {@link Kubectl} (the binary on {@code PATH}), a share through kubectl, each invocation to the next
 *   node in rotation: {@code kubectl apply -f -} of a namespace holding a widget, a configmap (and a sprocket once a
 *   node serves them) followed by {@code kubectl delete namespace --wait} (every {@code 2 x namespacePeriod}; the
 *   namespace joins the churned ones, so the end-of-run checks cover it); {@code kubectl apply -f -} of a
 *   {@code demo.mvproxy.io/v2} widget and of a sprocket in turn, every 2 s (before any node serves them: kubectl's
 *   "no matches for kind", a true 404); {@code kubectl get -w --watch-only} of widgets v1 and of gadgets in turn,
 *   held 5 s. Each invocation is one counted request (method {@code kubectl apply}, ...), classified by
 *   {@link Kubectl#answer} from its exit code and stderr ({@link KubectlTraffic}).</li>
 * </ul>
 * Every answer is counted by {@link Outcome} in the {@link TrafficLedger}; a request for a resource of the new set
 * counts as "served" once the first upgraded node is ready ({@link #newServed}). The ledger's checks (a deleted
 * namespace gone, a deleted owner's dependent gone) are not counted as traffic. Every counted request and every
 * namespace and garbage-collection event goes to the run's {@link Journal}; the one random choice (which live owner
 * a read asks for) comes from the run's seeded {@link Random}.
 */
final class Traffic {
  /** The namespace of the steady objects and the pairs. */
  static final String NS = "rehearsal";
  /** Path prefix of namespaced widgets v1. */
  static final String W1 = "/apis/demo.mvproxy.io/v1/namespaces/";
  /** Path prefix of namespaced widgets v2. */
  static final String W2 = "/apis/demo.mvproxy.io/v2/namespaces/";
  /** Path of the gadgets (cluster-scoped). */
  static final String GADGETS = "/apis/demo.mvproxy.io/v1/gadgets";
  /** Path prefix of namespaced sprockets. */
  static final String SPROCKETS = "/apis/sprockets.mvproxy.io/v1/namespaces/";
  /** Path prefix of core namespaced resources. */
  static final String CORE = "/api/v1/namespaces/";
  private static final String MERGE = "application/merge-patch+json";
  private static final int STEADY = 3;

  private final Vertx vertx;
  private final FleetClient client;
  private final Duration namespacePeriod;
  private final Journal journal;
  private final Random random;
  /** What the traffic leaves to count and check; the three below are its lists and counter. */
  private final TrafficLedger ledger;
  private final LongAdder watchEvents;
  private final List<Churned> namespaces;
  private final List<Pair> pairs;
  private final List<Future<Void>> loops = new ArrayList<>();
  private final List<Future<Void>> checks = new ArrayList<>();
  private final Kubectl kubectl;
  private final long drainMs;
  private final AtomicInteger seq = new AtomicInteger();
  private volatile boolean running;
  private volatile boolean checking;
  /** True once a node serving the new plugin set is ready (and stays so: upgraded nodes are never downgraded). */
  volatile boolean newServed;

  Traffic(FleetClient client, Duration namespacePeriod, Journal journal, Random random) {
    this(client, namespacePeriod, journal, random, null, Duration.ofSeconds(60));
  }

  /**
   * @param client          the load balancer
   * @param namespacePeriod time between two churned namespaces
   * @param journal         the run's journal
   * @param random          the run's seeded random choices
   * @param kubectl         the kubectl share's runner, or null for none
   * @param drain           {@code kubectl delete namespace --wait} is stopped this + 60 s after its start
   */
  Traffic(FleetClient client, Duration namespacePeriod, Journal journal, Random random, Kubectl kubectl,
          Duration drain) {
    this.kubectl = kubectl;
    this.drainMs = drain.toMillis();
    this.vertx = client.vertx();
    this.client = client;
    this.namespacePeriod = namespacePeriod;
    this.journal = journal;
    this.random = random;
    this.ledger = new TrafficLedger(client, journal);
    this.watchEvents = ledger.watchEvents;
    this.namespaces = ledger.namespaces;
    this.pairs = ledger.pairs;
  }

  /** @return completes once the rehearsal namespace and the steady widgets exist (retried until they do) */
  Future<Void> setUp() {
    Future<Void> f = ensure(CORE.substring(0, CORE.length() - 1), namespace(NS));
    for (int i = 0; i < STEADY; i++) {
      JsonObject w = widget("demo.mvproxy.io/v1", "steady-" + i);
      f = f.compose(v -> ensure(W1 + NS + "/widgets", w));
    }
    return f;
  }

  private Future<Void> ensure(String collection, JsonObject obj) {
    return client.send(HttpMethod.POST, collection, obj, null).compose(a -> a.ok() || a.status() == 409
        ? Future.succeededFuture()
        : timer(200).compose(v -> ensure(collection, obj)));
  }

  /** Starts every loop and the checks. */
  void start() {
    running = true;
    checking = true;
    loops.add(loop(100, () -> running, this::read));
    loops.add(loop(250, () -> running, this::write));
    loops.add(loop(namespacePeriod.toMillis(), () -> running, this::churnNamespace));
    loops.add(loop(1000, () -> running, this::pair));
    loops.add(loop(200, () -> running, () -> watch(W1 + NS + "/widgets?watch=true&timeoutSeconds=15", "widgets."
        + "demo.mvproxy.io/v1", false)));
    loops.add(loop(200, () -> running, () -> watch(GADGETS + "?watch=true&timeoutSeconds=15",
        "gadgets.demo.mvproxy.io/v1", true)));
    if (kubectl != null) {
      KubectlTraffic share = new KubectlTraffic(client, journal, kubectl, drainMs, seq, ledger, () -> newServed);
      loops.add(loop(2 * namespacePeriod.toMillis(), () -> running, share::kubectlNamespace));
      loops.add(loop(2000, () -> running, share::kubectlApply));
      loops.add(loop(500, () -> running, share::kubectlWatch));
    }
    checks.add(loop(500, () -> checking, ledger::checkNamespaces));
    checks.add(loop(500, () -> checking, ledger::checkPairs));
  }

  /**
   * @return completes when the traffic loops finished their last step (the checks go on; a
   *     {@code kubectl delete namespace --wait} in flight waits until its namespace is gone, stopped 60 s after the drain time)
   */
  Future<Void> stopTraffic() {
    running = false;
    return Future.join(loops).mapEmpty();
  }

  /** @return true when every deleted namespace is gone and every deleted owner's dependent too */
  boolean drained() {
    return ledger.drained();
  }

  /** @return completes when the checks stopped */
  Future<Void> stopChecks() {
    checking = false;
    return Future.join(checks).mapEmpty();
  }

  private Future<Void> loop(long periodMs, Supplier<Boolean> on, Supplier<Future<?>> step) {
    Promise<Void> done = Promise.promise();
    vertx.runOnContext(v -> next(periodMs, on, step, done));
    return done.future();
  }

  private void next(long periodMs, Supplier<Boolean> on, Supplier<Future<?>> step, Promise<Void> done) {
    if (!on.get()) {
      done.tryComplete();
      return;
    }
    Future<?> f;
    try {
      f = step.get();
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    f.onComplete(ar -> vertx.setTimer(Math.max(1, periodMs), t -> next(periodMs, on, step, done)));
  }

  private Future<Void> timer(long ms) {
    Promise<Void> p = Promise.promise();
    vertx.setTimer(ms, t -> p.complete());
    return p.future();
  }

  /** One counted request through the load balancer. */
  private Future<FleetClient.Answer> req(String resource, boolean isNew, HttpMethod m, String path, JsonObject body,
                                          String contentType) {
    return reqTo(client.pick(), resource, isNew, m, path, body, contentType);
  }

  /** One counted request to a given node. */
  private Future<FleetClient.Answer> reqTo(String node, String resource, boolean isNew, HttpMethod m, String path,
                                            JsonObject body, String contentType) {
    boolean served = !isNew || newServed;
    long sent = journal.now();
    return client.sendTo(node, m, path, body, contentType).map(a -> {
      Outcome o = Outcome.of(a.status(), a.body(), served);
      count(resource, o);
      journal.request(sent, node, m.name(), path, resource, isNew, a.status(), a.body(), o);
      return a;
    });
  }

  /**
   * The probe run right after each upgrade (counted as traffic): a list of each API of the new set (widgets v2,
   * gadgets, sprockets) sent once to every node in rotation, as clients behind a load balancer eventually do. A node
   * still on the old set answers it with the route's 404 (a false 404) unless it proxies the request to a node that
   * serves it, so with the gate off and an old node in rotation the false 404 is certain, not left to the round
   * robin.
   *
   * @return completes when every node answered (or failed)
   */
  Future<Void> probe() {
    journal.mark(Journal.MarkKind.PROBE, String.join(" ", client.rotation().stream().map(journal::nodeName)
        .toList()), null);
    List<Future<?>> fs = new ArrayList<>();
    for (String node : client.rotation()) {
      fs.add(reqTo(node, "widgets.demo.mvproxy.io/v2", true, HttpMethod.GET, W2 + NS + "/widgets?limit=1", null,
          null));
      fs.add(reqTo(node, "gadgets.demo.mvproxy.io/v1", true, HttpMethod.GET, GADGETS + "?limit=1", null, null));
      fs.add(reqTo(node, "sprockets.sprockets.mvproxy.io/v1", true, HttpMethod.GET,
          SPROCKETS + NS + "/sprockets?limit=1", null, null));
    }
    return Future.join(fs).mapEmpty();
  }

  /** @return the owner/dependent pairs created so far */
  int pairsCreated() {
    return pairs.size();
  }

  private void count(String resource, Outcome o) {
    ledger.count(resource, o);
  }

  private Future<?> read() {
    int i = seq.incrementAndGet();
    return switch (i % 6) {
      case 0 -> req("widgets.demo.mvproxy.io/v1", false, HttpMethod.GET, W1 + NS + "/widgets?limit=20", null, null);
      case 1 -> req("configmaps/v1", false, HttpMethod.GET, CORE + NS + "/configmaps?limit=20", null, null);
      case 2 -> req("widgets.demo.mvproxy.io/v2", true, HttpMethod.GET, W2 + NS + "/widgets?limit=20", null, null);
      case 3 -> req("gadgets.demo.mvproxy.io/v1", true, HttpMethod.GET, GADGETS + "?limit=20", null, null);
      case 4 -> req("sprockets.sprockets.mvproxy.io/v1", true, HttpMethod.GET, SPROCKETS + NS + "/sprockets?limit=20",
          null, null);
      default -> {
        List<Pair> live = pairs.stream().filter(p -> !p.deleteOwner).toList();
        if (live.isEmpty()) {
          yield Future.succeededFuture();
        }
        Pair p = live.get(random.nextInt(live.size()));
        yield req(p.ownerResource, true, HttpMethod.GET, p.ownerPath, null, null);
      }
    };
  }

  private Future<?> write() {
    int i = seq.incrementAndGet();
    JsonObject patch = new JsonObject().put("spec", new JsonObject().put("size", i));
    String name = "steady-" + (i % STEADY);
    return i % 2 == 0
        ? req("widgets.demo.mvproxy.io/v1", false, HttpMethod.PATCH, W1 + NS + "/widgets/" + name, patch, MERGE)
        : req("widgets.demo.mvproxy.io/v2", true, HttpMethod.PATCH, W2 + NS + "/widgets/" + name, patch, MERGE);
  }

  private Future<?> watch(String path, String resource, boolean isNew) {
    boolean served = !isNew || newServed;
    String node = client.pick();
    long sent = journal.now();
    return client.watch(node, path, resp -> {
      if (resp.statusCode() != 200) {
        return resp.body().<Void>map(b -> {
          JsonObject status = FleetClient.json(b);
          Outcome o = Outcome.of(resp.statusCode(), status, served);
          count(resource, o);
          journal.request(sent, node, "WATCH", path, resource, isNew, resp.statusCode(), status, o);
          return null;
        });
      }
      count(resource, Outcome.OK);
      journal.request(sent, node, "WATCH", path, resource, isNew, 200, new JsonObject(), Outcome.OK);
      Promise<Void> ended = Promise.promise();
      resp.handler(buf -> {
        for (int k = 0; k < buf.length(); k++) {
          if (buf.getByte(k) == '\n') {
            watchEvents.increment();
          }
        }
      });
      resp.endHandler(v -> ended.tryComplete());
      resp.exceptionHandler(t -> ended.tryComplete());
      long stopCheck = vertx.setPeriodic(200, t -> {
        if (!running) {
          resp.request().reset();
          ended.tryComplete();
        }
      });
      return ended.future().onComplete(ar -> vertx.cancelTimer(stopCheck));
    }).recover(t -> {
      // no answer, or a non-200 answer whose body broke off before it was counted (a 200's stream never fails)
      count(resource, Outcome.NO_ANSWER);
      journal.request(sent, node, "WATCH", path, resource, isNew, 0,
          new JsonObject().put("message", String.valueOf(t.getMessage())), Outcome.NO_ANSWER);
      return Future.succeededFuture();
    });
  }

  private Future<?> churnNamespace() {
    Churned ns = new Churned("rh-" + seq.incrementAndGet());
    boolean sprocket = newServed;
    return req("namespaces/v1", false, HttpMethod.POST, "/api/v1/namespaces", namespace(ns.name), null)
        .compose(created -> {
          if (!created.ok()) {
            return Future.succeededFuture();
          }
          namespaces.add(ns);
          journal.mark(Journal.MarkKind.NAMESPACE_CREATED, ns.name, created.node());
          Future<?> fill = req("widgets.demo.mvproxy.io/v1", false, HttpMethod.POST, W1 + ns.name + "/widgets",
              widget("demo.mvproxy.io/v1", "content"), null)
              .compose(v -> req("configmaps/v1", false, HttpMethod.POST, CORE + ns.name + "/configmaps",
                  configMap("content", null), null));
          if (sprocket) {
            fill = fill.compose(v -> req("sprockets.sprockets.mvproxy.io/v1", true, HttpMethod.POST,
                SPROCKETS + ns.name + "/sprockets", sprocket("content"), null));
          }
          return fill.compose(v -> req("namespaces/v1", false, HttpMethod.DELETE, "/api/v1/namespaces/" + ns.name,
              null, null)).map(d -> {
                if (d.ok()) {
                  ns.deletedAt = System.nanoTime();
                  journal.mark(Journal.MarkKind.NAMESPACE_DELETED, ns.name, d.node());
                }
                return null;
              });
        });
  }

  private Future<?> pair() {
    if (!newServed) {
      return Future.succeededFuture();
    }
    int i = seq.incrementAndGet();
    int kind = pairs.size() % 3;
    boolean deleteOwner = pairs.size() % 4 == 3;
    String ownerCollection;
    String ownerResource;
    JsonObject owner;
    if (kind == 0) {
      ownerCollection = GADGETS;
      ownerResource = "gadgets.demo.mvproxy.io/v1";
      owner = new JsonObject().put("apiVersion", "demo.mvproxy.io/v1").put("kind", "Gadget")
          .put("metadata", new JsonObject().put("name", "owner-" + i));
    } else if (kind == 1) {
      ownerCollection = W2 + NS + "/widgets";
      ownerResource = "widgets.demo.mvproxy.io/v2";
      owner = widget("demo.mvproxy.io/v2", "owner-" + i);
    } else {
      ownerCollection = SPROCKETS + NS + "/sprockets";
      ownerResource = "sprockets.sprockets.mvproxy.io/v1";
      owner = sprocket("owner-" + i);
    }
    return req(ownerResource, true, HttpMethod.POST, ownerCollection, owner, null).compose(o -> {
      if (!o.ok()) {
        return Future.succeededFuture();
      }
      journal.mark(Journal.MarkKind.OWNER_CREATED, ownerCollection + "/owner-" + i, o.node());
      JsonObject ref = new JsonObject().put("apiVersion", owner.getString("apiVersion"))
          .put("kind", owner.getString("kind")).put("name", "owner-" + i)
          .put("uid", o.body().getJsonObject("metadata", new JsonObject()).getString("uid"));
      String depCollection;
      String depResource;
      JsonObject dep;
      if (kind == 0) {
        depCollection = W1 + NS + "/widgets";
        depResource = "widgets.demo.mvproxy.io/v1";
        dep = widget("demo.mvproxy.io/v1", "dependent-" + i);
      } else {
        depCollection = CORE + NS + "/configmaps";
        depResource = "configmaps/v1";
        dep = configMap("dependent-" + i, null);
      }
      dep.getJsonObject("metadata").put("ownerReferences", new JsonArray().add(ref));
      String ownerPath = ownerCollection + "/owner-" + i;
      return req(depResource, false, HttpMethod.POST, depCollection, dep, null).compose(d -> {
        if (!d.ok()) {
          return Future.succeededFuture();
        }
        Pair p = new Pair(ownerPath, ownerResource, depCollection + "/dependent-" + i, deleteOwner);
        pairs.add(p);
        if (!deleteOwner) {
          return Future.succeededFuture();
        }
        return req(ownerResource, true, HttpMethod.DELETE, ownerPath, new JsonObject().put("kind", "DeleteOptions")
            .put("apiVersion", "v1").put("propagationPolicy", "Background"), null).map(x -> {
              if (x.ok()) {
                p.ownerDeletedAt = System.nanoTime();
                journal.mark(Journal.MarkKind.OWNER_DELETED, ownerPath, x.node());
              }
              return null;
            });
      });
    });
  }

  /**
   * The end-of-run checks (see {@link TrafficLedger#report}).
   *
   * @param gate      the run's gate
   * @param seconds   run length
   * @param upgradeMs each node's upgrade time
   * @return the report
   */
  Future<RunReport> report(boolean gate, long seconds, List<Long> upgradeMs) {
    return ledger.report(gate, seconds, upgradeMs);
  }
}

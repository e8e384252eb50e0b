package io.mvproxy.crd;

import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.registry.impl.CrdSourceOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Watch semantics on one node: initial state, resume, 410, bookmarks, timeout, selectors, Table events. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class WatchTest {
  static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
      + "g=meta.k8s.io,application/json";
  @AutoClose
  TestNode node;
  Http http;

  @BeforeAll
  void start() throws Exception {
    // a watch cache of 4 events (memory history 20) so that 30 changes push a revision out of reach
    node = TestNode.withOwnMember(CrdSourceOptions.DEFAULTS.withBookmarkIntervalMs(300),
        io.mvproxy.storage.StorageConfig.memory().withWatchCacheSize(4));
    node.addAll(CrdRestTest.widgetManifests());
    http = new Http(node.base());
  }

  String ns(String ns) {
    return "/apis/example.com/v1/namespaces/" + ns + "/widgets";
  }

  static String rv(Http.Res r) {
    return r.json().getJsonObject("metadata").getString("resourceVersion");
  }

  static String name(JsonObject event) {
    return event.getJsonObject("object").getJsonObject("metadata").getString("name");
  }

  @Test
  void initialStateThenChangesInOrder() throws Exception {
    assertEquals(201, http.post(ns("w1"), CrdRestTest.widget("pre")).code());
    try (Http.Watch w = http.watch(ns("w1") + "?watch=true")) {
      assertEquals(200, w.code);
      JsonObject first = w.next(5);
      assertEquals("ADDED", first.getString("type"));
      assertEquals("pre", name(first));
      assertEquals("example.com/v1", first.getJsonObject("object").getString("apiVersion"));
      http.post(ns("w1"), CrdRestTest.widget("live"));
      http.patch(ns("w1") + "/live", "application/merge-patch+json", "{\"spec\":{\"color\":\"green\"}}");
      http.delete(ns("w1") + "/live");
      JsonObject a = w.next(5);
      JsonObject m = w.next(5);
      JsonObject d = w.next(5);
      assertEquals("ADDED", a.getString("type"));
      assertEquals("MODIFIED", m.getString("type"));
      assertEquals("green", m.getJsonObject("object").getJsonObject("spec").getString("color"));
      assertEquals("DELETED", d.getString("type"));
      long ra = Long.parseLong(a.getJsonObject("object").getJsonObject("metadata").getString("resourceVersion"));
      long rm = Long.parseLong(m.getJsonObject("object").getJsonObject("metadata").getString("resourceVersion"));
      long rd = Long.parseLong(d.getJsonObject("object").getJsonObject("metadata").getString("resourceVersion"));
      assertTrue(ra < rm && rm < rd, ra + " < " + rm + " < " + rd);
    }
  }

  @Test
  void resumeFromListResourceVersion() throws Exception {
    http.post(ns("w2"), CrdRestTest.widget("one"));
    Thread.sleep(200);
    String listRv = rv(http.get(ns("w2")));
    http.post(ns("w2"), CrdRestTest.widget("two"));
    try (Http.Watch w = http.watch(ns("w2") + "?watch=true&resourceVersion=" + listRv)) {
      JsonObject e = w.next(5);
      assertEquals("ADDED", e.getString("type"));
      assertEquals("two", name(e), "only changes after the list's resourceVersion");
    }
  }

  @Test
  void tooOldIsExpired() throws Exception {
    Http.Res c = http.post(ns("w3"), CrdRestTest.widget("churn"));
    String first = rv(c);
    for (int i = 0; i < 30; i++) {
      http.patch(ns("w3") + "/churn", "application/merge-patch+json", "{\"spec\":{\"n\":" + i + "}}");
    }
    // the shared watch cache takes the 30 changes in asynchronously: waits until its ring has moved past first
    Awaitility.await("the watch cache moved past " + first).atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100)).until(() -> {
          try (Http.Watch w = http.watch(ns("w3") + "?watch=true&resourceVersion=" + first)) {
            return w.code == 200 && "ERROR".equals(w.next(5).getString("type"));
          }
        });
    try (Http.Watch w = http.watch(ns("w3") + "?watch=true&resourceVersion=" + first)) {
      assertEquals(200, w.code);
      JsonObject e = w.next(5);
      assertEquals("ERROR", e.getString("type"));
      assertEquals(410, e.getJsonObject("object").getInteger("code"));
      assertEquals("Expired", e.getJsonObject("object").getString("reason"));
      assertEquals("EOF", w.next(5).getString("type"));
    }
  }

  @Test
  void bookmarksAndTimeout() throws Exception {
    String listRv = rv(http.get(ns("w4")));
    try (Http.Watch w = http.watch(ns("w4") + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=2"
        + "&resourceVersion=" + listRv)) {
      JsonObject b = w.next(5);
      assertEquals("BOOKMARK", b.getString("type"));
      assertEquals("Widget", b.getJsonObject("object").getString("kind"));
      assertFalse(b.getJsonObject("object").getJsonObject("metadata").getString("resourceVersion").isEmpty());
      long t0 = System.nanoTime();
      JsonObject e;
      do {
        e = w.next(5);
      } while (!"EOF".equals(e.getString("type")));
      assertTrue((System.nanoTime() - t0) / 1_000_000 < 4000);
    }
    // get.go: a negative timeoutSeconds is a timeout already passed (only 0 takes the default)
    try (Http.Watch w = http.watch(ns("w4") + "?watch=true&timeoutSeconds=-1&resourceVersion=" + listRv)) {
      assertEquals(200, w.code);
      assertEquals("EOF", w.nextNonBookmark(5).getString("type"));
    }
  }

  @Test
  void fieldSelectorAsKubectlDeleteWaits() throws Exception {
    JsonObject f = CrdRestTest.widget("slow");
    f.getJsonObject("metadata").put("finalizers", new io.vertx.core.json.JsonArray().add("x/y"));
    http.post(ns("w5"), f);
    http.post(ns("w5"), CrdRestTest.widget("other"));
    assertEquals(200, http.delete(ns("w5") + "/slow").code());
    Http.Res l = http.get(ns("w5") + "?fieldSelector=metadata.name%3Dslow&limit=500&resourceVersion=0");
    assertEquals(1, l.json().getJsonArray("items").size());
    try (Http.Watch w = http.watch(ns("w5") + "?allowWatchBookmarks=true&fieldSelector=metadata.name%3Dslow"
        + "&resourceVersion=" + rv(l) + "&timeoutSeconds=558&watch=true")) {
      http.patch(ns("w5") + "/other", "application/merge-patch+json", "{\"spec\":{\"n\":1}}");
      http.patch(ns("w5") + "/slow", "application/merge-patch+json", "{\"metadata\":{\"finalizers\":null}}");
      JsonObject e = w.nextNonBookmark(5);
      while (!"DELETED".equals(e.getString("type"))) {
        // a list served before the holdback released its writes may be followed by a replay of them
        assertTrue(Set.of("ADDED", "MODIFIED").contains(e.getString("type")), e.encode());
        e = w.nextNonBookmark(5);
      }
      assertEquals("DELETED", e.getString("type"));
      assertEquals("slow", name(e));
    }
  }

  @Test
  void labelSelectorTransitions() throws Exception {
    http.post(ns("w6"), CrdRestTest.widget("lab"));
    try (Http.Watch w = http.watch(ns("w6") + "?watch=true&labelSelector=sel%3Dyes")) {
      http.patch(ns("w6") + "/lab", "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"sel\":\"yes\"}}}");
      assertEquals("ADDED", w.next(5).getString("type"));
      http.patch(ns("w6") + "/lab", "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"sel\":\"no\"}}}");
      assertEquals("DELETED", w.next(5).getString("type"));
    }
  }

  @Test
  void tableWatch() throws Exception {
    http.post(ns("w7"), CrdRestTest.widget("t1"));
    try (Http.Watch w = http.watch(ns("w7") + "?watch=true", TABLE)) {
      JsonObject e1 = w.next(5);
      assertEquals("Table", e1.getJsonObject("object").getString("kind"));
      assertEquals(4, e1.getJsonObject("object").getJsonArray("columnDefinitions").size());
      http.post(ns("w7"), CrdRestTest.widget("t2"));
      JsonObject e2 = w.next(5);
      assertEquals("ADDED", e2.getString("type"));
      assertTrue(e2.getJsonObject("object").containsKey("columnDefinitions"));
      assertNull(e2.getJsonObject("object").getValue("columnDefinitions"), "NoHeaders: null, as Go's nil slice");
      assertEquals("t2", e2.getJsonObject("object").getJsonArray("rows").getJsonObject(0).getJsonArray("cells")
          .getString(0));
    }
  }

  /**
   * BOOKMARK events come in the view asked for, as every event (handlers/response.go watchEmbeddedEncoder): a
   * metadata informer (client-go's metadata client, as=PartialObjectMetadata) gets PartialObjectMetadata (it cannot
   * decode the kind itself), the initial-events-end annotation kept; a Table watch gets a Table whose row holds the
   * bookmark as PartialObjectMetadata, also with includeObject=None when it is the end bookmark (asTable).
   */
  @Test
  void bookmarksInTheViewAskedFor() throws Exception {
    http.post(ns("w12"), CrdRestTest.widget("m1"));
    String partial = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
    try (Http.Watch w = http.watch(ns("w12") + "?watch=true&sendInitialEvents=true&allowWatchBookmarks=true"
        + "&resourceVersionMatch=NotOlderThan", partial)) {
      JsonObject a = w.next(5);
      assertEquals("ADDED", a.getString("type"));
      assertEquals("PartialObjectMetadata", a.getJsonObject("object").getString("kind"));
      JsonObject end = w.next(5);
      assertEquals("BOOKMARK", end.getString("type"));
      assertEquals("PartialObjectMetadata", end.getJsonObject("object").getString("kind"), end.encode());
      assertEquals("meta.k8s.io/v1", end.getJsonObject("object").getString("apiVersion"));
      assertEquals("true", end.getJsonObject("object").getJsonObject("metadata").getJsonObject("annotations")
          .getString("k8s.io/initial-events-end"));
      JsonObject b = w.next(5);
      assertEquals("BOOKMARK", b.getString("type"));
      assertEquals("PartialObjectMetadata", b.getJsonObject("object").getString("kind"), b.encode());
      assertFalse(b.getJsonObject("object").getJsonObject("metadata").getString("resourceVersion").isEmpty());
    }
    try (Http.Watch w = http.watch(ns("w12") + "?watch=true&sendInitialEvents=true&allowWatchBookmarks=true"
        + "&resourceVersionMatch=NotOlderThan&includeObject=None", TABLE)) {
      JsonObject a = w.next(5);
      assertEquals("Table", a.getJsonObject("object").getString("kind"));
      assertNull(a.getJsonObject("object").getJsonArray("rows").getJsonObject(0).getValue("object"));
      JsonObject end = w.next(5);
      assertEquals("BOOKMARK", end.getString("type"));
      JsonObject table = end.getJsonObject("object");
      assertEquals("Table", table.getString("kind"), end.encode());
      assertNull(table.getValue("columnDefinitions"));
      JsonObject row = table.getJsonArray("rows").getJsonObject(0).getJsonObject("object");
      assertEquals("PartialObjectMetadata", row.getString("kind"));
      assertEquals("true", row.getJsonObject("metadata").getJsonObject("annotations")
          .getString("k8s.io/initial-events-end"));
      assertEquals(row.getJsonObject("metadata").getString("resourceVersion"),
          table.getJsonObject("metadata").getString("resourceVersion"));
    }
  }

  @Test
  void watchOfAnotherVersionAndAllNamespaces() throws Exception {
    try (Http.Watch w = http.watch("/apis/example.com/v2/widgets?watch=true&resourceVersion="
        + rv(http.get("/apis/example.com/v2/widgets")))) {
      http.post(ns("w8"), CrdRestTest.widget("v2seen"));
      JsonObject e = w.next(5);
      assertEquals("example.com/v2", e.getJsonObject("object").getString("apiVersion"));
      assertEquals("v2seen", name(e));
    }
  }

  /**
   * A name in a watch path ({@code /watch/...}) selects that object (get.go parseListOptions), in one namespace or,
   * on the path without namespace, in all of them; a field selector beside it must name the same object.
   */
  @Test
  void watchOfOneName() throws Exception {
    http.post(ns("w12"), CrdRestTest.widget("one"));
    http.post(ns("w12"), CrdRestTest.widget("other"));
    http.post(ns("w13"), CrdRestTest.widget("one"));
    for (String path : new String[] {"/apis/example.com/v1/watch/namespaces/w12/widgets/one?",
        "/apis/example.com/v1/watch/namespaces/w12/widgets/one?fieldSelector=metadata.name%3Done&"}) {
      try (Http.Watch w = http.watch(path + "timeoutSeconds=2")) {
        assertEquals(200, w.code, path);
        JsonObject a = w.next(5);
        assertEquals("ADDED", a.getString("type"), path);
        assertEquals("one", name(a), path);
        assertEquals("w12", a.getJsonObject("object").getJsonObject("metadata").getString("namespace"), path);
        assertEquals("EOF", w.nextNonBookmark(5).getString("type"), path + ": only the named object");
      }
    }
    try (Http.Watch w = http.watch("/apis/example.com/v1/watch/widgets/one?timeoutSeconds=2")) {
      assertEquals(200, w.code);
      Set<String> seen = new java.util.HashSet<>();
      for (JsonObject e = w.nextNonBookmark(5); !"EOF".equals(e.getString("type")); e = w.nextNonBookmark(5)) {
        assertEquals("one", name(e));
        seen.add(e.getJsonObject("object").getJsonObject("metadata").getString("namespace"));
      }
      assertTrue(seen.containsAll(Set.of("w12", "w13")), "across namespaces: " + seen);
    }
    // requestinfo.go: ?watch with a name is a get (GetResource ignores it)
    Http.Res got = http.get(ns("w12") + "/one?watch=true");
    assertEquals(200, got.code(), got.body());
    assertEquals("Widget", got.json().getString("kind"));
    try (Http.Watch w = http.watch("/apis/example.com/v1/watch/namespaces/w12/widgets/one"
        + "?fieldSelector=metadata.name%3Dother")) {
      assertEquals(400, w.code);
      JsonObject st = w.next(5);
      assertEquals("BadRequest", st.getString("reason"));
      assertEquals("fieldSelector metadata.name doesn't match requested name", st.getString("message"));
    }
  }

  @Test
  void sendInitialEventsEndsWithAnnotatedBookmark() throws Exception {
    http.post(ns("w9"), CrdRestTest.widget("init"));
    try (Http.Watch w = http.watch(ns("w9") + "?watch=true&sendInitialEvents=true&allowWatchBookmarks=true"
        + "&resourceVersionMatch=NotOlderThan")) {
      JsonObject a = w.next(5);
      assertEquals("ADDED", a.getString("type"));
      JsonObject b = w.next(5);
      assertEquals("BOOKMARK", b.getString("type"));
      assertEquals("true", b.getJsonObject("object").getJsonObject("metadata").getJsonObject("annotations")
          .getString("k8s.io/initial-events-end"));
    }
    // without allowWatchBookmarks: served (validation.go does not require it), the objects and no bookmark
    try (Http.Watch w = http.watch(ns("w9") + "?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
        + "&timeoutSeconds=1")) {
      assertEquals(200, w.code);
      assertEquals("ADDED", w.next(5).getString("type"));
      assertEquals("EOF", w.next(5).getString("type"), "no initial-events-end bookmark");
    }
  }

  /**
   * A plain watch from a resourceVersion ahead of the store is served (cacher.go Watch; only sendInitialEvents waits
   * and gives 504): it sends exactly the events after that revision once the store passes it.
   */
  @Test
  void watchFromAFutureResourceVersionWaitsForIt() throws Exception {
    long r = Long.parseLong(rv(http.post(ns("w14"), CrdRestTest.widget("before"))));
    long from = r + 1;
    try (Http.Watch w = http.watch(ns("w14") + "?watch=true&timeoutSeconds=3&resourceVersion=" + from)) {
      assertEquals(200, w.code);
      Map<String, Long> made = new java.util.LinkedHashMap<>();
      for (String n : List.of("fa", "fb", "fc")) {
        made.put(n, Long.parseLong(rv(http.post(ns("w14"), CrdRestTest.widget(n)))));
      }
      Set<String> want = new java.util.TreeSet<>();
      made.forEach((n, v) -> {
        if (v > from) {
          want.add(n);
        }
      });
      Set<String> got = new java.util.TreeSet<>();
      for (JsonObject e = w.nextNonBookmark(10); !"EOF".equals(e.getString("type")); e = w.nextNonBookmark(10)) {
        assertEquals("ADDED", e.getString("type"), e.encode());
        got.add(name(e));
      }
      assertTrue(want.contains("fc"), made.toString());
      assertEquals(want, got, "the events after " + from + " of " + made);
    }
  }

  /** sendInitialEvents from a resourceVersion ahead of the store: the cache waits 3 s, then one ERROR event 504. */
  @Test
  void sendInitialEventsAheadOfTheStoreIsTooLargeResourceVersion() throws Exception {
    long ahead = Long.parseLong(rv(http.post(ns("w11"), CrdRestTest.widget("now")))) + 1_000_000;
    try (Http.Watch w = http.watch(ns("w11") + "?watch=true&sendInitialEvents=true&allowWatchBookmarks=true"
        + "&resourceVersionMatch=NotOlderThan&resourceVersion=" + ahead)) {
      assertEquals(200, w.code);
      JsonObject e = w.next(10);
      assertEquals("ERROR", e.getString("type"));
      JsonObject st = e.getJsonObject("object");
      assertEquals(504, st.getInteger("code"));
      assertEquals("Timeout", st.getString("reason"));
      assertTrue(st.getString("message").startsWith("Timeout: Too large resource version: " + ahead + ", current: "),
          st.getString("message"));
      assertEquals("EOF", w.next(5).getString("type"));
    }
  }

  @Test
  void clientDisconnectEndsTheWatch() throws Exception {
    CrdApiSource src = node.sources.get(0);
    try {
      Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50)).atMost(Duration.ofSeconds(5)).until(() -> src.watchCount() == 0);
    } catch (ConditionTimeoutException e) {
      // other tests' watches still open: counted from where they are
    }
    int before = src.watchCount();
    Http.Watch w = http.watch(ns("w10") + "?watch=true&resourceVersion=" + rv(http.get(ns("w10"))));
    Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20)).atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertEquals(before + 1, src.watchCount()));
    w.close();
    Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50)).atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertEquals(before, src.watchCount(), "the subscription ends with the connection"));
  }
}

package io.mvproxy.crd;

import io.mvproxy.registry.impl.CrdSourceOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.storage.EtcdRunner;
import io.mvproxy.storage.StorageConfig;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The key REST semantics on etcd3, with two nodes sharing one real etcd (no Hazelcast): a list's resourceVersion
 * covers its items, pages continue on the other node, a watch from a list's resourceVersion through the other node
 * misses nothing and repeats nothing, resourceVersionMatch and continue tokens validated as kube-apiserver.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("fleet")
class EtcdCrdTest {
  EtcdRunner etcd;
  TestNode a;
  TestNode b;
  Http ha;
  Http hb;

  @BeforeAll
  void start() throws Exception {
    etcd = EtcdRunner.single();
    StorageConfig cfg = StorageConfig.etcd(etcd.clientUrls()).withCompactionInterval(Duration.ZERO);
    a = new TestNode(null, CrdSourceOptions.DEFAULTS.withBookmarkIntervalMs(300), cfg);
    b = new TestNode(null, CrdSourceOptions.DEFAULTS.withBookmarkIntervalMs(300), cfg);
    for (JsonObject m : CrdRestTest.widgetManifests()) {
      a.add(m);
      b.add(m);
    }
    ha = new Http(a.base());
    hb = new Http(b.base());
  }

  @AfterAll
  void stop() throws Exception {
    a.close();
    b.close();
    etcd.close();
  }

  static String ns(String ns) {
    return "/apis/example.com/v1/namespaces/" + ns + "/widgets";
  }

  static String rv(JsonObject o) {
    return o.getJsonObject("metadata").getString("resourceVersion");
  }

  @Test
  void listThroughOneNodeWatchThroughTheOther() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertEquals(201, ha.post(ns("e1"), CrdRestTest.widget("w" + i)).code());
    }
    JsonObject list = hb.get(ns("e1")).json();
    long listRv = Long.parseLong(rv(list));
    for (Object o : list.getJsonArray("items")) {
      assertTrue(Long.parseLong(rv((JsonObject) o)) <= listRv, "list RV covers every item");
    }
    try (Http.Watch w = ha.watch(ns("e1") + "?watch=true&resourceVersion=" + listRv)) {
      assertEquals(201, hb.post(ns("e1"), CrdRestTest.widget("after")).code());
      JsonObject e = w.next(10);
      assertEquals("ADDED", e.getString("type"));
      assertEquals("after", e.getJsonObject("object").getJsonObject("metadata").getString("name"),
          "no event before the list's resourceVersion is replayed");
    }
  }

  @Test
  void pagesContinueOnAnyNodeWithKubeTokens() throws Exception {
    for (int i = 0; i < 4; i++) {
      ha.post(ns("e2"), CrdRestTest.widget("p" + i));
    }
    JsonObject p1 = ha.get(ns("e2") + "?limit=3").json();
    String token = p1.getJsonObject("metadata").getString("continue");
    assertEquals(1, p1.getJsonObject("metadata").getInteger("remainingItemCount"));
    JsonObject t = new JsonObject(new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8));
    assertEquals("meta.k8s.io/v1", t.getString("v"));
    assertEquals("p2\u0000", t.getString("start"));
    ha.post(ns("e2"), CrdRestTest.widget("p9"));
    JsonObject p2 = hb.get(ns("e2") + "?limit=3&continue=" + token).json();
    assertEquals(rv(p1), rv(p2), "every page has the first page's resourceVersion");
    assertEquals(1, p2.getJsonArray("items").size(), "the object created after page 1 is not in the walk");
    assertNull(p2.getJsonObject("metadata").getString("continue"));

    String tampered = Base64.getUrlEncoder().withoutPadding().encodeToString(
        "{\"v\":\"meta.k8s.io/v1\",\"rv\":5,\"start\":\"../../x\"}".getBytes(StandardCharsets.UTF_8));
    Http.Res bad = hb.get(ns("e2") + "?limit=3&continue=" + tampered);
    assertEquals(400, bad.code());
    assertTrue(bad.json().getString("message").startsWith("invalid continue token: continue key is not valid"));
    assertEquals(400, hb.get(ns("e2") + "?limit=3&continue=%25%25").code());
  }

  @Test
  void resourceVersionMatchAsKubeApiserver() throws Exception {
    JsonObject created = ha.post(ns("e3"), CrdRestTest.widget("m")).json();
    ha.patch(ns("e3") + "/m", "application/merge-patch+json", "{\"spec\":{\"color\":\"blue\"}}");
    JsonObject exact = hb.get(ns("e3") + "?resourceVersion=" + rv(created) + "&resourceVersionMatch=Exact").json();
    assertEquals(rv(created), rv(exact));
    assertEquals("red", exact.getJsonArray("items").getJsonObject(0).getJsonObject("spec").getString("color"),
        "Exact serves the state at that revision");
    Http.Res noRv = hb.get(ns("e3") + "?resourceVersionMatch=NotOlderThan");
    assertEquals(422, noRv.code());
    assertEquals("ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is "
        + "forbidden unless resourceVersion is provided", noRv.json().getString("message"));
    assertEquals(422, hb.get(ns("e3") + "?resourceVersion=0&resourceVersionMatch=Exact").code());
    assertEquals(422, hb.get(ns("e3") + "?resourceVersion=1&resourceVersionMatch=Bogus").code());
    long far = Long.parseLong(rv(created)) + 1_000_000;
    Http.Res tooLarge = hb.get(ns("e3") + "?resourceVersion=" + far + "&resourceVersionMatch=Exact");
    assertEquals(504, tooLarge.code());
    assertEquals("1", tooLarge.header("Retry-After"));
    assertEquals("ResourceVersionTooLarge", tooLarge.json().getJsonObject("details").getJsonArray("causes")
        .getJsonObject(0).getString("reason"));
  }

  @Test
  void watchListEndsInitialEventsWithTheBookmark() throws Exception {
    ha.post(ns("e4"), CrdRestTest.widget("i1"));
    try (Http.Watch w = hb.watch(ns("e4") + "?watch=true&sendInitialEvents=true&allowWatchBookmarks=true"
        + "&resourceVersionMatch=NotOlderThan&timeoutSeconds=3")) {
      JsonObject added = w.next(10);
      assertEquals("ADDED", added.getString("type"));
      JsonObject end = w.next(10);
      assertEquals("BOOKMARK", end.getString("type"));
      assertEquals("true", end.getJsonObject("object").getJsonObject("metadata").getJsonObject("annotations")
          .getString("k8s.io/initial-events-end"));
      assertTrue(Long.parseLong(rv(end.getJsonObject("object"))) >= Long.parseLong(rv(added.getJsonObject("object"))));
      JsonObject e;
      boolean sawBookmark = false;
      do {
        e = w.next(10);
        sawBookmark |= "BOOKMARK".equals(e.getString("type"));
      } while (!"EOF".equals(e.getString("type")));
      assertTrue(sawBookmark, "a bookmark before timeoutSeconds ends");
    }
    assertNotNull(etcd);
  }
}

package io.mvproxy.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class RequestInfoTest {
  @Test
  void namespacedObjectWithSubresource() {
    RequestInfo i = RequestInfo.parse("PUT", "/apis/example.com/v1/namespaces/ns1/widgets/w1/status", null);
    assertTrue(i.resourceRequest());
    assertEquals("update", i.verb());
    assertEquals(new Gvr("example.com", "v1", "widgets"), i.gvr());
    assertEquals("ns1", i.namespace());
    assertEquals("w1", i.name());
    assertEquals("status", i.subresource());
  }

  @Test
  void listWatchAndCollections() {
    assertEquals("list", RequestInfo.parse("GET", "/apis/example.com/v1/widgets", null).verb());
    assertEquals("watch", RequestInfo.parse("GET", "/apis/example.com/v1/namespaces/a/widgets", "true").verb());
    assertEquals("deletecollection", RequestInfo.parse("DELETE", "/apis/example.com/v1/namespaces/a/widgets", null).verb());
    RequestInfo core = RequestInfo.parse("GET", "/api/v1/namespaces/default", null);
    assertEquals("namespaces", core.resource());
    assertEquals("default", core.name());
    assertEquals("", core.namespace());
    // requestinfo.go: with a name a GET is a get, ?watch or not; only the watch path watches one object
    assertEquals("get", RequestInfo.parse("GET", "/api/v1/namespaces/a/configmaps/c", "true").verb());
    assertEquals("get", RequestInfo.parse("GET", "/apis/example.com/v1/namespaces/a/widgets/w/status", "1").verb());
    assertEquals("get", RequestInfo.parse("GET", "/api/v1/namespaces/default", "true").verb());
    assertEquals("watch", RequestInfo.parse("GET", "/api/v1/watch/namespaces/a/configmaps/c", null).verb());
    assertEquals("watch", RequestInfo.parse("GET", "/api/v1/watch/namespaces/a/configmaps", "false").verb());
    // a Namespace under a namespace's path keeps that namespace (the cluster-scoped kind then answers 404)
    RequestInfo nested = RequestInfo.parse("GET", "/api/v1/namespaces/a/namespaces/a", null);
    assertEquals("namespaces", nested.resource());
    assertEquals("a", nested.namespace());
  }

  @Test
  void discoveryPathsAreNotResourceRequests() {
    assertFalse(RequestInfo.parse("GET", "/apis", null).resourceRequest());
    assertFalse(RequestInfo.parse("GET", "/apis/example.com", null).resourceRequest());
    RequestInfo gv = RequestInfo.parse("GET", "/apis/example.com/v1", null);
    assertFalse(gv.resourceRequest());
    assertEquals("example.com", gv.group());
    assertEquals("v1", gv.version());
    assertFalse(RequestInfo.parse("GET", "/api/v1", null).resourceRequest());
    assertFalse(RequestInfo.parse("GET", "/healthz", null).resourceRequest());
  }

  @Test
  void namespaceSubresourcesBelongToTheNamespace() {
    RequestInfo status = RequestInfo.parse("PUT", "/api/v1/namespaces/ns1/status", null);
    assertEquals("namespaces", status.resource());
    assertEquals("ns1", status.name());
    assertEquals("status", status.subresource());
    RequestInfo fin = RequestInfo.parse("PUT", "/api/v1/namespaces/ns1/finalize", null);
    assertEquals("finalize", fin.subresource());
    assertEquals("namespaces", fin.resource());
    RequestInfo cm = RequestInfo.parse("GET", "/api/v1/namespaces/ns1/configmaps/c", null);
    assertEquals("configmaps", cm.resource());
    assertEquals("ns1", cm.namespace());
  }

  @Test
  void onlyRoutedShapesAreRoutable() {
    for (String ok : List.of("/api/v1/namespaces", "/api/v1/namespaces/ns1", "/api/v1/namespaces/ns1/status",
        "/api/v1/namespaces/ns1/finalize", "/api/v1/namespaces/ns1/configmaps", "/api/v1/namespaces/ns1/configmaps/c",
        "/apis/g.io/v1/namespaces/ns1/widgets/w/status", "/apis/g.io/v1/widgets", "/apis/g.io/v1/clusterthings/x/scale",
        "/apis/g.io/v1/watch/namespaces/ns1/widgets", "/apis/g.io/v1/watch/namespaces/ns1/widgets/w",
        "/apis/g.io/v1/namespaces/ns1/widgets/w/status/")) {
      assertTrue(RequestInfo.routable(ok), ok);
    }
    for (String bad : List.of("/apis/g.io/v1/namespaces/ns1/widgets/w/status/extra",
        "/apis/g.io/v1/namespaces//widgets", "/apis/g.io/v1/clusterthings/x/scale/y",
        "/api/v1/namespaces/ns1/configmaps/c/sub/more")) {
      assertFalse(RequestInfo.routable(bad), bad);
    }
  }
}

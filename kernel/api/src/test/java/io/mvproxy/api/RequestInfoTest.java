package io.mvproxy.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

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
}

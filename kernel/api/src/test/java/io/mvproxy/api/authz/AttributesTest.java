package io.mvproxy.api.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Authorization attributes of HTTP requests as requestinfo.go derives them. */
@Tag("unit")
class AttributesTest {
  static final UserInfo ALICE = new UserInfo("alice", "", List.of(), Map.of());

  static Attributes of(String method, String path, String watch, String fieldSelector) {
    return Attributes.of(RequestInfo.parse(method, path, watch), ALICE, fieldSelector);
  }

  @Test
  void namespacesNamesAndSelectors() {
    // a Namespace is authorized in itself (a RoleBinding there granting get on namespaces lets one read it)
    Attributes ns = of("GET", "/api/v1/namespaces/team", null, null);
    assertEquals("team", ns.namespace());
    assertEquals("team", ns.name());
    assertEquals("get", ns.verb());
    assertEquals("team", of("PUT", "/api/v1/namespaces/team/finalize", null, null).namespace());
    // a Namespace under another namespace's path is authorized there (and then answered 404)
    Attributes nested = of("GET", "/api/v1/namespaces/team/namespaces/victim", null, null);
    assertEquals("team", nested.namespace());
    assertEquals("victim", nested.name());
    // a list or watch pinning metadata.name is authorized with that name; ?watch with a name is a get
    Attributes pinned = of("GET", "/api/v1/namespaces/team/configmaps", "true", "metadata.name=c1");
    assertEquals("watch", pinned.verb());
    assertEquals("c1", pinned.name());
    assertEquals("get", of("GET", "/api/v1/namespaces/team/configmaps/c1", "true", null).verb());
    assertEquals("", of("GET", "/api/v1/namespaces/team/configmaps", null, "metadata.name!=c1").name());
  }
}

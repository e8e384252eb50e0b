package io.mvproxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.mvproxy.api.UserInfo;
import io.vertx.core.MultiMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class FrontProxyHeadersTest {
  @Test
  void escapesLikeClientGo() {
    assertEquals("authentication.kubernetes.io%2Fpod-name",
        FrontProxyHeaders.escapeExtraKey("authentication.kubernetes.io/pod-name"));
    assertEquals("a%25b%20c%C3%A9", FrontProxyHeaders.escapeExtraKey("a%b cé"));
    assertEquals("a%b cé", FrontProxyHeaders.unescapeExtraKey("a%25b%20c%C3%A9"));
    assertEquals("a+b", FrontProxyHeaders.unescapeExtraKey("a+b"));
    assertEquals("bad%zz", FrontProxyHeaders.unescapeExtraKey("bad%zz"));
  }

  @Test
  void writeReplacesExistingAndRoundTrips() {
    MultiMap h = MultiMap.caseInsensitiveMultiMap()
        .add("x-remote-user", "evil").add("X-REMOTE-GROUP", "system:masters").add("X-Remote-Extra-Foo", "x")
        .add("Accept", "application/json");
    UserInfo u = new UserInfo("alice", "u-1", List.of("dev", "system:authenticated"),
        Map.of("scopes.example.com/x y", List.of("a", "b")));
    FrontProxyHeaders.write(u, h);
    assertEquals("alice", h.get("X-Remote-User"));
    assertEquals(List.of("dev", "system:authenticated"), h.getAll("X-Remote-Group"));
    assertEquals(List.of("a", "b"), h.getAll("X-Remote-Extra-scopes.example.com%2Fx%20y"));
    assertNull(h.get("X-Remote-Extra-Foo"));
    assertEquals("application/json", h.get("Accept"));
    assertEquals(u, FrontProxyHeaders.read(h));
  }

  @Test
  void noUidHeaderWhenEmptyAndNoUserMeansNull() {
    MultiMap h = MultiMap.caseInsensitiveMultiMap();
    FrontProxyHeaders.write(new UserInfo("bob", "", List.of(), Map.of()), h);
    assertFalse(h.contains("X-Remote-Uid"));
    FrontProxyHeaders.removeIdentity(h);
    assertNull(FrontProxyHeaders.read(h));
  }
}

package io.mvproxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.UserInfo;
import io.vertx.core.MultiMap;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
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

  @Test
  void readTakesFirstUserAndUidAllGroupsAndExtrasInOrderAnyCase() {
    MultiMap h = MultiMap.caseInsensitiveMultiMap()
        .add("x-remote-user", "alice").add("X-REMOTE-USER", "mallory")
        .add("X-Remote-Uid", "u-1").add("x-remote-uid", "u-2")
        .add("X-Remote-Group", "g1").add("Accept", "*/*").add("x-remote-group", "g2")
        .add("X-Remote-Extra-Scopes.Example.com%2fTeam", "blue").add("x-remote-extra-scopes.example.com%2FTEAM", "green")
        .add("X-Remote-Extra-A", "1").add("X-Remote-Extra-", "no key").add("X-Remote-Other", "ignored");
    UserInfo u = FrontProxyHeaders.read(h);
    assertEquals("alice", u.name());
    assertEquals("u-1", u.uid());
    assertEquals(List.of("g1", "g2"), u.groups());
    assertEquals(Map.of("scopes.example.com/team", List.of("blue", "green"), "a", List.of("1")), u.extra());
    assertEquals(12, h.entries().size(), "read does not change the headers");
  }

  @Test
  void readWithoutOrWithEmptyUserIsNull() {
    assertNull(FrontProxyHeaders.read(MultiMap.caseInsensitiveMultiMap().add("X-Remote-Group", "g")));
    assertNull(FrontProxyHeaders.read(MultiMap.caseInsensitiveMultiMap().add("X-Remote-User", "")
        .add("X-Remote-User", "second")));
  }

  @Test
  void removeIdentityRemovesEveryXRemoteHeaderAndNothingElse() {
    MultiMap h = MultiMap.caseInsensitiveMultiMap()
        .add("X-Remote-User", "evil").add("x-remote-group", "a").add("X-REMOTE-GROUP", "b")
        .add("X-Remote-Extra-Foo", "x").add("x-remote-anything", "y").add("X-Remote", "not a prefix match")
        .add("X-Remoted-User", "kept").add("Accept", "application/json").add("Accept", "text/plain")
        .add("X-Kubernetes-Peer-Proxied", "true");
    FrontProxyHeaders.removeIdentity(h);
    assertEquals(List.of("X-Remote", "X-Remoted-User", "Accept", "Accept", "X-Kubernetes-Peer-Proxied"),
        h.entries().stream().map(Map.Entry::getKey).toList());
    assertEquals(List.of("application/json", "text/plain"), h.getAll("Accept"));
  }

  @Test
  void removeIdentityOnlyIteratesWhenNoIdentityHeaderIsPresent() {
    MultiMap h = entriesOnly(MultiMap.caseInsensitiveMultiMap().add("Accept", "a").add("User-Agent", "k"));
    assertThrows(UnsupportedOperationException.class, h::names);
    FrontProxyHeaders.removeIdentity(h); // a change, names() or size() would throw
    assertEquals("a", h.get("Accept"));
    MultiMap peer = entriesOnly(MultiMap.caseInsensitiveMultiMap().add("X-Remote-User", "alice")
        .add("X-Remote-Group", "g"));
    assertEquals(new UserInfo("alice", "", List.of("g"), Map.of()), FrontProxyHeaders.read(peer));
  }

  /** {@code headers} where only reading by name and iterating the entries work: no names(), size() or change. */
  static MultiMap entriesOnly(MultiMap headers) {
    Set<String> refused = Set.of("names", "size", "add", "addAll", "set", "setAll", "remove", "clear");
    return (MultiMap) Proxy.newProxyInstance(MultiMap.class.getClassLoader(), new Class<?>[] {MultiMap.class},
        (proxy, method, args) -> {
          if (refused.contains(method.getName())) {
            throw new UnsupportedOperationException(method.getName());
          }
          try {
            return method.invoke(headers, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  @Test
  void takeReadsAndRemovesInOnePass() {
    MultiMap h = MultiMap.caseInsensitiveMultiMap().add("X-Remote-User", "alice").add("X-Remote-Group", "dev")
        .add("X-Remote-Extra-K", "v").add("X-Kubernetes-Peer-Proxied", "true").add("Accept", "a");
    assertEquals(new UserInfo("alice", "", List.of("dev"), Map.of("k", List.of("v"))), FrontProxyHeaders.take(h));
    assertEquals(List.of("X-Kubernetes-Peer-Proxied", "Accept"), h.entries().stream().map(Map.Entry::getKey).toList());

    MultiMap noUser = MultiMap.caseInsensitiveMultiMap().add("X-Remote-Group", "system:masters").add("Accept", "a");
    assertNull(FrontProxyHeaders.take(noUser));
    assertEquals(List.of("Accept"), noUser.entries().stream().map(Map.Entry::getKey).toList(),
        "identity headers removed even without a user");
  }

  @Test
  void identityHeaderPredicateAndAsciiComparison() {
    assertTrue(FrontProxyHeaders.isIdentityHeader("x-REMOTE-user"));
    assertFalse(FrontProxyHeaders.isIdentityHeader("X-Remote"));
    assertFalse(FrontProxyHeaders.isIdentityHeader("X-Forwarded-For"));
    assertTrue(FrontProxyHeaders.asciiEqualsIgnoreCase("x-remote-uid", FrontProxyHeaders.UID));
    assertFalse(FrontProxyHeaders.asciiEqualsIgnoreCase("x-remote-u\u0131d", FrontProxyHeaders.UID),
        "dotless i is no i for header maps");
    assertFalse(FrontProxyHeaders.asciiEqualsIgnoreCase("x-remote-ui", FrontProxyHeaders.UID));
  }

  @Test
  void writeOnTheSameHeadersTwiceLeavesOneIdentity() {
    MultiMap h = MultiMap.caseInsensitiveMultiMap();
    UserInfo u = new UserInfo("alice", "u", List.of("a", "b"), Map.of("k", List.of("1", "2")));
    FrontProxyHeaders.write(new UserInfo("bob", "x", List.of("c"), Map.of("other", List.of("o"))), h);
    FrontProxyHeaders.write(u, h);
    assertEquals(u, FrontProxyHeaders.read(h));
    List<String> names = new ArrayList<>();
    h.forEach((BiConsumer<String, String>) (k, v) -> names.add(k));
    assertEquals(List.of("X-Remote-User", "X-Remote-Uid", "X-Remote-Group", "X-Remote-Group", "X-Remote-Extra-k",
        "X-Remote-Extra-k"), names);
    assertNull(h.get("X-Remote-Extra-other"));
  }
}

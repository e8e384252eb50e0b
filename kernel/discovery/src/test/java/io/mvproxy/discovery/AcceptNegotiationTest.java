package io.mvproxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@Tag("unit")
class AcceptNegotiationTest {
  private static final String V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
  private static final String V2B1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(null, "LEGACY", false),
        Arguments.of("", "LEGACY", false),
        Arguments.of("application/json", "LEGACY", false),
        Arguments.of("application/json, */*", "LEGACY", false),
        Arguments.of("*/*", "LEGACY", false),
        Arguments.of("application/*", "LEGACY", false),
        Arguments.of(V2B1 + ",application/json", "V2BETA1", false),
        Arguments.of(V2 + "," + V2B1 + ",application/json", "V2", false),
        Arguments.of(V2B1 + "," + V2, "V2BETA1", false),
        // parameters in any order, spaces, case of the media type
        Arguments.of("Application/JSON; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io", "V2", false),
        // q-values: a lower q for v2 loses to v2beta1
        Arguments.of(V2 + ";q=0.5," + V2B1 + ";q=0.9", "V2BETA1", false),
        Arguments.of(V2 + ";q=0," + V2B1, "V2BETA1", false),
        Arguments.of(V2 + ";q=0,application/json;q=0.1", "LEGACY", false),
        // wildcards last: */* before the aggregated clause still yields aggregated
        Arguments.of("*/*," + V2, "V2", false),
        Arguments.of("*/*;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", "V2BETA1", false),
        // nopeer profile on the selected clause only
        Arguments.of(V2 + ";profile=nopeer," + V2B1 + ";profile=nopeer,application/json", "V2", true),
        Arguments.of("application/json;profile=nopeer;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
            "V2BETA1", true),
        Arguments.of(V2 + ";profile=other", "V2", false),
        Arguments.of(V2B1 + ";profile=nopeer;q=0.5," + V2, "V2", false),
        // unsupported versions / other kinds are skipped
        Arguments.of("application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json",
            "LEGACY", false),
        Arguments.of("application/json;as=Table;v=v1;g=meta.k8s.io,application/json", "LEGACY", false),
        Arguments.of("application/yaml," + V2B1, "V2BETA1", false),
        Arguments.of("application/vnd.kubernetes.protobuf,application/json", "LEGACY", false),
        Arguments.of("application/json;charset=utf-8", "LEGACY", false),
        Arguments.of("application/json;g=\"apidiscovery.k8s.io\";v=v2;as=APIGroupDiscoveryList", "V2", false));
  }

  @ParameterizedTest(name = "[{index}] {0} -> {1} nopeer={2}")
  @MethodSource("cases")
  void negotiates(String accept, String format, boolean nopeer) {
    AcceptNegotiation.Result r = AcceptNegotiation.negotiate(accept);
    assertEquals(DiscoveryFormat.valueOf(format), r.format());
    assertEquals(nopeer, r.nopeer());
  }

  @ParameterizedTest
  @MethodSource("unacceptable")
  void notAcceptable(String accept) {
    StatusException e = assertThrows(StatusException.class, () -> AcceptNegotiation.negotiate(accept));
    assertEquals(StatusReason.NotAcceptable, e.reason());
    assertEquals(406, e.toStatus().getInteger("code"));
  }

  static Stream<String> unacceptable() {
    return Stream.of("application/yaml", "application/vnd.kubernetes.protobuf", "text/html",
        "application/json;as=Table;v=v1;g=meta.k8s.io", "application/json;q=0",
        "application/json;g=apidiscovery.k8s.io;v=v1;as=APIGroupDiscoveryList");
  }

  @Test
  void legacyOnlyPathsSkipAggregatedClauses() {
    assertEquals(DiscoveryFormat.LEGACY, AcceptNegotiation.negotiate(V2 + ",application/json", false).format());
    assertThrows(StatusException.class, () -> AcceptNegotiation.negotiate(V2, false));
    assertEquals(DiscoveryFormat.LEGACY, AcceptNegotiation.negotiate("application/json, */*", false).format());
  }

  /**
   * Every distinct Accept sent to /api or /apis in the kubectl captures: never refused; where the capture served
   * aggregated discovery the client asked for (a 200 whose Content-Type names a version in its Accept), the
   * same type is chosen; where the client asked for no aggregated type, legacy is chosen.
   */
  @TestFactory
  Stream<DynamicTest> kubectlCaptures() {
    Optional<Path> folder = Captures.folder();
    Assumptions.assumeTrue(folder.isPresent(), "no " + Captures.RELATIVE + " above "
        + Path.of("").toAbsolutePath() + ": capture-driven negotiation tests skipped");
    Map<String, Set<String>> servedByAccept = new LinkedHashMap<>();
    for (Captures.Request r : Captures.requests(folder.get())) {
      String p = r.pathWithoutQuery();
      if (!p.equals("/api") && !p.equals("/apis")) {
        continue;
      }
      String accept = r.line().getString("accept");
      Set<String> served = servedByAccept.computeIfAbsent(accept == null ? "<none>" : accept, k -> new HashSet<>());
      String ctype = r.line().getString("resp_ctype");
      if (Integer.valueOf(200).equals(r.line().getInteger("resp")) && ctype != null
          && ctype.contains("as=APIGroupDiscoveryList") && accept != null && asked(accept, ctype)) {
        served.add(ctype);
      }
    }
    assertFalse(servedByAccept.isEmpty(), "captures hold /api and /apis requests");
    assertTrue(servedByAccept.values().stream().filter(s -> !s.isEmpty()).count() >= 2,
        "captures show v2 and v2beta1 served to the clients that asked: " + servedByAccept);
    List<DynamicTest> tests = new ArrayList<>();
    servedByAccept.forEach((accept, served) -> tests.add(DynamicTest.dynamicTest("Accept: " + accept, () -> {
      AcceptNegotiation.Result r = AcceptNegotiation.negotiate(accept.equals("<none>") ? null : accept);
      assertFalse(r.nopeer());
      assertTrue(served.size() <= 1, "one aggregated type served per Accept: " + served);
      if (!served.isEmpty()) {
        assertEquals(served.iterator().next(), r.format().contentType());
      } else if (!accept.contains("APIGroupDiscoveryList")) {
        assertEquals(DiscoveryFormat.LEGACY, r.format());
      }
    })));
    return tests.stream();
  }

  /** @return true when one clause of {@code accept} names the same parameters as {@code ctype} (any order) */
  private static boolean asked(String accept, String ctype) {
    Set<String> want = new HashSet<>(Arrays.asList(ctype.replace(" ", "").split(";")));
    for (String clause : accept.split(",")) {
      if (new HashSet<>(Arrays.asList(clause.replace(" ", "").split(";"))).equals(want)) {
        return true;
      }
    }
    return false;
  }
}

package io.mvproxy.registry.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mvproxy.testkit.ApiSourceForwarding;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link CodeKinds.CodeKindSource} forwards every method of the registry's source but its name (its own
 * {@code kind/...}) and the CRD capability (a kind served by code is no CustomResourceDefinition).
 */
@Tag("unit")
class CodeKindSourceTest {
  @Test
  void forwardsEverythingButNameAndTheCrdCapability() {
    assertEquals(List.of("customResourceDefinition", "name"),
        ApiSourceForwarding.unforwarded(s -> new CodeKinds.CodeKindSource(s, "kind/alarms.time.example.com")));
  }
}

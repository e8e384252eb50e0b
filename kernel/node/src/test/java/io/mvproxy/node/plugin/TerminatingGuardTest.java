package io.mvproxy.node.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mvproxy.testkit.ApiSourceForwarding;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link TerminatingGuard} forwards every method of the factory's source but the CRD capability (the CRD is the
 * user's stored object, not one the node publishes for a plugin).
 */
@Tag("unit")
class TerminatingGuardTest {
  @Test
  void forwardsEverythingButTheCrdCapability() {
    assertEquals(List.of("customResourceDefinition"),
        ApiSourceForwarding.unforwarded(s -> new TerminatingGuard(s, "widgets.demo.mvproxy.io", Set::of)));
  }
}

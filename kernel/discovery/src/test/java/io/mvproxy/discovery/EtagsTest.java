package io.mvproxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.buffer.Buffer;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class EtagsTest {
  @Test
  void quotedUppercaseSha512() {
    // SHA-512("abc"), FIPS 180-2 test vector
    assertEquals("\"DDAF35A193617ABACC417349AE20413112E6FA4E89A97EA20A9EEEE64B55D39A2192992A274FC1A836BA3C23A3FEEB"
        + "BD454D4423643CE80E2A9AC94FA54CA49F\"", Etags.of(Buffer.buffer("abc")));
  }

  @Test
  void v2AndV2beta1NeverShare() {
    var groups = LocalDiscovery.of(Fixtures.nodeA()).nonCore();
    assertNotEquals(Etags.of(DiscoveryCodec.encode(groups, DiscoveryFormat.V2)),
        Etags.of(DiscoveryCodec.encode(groups, DiscoveryFormat.V2BETA1)));
    assertNotEquals(Etags.of(DiscoveryCodec.encode(List.of(), DiscoveryFormat.V2)),
        Etags.of(DiscoveryCodec.encode(List.of(), DiscoveryFormat.V2BETA1)));
  }

  @Test
  void ifNoneMatch() {
    String e = Etags.of(Buffer.buffer("x"));
    assertTrue(Etags.matches(e, e));
    assertTrue(Etags.matches("\"other\", W/" + e, e));
    assertTrue(Etags.matches("*", e));
    assertFalse(Etags.matches(null, e));
    assertFalse(Etags.matches("\"other\"", e));
    assertFalse(Etags.matches(e.substring(1, e.length() - 1), e));
  }
}

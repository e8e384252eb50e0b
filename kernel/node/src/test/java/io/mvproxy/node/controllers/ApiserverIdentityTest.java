package io.mvproxy.node.controllers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The identity Lease's name as kube-apiserver's {@code APIServerID} ({@code apiserver/pkg/server/config.go}), the
 * expected values computed outside Java (Python: {@code hashlib.sha256} over the length-prefixed parts,
 * {@code base64.b32encode} of the first 16 bytes, unpadded, lower case).
 */
@Tag("unit")
class ApiserverIdentityTest {
  @ParameterizedTest(name = "server ID \"{0}\"")
  @CsvSource({
      "node-a, apiserver-kcaaxytsc3gyd2kyybqqvf4bl4",
      "node-b, apiserver-2ud4fnj4svs3yzmskx44cltu6a",
      "mvproxy-example-6443, apiserver-wsvzsdxsjlyooagcbx5s6mpabi",
      "'', apiserver-2ikcnb3wory4bpirwz777r2iv4"
  })
  void leaseNameAsUpstreamsApiserverId(String serverId, String expected) {
    assertEquals(expected, ApiserverIdentity.leaseName(serverId));
  }

  @Test
  void hostnameIsALabelValue() {
    String h = ApiserverIdentity.hostname();
    assertFalse(h.isEmpty());
    assertTrue(h.length() <= 63, h);
  }
}

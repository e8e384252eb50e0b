package io.mvproxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class VersionOrderTest {
  private static final List<String> EXPECTED =
      List.of("v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2", "foo1", "foo10");

  @Test
  void sortsTheSpecExampleFromAnyShuffle() {
    Random rnd = new Random(42);
    for (int i = 0; i < 50; i++) {
      List<String> l = new ArrayList<>(EXPECTED);
      Collections.shuffle(l, rnd);
      l.sort(VersionOrder.INSTANCE);
      assertEquals(EXPECTED, l);
    }
  }

  @Test
  void kubeLikeDetection() {
    assertTrue(VersionOrder.isKubeLike("v1"));
    assertTrue(VersionOrder.isKubeLike("v2beta3"));
    assertTrue(VersionOrder.isKubeLike("v1alpha1"));
    assertFalse(VersionOrder.isKubeLike("v1gamma1"));
    assertFalse(VersionOrder.isKubeLike("v1beta"));
    assertFalse(VersionOrder.isKubeLike("foo1"));
    assertFalse(VersionOrder.isKubeLike("V1"));
  }

  @Test
  void totalOrderAndHugeNumbers() {
    VersionOrder o = VersionOrder.INSTANCE;
    assertTrue(o.compare("v1", "v01") != 0);
    assertEquals(-Integer.signum(o.compare("v01", "v1")), Integer.signum(o.compare("v1", "v01")));
    assertTrue(o.compare("v99999999999999999999", "v2") < 0);
    assertEquals(0, o.compare("v1", "v1"));
    assertTrue(o.compare("v1", "v1beta1") < 0);
    assertTrue(o.compare("v1beta1", "v1alpha1") < 0);
    assertTrue(o.compare("v1alpha1", "alpha") < 0);
  }
}

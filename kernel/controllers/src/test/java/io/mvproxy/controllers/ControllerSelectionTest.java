package io.mvproxy.controllers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("unit")
class ControllerSelectionTest {
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "*                                   | namespace-controller,garbage-collector-controller,serviceaccount-controller",
      "*,-garbagecollector                 | namespace-controller,serviceaccount-controller",
      "*,-garbage-collector-controller,-serviceaccount | namespace-controller",
      "serviceaccount-controller,namespace | namespace-controller,serviceaccount-controller",
      "namespace                           | namespace-controller",
      "-namespace                          | ''",
      "garbage-collector-controller        | garbage-collector-controller",
      "''                                  | ''",
      "*,-namespace,-garbagecollector,-serviceaccount-controller | ''"})
  void resolvesAsKubeControllerManager(String flag, String expected) {
    Set<String> got = ControllerSelection.enabled(List.of(flag.split(",")));
    assertEquals(expected.isEmpty() ? List.of() : List.of(expected.split(",")), List.copyOf(got));
  }

  @ParameterizedTest
  @CsvSource({"replicaset", "-cronjob"})
  void unknownNamesAreRejected(String flag) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ControllerSelection.enabled(List.of("*", flag)));
    assertTrue(e.getMessage().contains("is not in the list of known controllers"), e.getMessage());
  }
}

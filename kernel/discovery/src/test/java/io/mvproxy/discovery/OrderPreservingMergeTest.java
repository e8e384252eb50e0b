package io.mvproxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@Tag("unit")
class OrderPreservingMergeTest {
  static Stream<Arguments> vectors() {
    return Stream.of(
        Arguments.of("ABCD ABCD AXZD ZY Q", "ABCQXZDY"),
        Arguments.of("AB BA", "AB"),
        Arguments.of("CDE BDE ADE", "ABCDE"),
        Arguments.of("ADE ACE ABE", "ABCDE"),
        Arguments.of("ABC BCA CAB", "ABC"),
        Arguments.of("ABCD BA CD", "ABCD"),
        Arguments.of("AB CD BA", "ABCD"),
        Arguments.of("AB BC CA", "ABC"),
        Arguments.of("_ ABC", "ABC"),
        Arguments.of("", ""),
        // extra: a list holding every item is returned as is even if not lexicographic
        Arguments.of("DCBA CA", "DCBA"),
        // extra: single list
        Arguments.of("ZYX", "ZYX"));
  }

  /** Lists are space-separated strings of one-letter items; {@code _} is an empty list. */
  @ParameterizedTest(name = "[{0}] -> {1}")
  @MethodSource("vectors")
  void specVectors(String lists, String expected) {
    List<List<String>> in = new ArrayList<>();
    for (String l : lists.isEmpty() ? new String[0] : lists.split(" ")) {
      in.add(l.equals("_") ? List.of() : Arrays.asList(l.split("")));
    }
    List<String> want = expected.isEmpty() ? List.of() : Arrays.asList(expected.split(""));
    assertEquals(want, OrderPreservingMerge.merge(in));
  }
}

package io.mvproxy.registry.impl.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.schema.GoValues;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link StrategicMergePatch} against upstream's own cases ({@code strategicpatch/upstream-cases.json}, extracted from
 * apimachinery v0.33.0 {@code patch_test.go}, run against the same {@code MergeItem} struct tags), plus the tags of
 * the built-in kinds (ObjectMeta, RBAC, ConfigMap) as kubectl's patches exercise them.
 */
@Tag("unit")
class StrategicMergePatchTest {
  /** The tags of upstream's test types {@code MergeItem} and {@code RetainKeysMergeItem} (recursive). */
  static final PatchMeta MERGE_ITEM;

  static {
    Map<String, PatchMeta> item = new HashMap<>();
    Map<String, PatchMeta> retainKeysItem = new HashMap<>();
    item.put("mergingList", new PatchMeta("merge", "name", item));
    item.put("nonMergingList", new PatchMeta("", "", item));
    item.put("mergingIntList", new PatchMeta("merge", "", Map.of()));
    item.put("mergeItemPtr", new PatchMeta("merge", "name", item));
    item.put("replacingItem", new PatchMeta("replace", "", Map.of()));
    item.put("retainKeysMap", new PatchMeta("retainKeys", "", retainKeysItem));
    item.put("retainKeysMergingList", new PatchMeta("merge,retainKeys", "name", item));
    retainKeysItem.put("mergingIntList", new PatchMeta("merge", "", Map.of()));
    retainKeysItem.put("mergingList", new PatchMeta("merge", "name", item));
    retainKeysItem.put("nonMergingList", new PatchMeta("", "", item));
    MERGE_ITEM = new PatchMeta("", "", item);
  }

  static Stream<Arguments> upstreamCases() throws IOException {
    try (InputStream in = StrategicMergePatchTest.class.getResourceAsStream("/strategicpatch/upstream-cases.json")) {
      JsonObject doc = new JsonObject(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      return doc.getJsonArray("cases").stream().map(o -> (JsonObject) o)
          .map(c -> Arguments.of(c.getString("name"), c)).toList().stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamCases")
  void upstream(String name, JsonObject c) {
    JsonObject original = c.getJsonObject("original");
    JsonObject before = original.copy();
    Buffer patch = Buffer.buffer(c.getJsonObject("patch").encode());
    if (c.containsKey("error")) {
      StatusException e = assertThrows(StatusException.class,
          () -> StrategicMergePatch.apply(original, patch, MERGE_ITEM), name);
      assertTrue(e.getMessage().contains(c.getString("error")), name + ": " + e.getMessage());
      return;
    }
    JsonObject out = StrategicMergePatch.apply(original, patch, MERGE_ITEM);
    assertEquals(GoValues.json(c.getJsonObject("result")), GoValues.json(out), name);
    assertEquals(before, original, "the original is not changed");
  }

  static final PatchMeta CONFIG_MAP = PatchMeta.of(PatchMeta.OBJECT_META_TAGS);

  /** Patches as kubectl (apply / patch / edit) sends them for the built-in kinds, and what kube-apiserver stores. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      data merged, key deleted | {"data":{"a":"1","b":"2"}} | {"data":{"a":"5","b":null,"c":"3"}} | {"data":{"a":"5","c":"3"}}
      labels replaced | {"metadata":{"labels":{"a":"1","b":"2"}}} | {"metadata":{"labels":{"$patch":"replace","c":"3"}}} | {"metadata":{"labels":{"c":"3"}}}
      finalizers are a set | {"metadata":{"finalizers":["a","b"]}} | {"metadata":{"finalizers":["c","a"]}} | {"metadata":{"finalizers":["c","a","b"]}}
      finalizer deleted and ordered | {"metadata":{"finalizers":["a","b","c"]}} | {"metadata":{"$setElementOrder/finalizers":["c","a"],"$deleteFromPrimitiveList/finalizers":["b"]}} | {"metadata":{"finalizers":["c","a"]}}
      owner merged by uid | {"metadata":{"ownerReferences":[{"uid":"1","name":"a","kind":"K","apiVersion":"v1"},{"uid":"2","name":"b","kind":"K","apiVersion":"v1"}]}} | {"metadata":{"ownerReferences":[{"uid":"2","controller":true},{"uid":"3","name":"c","kind":"K","apiVersion":"v1"}]}} | {"metadata":{"ownerReferences":[{"uid":"1","name":"a","kind":"K","apiVersion":"v1"},{"uid":"2","name":"b","kind":"K","apiVersion":"v1","controller":true},{"uid":"3","name":"c","kind":"K","apiVersion":"v1"}]}}
      owner deleted | {"metadata":{"ownerReferences":[{"uid":"1","name":"a"},{"uid":"2","name":"b"}]}} | {"metadata":{"ownerReferences":[{"uid":"1","$patch":"delete"}]}} | {"metadata":{"ownerReferences":[{"uid":"2","name":"b"}]}}
      untagged list replaced | {"rules":[{"verbs":["get"],"resources":["pods"]},{"verbs":["list"]}]} | {"rules":[{"verbs":["watch"]}]} | {"rules":[{"verbs":["watch"]}]}
      whole object deleted | {"data":{"a":"1"}} | {"$patch":"delete"} | {}
      retainKeys | {"data":{"a":"1"},"binaryData":{"b":"Yg=="},"immutable":false} | {"$retainKeys":["data","immutable"],"immutable":true} | {"data":{"a":"1"},"immutable":true}
      """)
  void builtInKinds(String name, String original, String patch, String expected) {
    JsonObject out = StrategicMergePatch.apply(new JsonObject(original), Buffer.buffer(patch), CONFIG_MAP);
    assertEquals(GoValues.json(new JsonObject(expected)), GoValues.json(out), name);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      not an object        | [1]                                   | 400 | json: cannot unmarshal array into Go value of type map[string]interface {}
      not JSON             | {"data":                              | 400 | unexpected end of JSON input
      syntax error         | {"data":{"a":1,}}                     | 400 | invalid character '}' looking for beginning of object key string
      bad delete list      | {"$deleteFromPrimitiveListX":["a"]}   | 400 | invalid patch format of primitive list
      bad order list       | {"$setElementOrderfinalizers":["a"]}  | 400 | invalid patch format of setElementOrder list
      retainKeys mismatch  | {"$retainKeys":["a"],"b":"x"}         | 400 | invalid patch format of retainKeys
      unknown directive    | {"$patch":"bogus","a":1}              | 500 | unknown patch type: bogus in map: map[$patch:bogus a:1]
      missing merge key    | {"metadata":{"ownerReferences":[{"name":"x"}]}} | 500 | map: map[name:x] does not contain declared merge key: uid
      list merge directive | {"metadata":{"ownerReferences":[{"uid":"x","$patch":"merge"}]}} | 500 | merging lists cannot yet be specified in the patch
      """)
  void errorsAsKubeApiserver(String name, String patch, int code, String message) {
    JsonObject original = new JsonObject("{\"metadata\":{\"ownerReferences\":[{\"uid\":\"1\"}]}}");
    StatusException e = assertThrows(StatusException.class,
        () -> StrategicMergePatch.apply(original, Buffer.buffer(patch), CONFIG_MAP), name);
    assertEquals(code, e.code(), name);
    assertEquals(message, e.getMessage(), name);
  }

  @Test
  void listOfListsIs422() {
    StatusException e = assertThrows(StatusException.class, () -> StrategicMergePatch.apply(
        new JsonObject("{\"metadata\":{\"finalizers\":[[\"a\"]]}}"),
        Buffer.buffer("{\"metadata\":{\"finalizers\":[[\"b\"]]}}"), CONFIG_MAP));
    assertEquals(422, e.code());
  }
}

package io.mvproxy.registry.impl.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Server-side apply of {@code ObjectMeta}'s associative lists as kube-apiserver's field manager treats them
 * ({@code finalizers} {@code +listType=set}, {@code ownerReferences} {@code +listType=map +listMapKey=uid};
 * structured-merge-diff {@code merge/update.go}, {@code typed/merge.go}): a manager owns the items it applied, an
 * apply keeps other managers' items, and only items the manager dropped are removed.
 */
@Tag("unit")
class FieldManagerTest {
  private static final String AV = "v1";
  private static final java.util.Set<String> NONE = java.util.Set.of();

  private static JsonObject cm(String metadata) {
    return new JsonObject("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\","
        + "\"namespace\":\"ns\"" + (metadata.isEmpty() ? "" : "," + metadata) + "},\"data\":{\"k\":\"v\"}}");
  }

  /** Creates by apply as {@code user}, then lets {@code controller} add through an Update what {@code update} adds. */
  private static JsonObject appliedThenUpdated(String applied, String updated) {
    JsonObject config = cm(applied);
    JsonObject created = config.copy();
    FieldManager.applyCreate(created, config, "user", AV, "", NONE);
    JsonObject next = cm(updated);
    ObjectRules.metadata(next).put("managedFields", ObjectRules.metadata(created).getValue("managedFields"));
    return FieldManager.update(created, next, "controller", AV, "", NONE);
  }

  private static JsonObject fieldsOf(JsonObject o, String manager) {
    for (Object e : ObjectRules.metadata(o).getJsonArray("managedFields")) {
      if (((JsonObject) e).getString("manager").equals(manager)) {
        return ((JsonObject) e).getJsonObject("fieldsV1");
      }
    }
    return null;
  }

  @Test
  void anApplyKeepsAnotherManagersFinalizerAndRemovesOnlyItsOwn() {
    JsonObject live = appliedThenUpdated("\"finalizers\":[\"example.com/a\"]",
        "\"finalizers\":[\"example.com/a\",\"example.com/b\"]");
    assertEquals(new JsonObject("{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"example.com/b\\\"\":{}}}}"),
        fieldsOf(live, "controller"), "the updater owns the item it added, not the list");
    assertEquals(new JsonObject("{\"f:data\":{\"f:k\":{}},\"f:metadata\":{\"f:finalizers\":"
        + "{\"v:\\\"example.com/a\\\"\":{}}}}"), fieldsOf(live, "user"));

    // the user's manifest lists its finalizer only: no conflict, the controller's stays (upstream: a set merges)
    JsonObject same = FieldManager.apply(live, cm("\"finalizers\":[\"example.com/a\"]"), "user", AV, "", false, NONE);
    assertEquals(new JsonArray().add("example.com/a").add("example.com/b"),
        ObjectRules.metadata(same).getJsonArray("finalizers"));
    // the user drops its finalizer: only that item goes, also with force
    JsonObject dropped = FieldManager.apply(live, cm(""), "user", AV, "", true, NONE);
    assertEquals(new JsonArray().add("example.com/b"), ObjectRules.metadata(dropped).getJsonArray("finalizers"));
    // the user adds one: appended after the live items
    JsonObject added = FieldManager.apply(live, cm("\"finalizers\":[\"example.com/a\",\"example.com/c\"]"), "user",
        AV, "", false, NONE);
    assertEquals(new JsonArray().add("example.com/a").add("example.com/b").add("example.com/c"),
        ObjectRules.metadata(added).getJsonArray("finalizers"));
  }

  @Test
  void aFinalizerBothManagersHoldStaysWhenOneDropsIt() {
    JsonObject live = appliedThenUpdated("\"finalizers\":[\"example.com/a\"]",
        "\"finalizers\":[\"example.com/a\",\"example.com/b\"]");
    JsonObject both = FieldManager.apply(live, cm("\"finalizers\":[\"example.com/a\",\"example.com/b\"]"), "user",
        AV, "", false, NONE);
    JsonObject dropped = FieldManager.apply(both, cm("\"finalizers\":[\"example.com/a\"]"), "user", AV, "", false, NONE);
    assertEquals(new JsonArray().add("example.com/a").add("example.com/b"),
        ObjectRules.metadata(dropped).getJsonArray("finalizers"), "the controller still owns example.com/b");
    JsonObject none = FieldManager.apply(dropped, cm(""), "user", AV, "", false, NONE);
    assertEquals(new JsonArray().add("example.com/b"), ObjectRules.metadata(none).getJsonArray("finalizers"));
  }

  @Test
  void ownerReferencesAreOwnedByUidEachAsAWhole() {
    String u1 = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"p1\",\"uid\":\"u1\"}";
    String u2 = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"p2\",\"uid\":\"u2\",\"controller\":true}";
    JsonObject live = appliedThenUpdated("\"ownerReferences\":[" + u1 + "]", "\"ownerReferences\":[" + u1 + "," + u2
        + "]");
    // OwnerReference is a structType=atomic: the item is owned, not its fields
    assertEquals(new JsonObject("{\"f:metadata\":{\"f:ownerReferences\":{\"k:{\\\"uid\\\":\\\"u2\\\"}\":{}}}}"),
        fieldsOf(live, "controller"));

    JsonObject dropped = FieldManager.apply(live, cm(""), "user", AV, "", false, NONE);
    JsonArray refs = ObjectRules.metadata(dropped).getJsonArray("ownerReferences");
    assertEquals(1, refs.size(), refs.encode());
    assertEquals("u2", refs.getJsonObject(0).getString("uid"));

    // changing the controller's item is a conflict on the item, as upstream names it
    String u2off = u2.replace("\"controller\":true", "\"controller\":false");
    StatusException e = assertThrows(StatusException.class, () -> FieldManager.apply(live,
        cm("\"ownerReferences\":[" + u1 + "," + u2off + "]"), "user", AV, "", false, NONE));
    assertEquals(409, e.code());
    assertEquals("Apply failed with 1 conflict: conflict with \"controller\" using v1: "
        + ".metadata.ownerReferences[uid=\"u2\"]", e.getMessage());
    // forced, the applier's item replaces the live one whole
    String u2bare = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"p2\",\"uid\":\"u2\"}";
    JsonObject forced = FieldManager.apply(live, cm("\"ownerReferences\":[" + u1 + "," + u2bare + "]"), "user", AV,
        "", true, NONE);
    assertEquals(new JsonObject(u2bare), ObjectRules.metadata(forced).getJsonArray("ownerReferences").getJsonObject(1));
  }

  @Test
  void aNullListInTheConfigurationKeepsTheLiveItems() {
    JsonObject live = appliedThenUpdated("\"finalizers\":[\"example.com/a\"]",
        "\"finalizers\":[\"example.com/a\",\"example.com/b\"]");
    JsonObject next = FieldManager.apply(live, cm("\"finalizers\":null"), "user", AV, "", false, NONE);
    assertEquals(new JsonArray().add("example.com/b"), ObjectRules.metadata(next).getJsonArray("finalizers"),
        "the controller's item stays; the applier's, no longer applied, goes");
  }

  @Test
  void aNullMapInTheConfigurationKeepsTheLiveKeys() {
    JsonObject live = appliedThenUpdated("\"labels\":{\"team\":\"a\"}", "\"labels\":{\"team\":\"a\",\"ctl\":\"x\"}");
    JsonObject config = cm("\"labels\":null");
    config.put("data", (Object) null);
    JsonObject next = FieldManager.apply(live, config, "other", AV, "", false, NONE);
    assertEquals(new JsonObject("{\"team\":\"a\",\"ctl\":\"x\"}"), ObjectRules.metadata(next).getJsonObject("labels"));
    assertEquals(new JsonObject("{\"k\":\"v\"}"), next.getJsonObject("data"), "an empty data: line keeps the data");
  }

  @Test
  void fieldsTheStrategyResetsAreNeitherOwnedNorAConflict() {
    JsonObject w = new JsonObject("{\"apiVersion\":\"x.io/v1\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},"
        + "\"spec\":{\"color\":\"red\"}}");
    JsonObject created = w.copy();
    FieldManager.applyCreate(created, w, "main", "x.io/v1", "", FieldManager.resetFields("", true));
    JsonObject status = new JsonObject("{\"apiVersion\":\"x.io/v1\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},"
        + "\"spec\":{\"color\":\"blue\"},\"status\":{\"ready\":true}}");
    // a status apply that carries the spec: the status strategy resets spec, so no conflict with "main"
    JsonObject afterStatus = FieldManager.apply(created, status, "st", "x.io/v1", "status", false,
        FieldManager.resetFields("status", true));
    assertEquals(new JsonObject("{\"f:status\":{\"f:ready\":{}}}"), fieldsOf(afterStatus, "st"));
    afterStatus.put("spec", created.getJsonObject("spec")); // the status strategy keeps the stored spec
    // a main apply that carries the status: the main strategy resets status, so no conflict with "st"
    JsonObject main = w.copy().put("status", new JsonObject().put("ready", false));
    JsonObject afterMain = FieldManager.apply(afterStatus, main, "main", "x.io/v1", "", false,
        FieldManager.resetFields("", true));
    assertEquals(new JsonObject("{\"f:spec\":{\"f:color\":{}}}"), fieldsOf(afterMain, "main"));
    assertEquals(java.util.Set.of(), FieldManager.resetFields("scale", true));
    assertEquals(java.util.Set.of(), FieldManager.resetFields("", false));
  }

  @Test
  void aMapAppliedEmptyThenFilledIsStoredFilled() {
    for (String empty : new String[] {"\"labels\":null", "\"labels\":{}"}) {
      JsonObject config = cm(empty);
      JsonObject created = config.copy();
      FieldManager.applyCreate(created, config, "A", AV, "", NONE);
      JsonObject filled = FieldManager.apply(created, cm("\"labels\":{\"app\":\"web\"}"), "A", AV, "", false, NONE);
      assertEquals(new JsonObject("{\"app\":\"web\"}"), ObjectRules.metadata(filled).getJsonObject("labels"), empty);
    }
  }

  @Test
  void resetFieldsInAnApplyAreNotOwnedAtCreateNorAWriteLater() {
    java.util.Set<String> main = FieldManager.resetFields("", true);
    JsonObject w = new JsonObject("{\"apiVersion\":\"x.io/v1\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},"
        + "\"spec\":{\"size\":2},\"status\":{\"ready\":true}}");
    JsonObject created = w.copy();
    FieldManager.applyCreate(created, w, "A", "x.io/v1", "", main);
    assertEquals(new JsonObject("{\"f:spec\":{\"f:size\":{}}}"), fieldsOf(created, "A"), "no f:status at create");
    // the strategy dropped the created status; another manager owns it through /status
    JsonObject live = created.copy();
    live.put("status", new JsonObject().put("ready", false));
    ObjectRules.metadata(live).getJsonArray("managedFields").add(new JsonObject().put("manager", "S")
        .put("operation", "Apply").put("apiVersion", "x.io/v1").put("time", "2026-12-01T00:00:00Z")
        .put("fieldsType", "FieldsV1").put("fieldsV1", new JsonObject("{\"f:status\":{\"f:ready\":{}}}"))
        .put("subresource", "status"));
    ManagedFields.of(live).writeTo(live); // in the order the server writes them
    // an unchanged re-apply carrying a status that differs from the stored one changes nothing
    JsonObject again = FieldManager.apply(live, w, "A", "x.io/v1", "", false, main);
    assertTrue(FieldSet.same(live, again), again.encode());
    // a null inside the reset status takes nothing from S
    JsonObject nulled = w.copy().put("status", new JsonObject().put("ready", (Object) null));
    JsonObject after = FieldManager.apply(live, nulled, "A", "x.io/v1", "", false, main);
    assertEquals(new JsonObject("{\"f:status\":{\"f:ready\":{}}}"), fieldsOf(after, "S"));
  }

  /** A null, or a value of another shape, over another manager's field is a conflict (structured-merge-diff: Modified). */
  @ParameterizedTest(name = "{0} over {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
      "{\"k\":null}|{\"k\":\"s\"}|.spec.any.k",
      "{\"k\":{\"a\":1}}|{\"k\":\"s\"}|.spec.any.k",
      "{\"k\":\"s\"}|{\"k\":{\"z\":1}}|.spec.any.k.z",
      "{\"k\":[1]}|{\"k\":{\"z\":1}}|.spec.any.k.z"})
  void aNullOrAnotherShapeOverAnotherManagersFieldIsAConflict(String mine, String theirs, String path) {
    JsonObject theirConfig = new JsonObject("{\"apiVersion\":\"x.io/v1\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},"
        + "\"spec\":{\"any\":" + theirs + "}}");
    JsonObject live = theirConfig.copy();
    FieldManager.applyCreate(live, theirConfig, "m1", "x.io/v1", "", NONE);
    JsonObject myConfig = theirConfig.copy().put("spec", new JsonObject().put("any", new JsonObject(mine)));
    StatusException e = assertThrows(StatusException.class, () -> FieldManager.apply(live, myConfig, "m2", "x.io/v1", "",
        false, NONE));
    assertEquals("Apply failed with 1 conflict: conflict with \"m1\": " + path, e.getMessage());
    JsonObject forced = FieldManager.apply(live, myConfig, "m2", "x.io/v1", "", true, NONE);
    assertFalse(fieldsOf(forced, "m2") == null);
  }

  @Test
  void aNullOverTheApplierOwnFieldOrAnEmptyMapIsNoConflict() {
    JsonObject config = new JsonObject("{\"apiVersion\":\"x.io/v1\",\"kind\":\"W\",\"metadata\":{\"name\":\"w\"},"
        + "\"spec\":{\"s\":\"x\",\"m\":{}}}");
    JsonObject live = config.copy();
    FieldManager.applyCreate(live, config, "m1", "x.io/v1", "", NONE);
    JsonObject mine = FieldManager.apply(live, new JsonObject(config.encode()).put("spec",
        new JsonObject("{\"s\":null}")), "m1", "x.io/v1", "", false, NONE);
    assertFalse(mine.getJsonObject("spec").containsKey("s"));
    JsonObject other = FieldManager.apply(live, new JsonObject(config.encode()).put("spec",
        new JsonObject("{\"m\":null}")), "m2", "x.io/v1", "", false, NONE);
    assertEquals(new JsonObject(), other.getJsonObject("spec").getJsonObject("m"), "a null map merges as an empty one");
  }

  @Test
  void aConfigurationOfOnlyTheNameRecordsNoManager() {
    JsonObject config = new JsonObject("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"}}");
    JsonObject created = config.copy();
    FieldManager.applyCreate(created, config, "user", AV, "", NONE);
    assertFalse(ObjectRules.metadata(created).containsKey("managedFields"), created.encode());
  }

  @Test
  void aConfigurationHoldingAnItemTwiceIsRefusedAsTheTypedPatch() {
    JsonObject live = appliedThenUpdated("\"finalizers\":[\"example.com/a\"]", "\"finalizers\":[\"example.com/a\"]");
    StatusException e = assertThrows(StatusException.class, () -> FieldManager.apply(live,
        cm("\"finalizers\":[\"x.io/a\",\"x.io/a\"]"), "user", AV, "", false, NONE));
    assertEquals(500, e.code());
    assertEquals(null, e.reason());
    assertEquals("failed to create typed patch object (ns/c; /v1, Kind=ConfigMap): .metadata.finalizers: duplicate "
        + "entries for key [=\"x.io/a\"]", e.getMessage());
    StatusException two = assertThrows(StatusException.class, () -> FieldManager.applyCreate(cm(""), cm(
        "\"finalizers\":[\"x.io/a\",\"x.io/a\"],\"ownerReferences\":[{\"uid\":\"u\"},{\"uid\":\"u\"}]"), "user", AV, "", NONE));
    assertTrue(two.getMessage().endsWith("): errors:\n  .metadata.ownerReferences: duplicate entries for key "
        + "[uid=\"u\"]\n  .metadata.finalizers: duplicate entries for key [=\"x.io/a\"]"), two.getMessage());
  }

  @Test
  void itemsTheLiveListHoldsTwiceStayWhenAnotherManagerApplies() {
    JsonObject live = cm("\"finalizers\":[\"x.io/a\",\"x.io/a\",\"x.io/c\"]");
    JsonObject next = FieldManager.apply(live, cm("\"finalizers\":[\"y.io/b\"]"), "m2", AV, "", false, NONE);
    assertEquals(new JsonArray().add("x.io/a").add("x.io/a").add("x.io/c").add("y.io/b"),
        ObjectRules.metadata(next).getJsonArray("finalizers"));
    JsonObject taken = FieldManager.apply(live, cm("\"finalizers\":[\"x.io/a\"]"), "m2", AV, "", true, NONE);
    assertEquals(new JsonArray().add("x.io/a").add("x.io/c"), ObjectRules.metadata(taken).getJsonArray("finalizers"),
        "an item held twice that the configuration has becomes its one item");
  }

  @Test
  void aWholeListOwnedBeforeIsReadAsItsItems() {
    // as this server recorded a list before it owned items: "f:finalizers": {}
    JsonObject live = cm("\"finalizers\":[\"example.com/a\",\"example.com/b\"],\"managedFields\":[{\"manager\":"
        + "\"user\",\"operation\":\"Apply\",\"apiVersion\":\"v1\",\"time\":\"2026-12-01T00:00:00Z\","
        + "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:data\":{\"f:k\":{}},\"f:metadata\":{\"f:finalizers\":{}}}}]");
    JsonObject next = FieldManager.apply(live, cm("\"finalizers\":[\"example.com/a\"]"), "user", AV, "", false, NONE);
    assertEquals(new JsonArray().add("example.com/a"), ObjectRules.metadata(next).getJsonArray("finalizers"));
    assertEquals(new JsonObject("{\"f:data\":{\"f:k\":{}},\"f:metadata\":{\"f:finalizers\":"
        + "{\"v:\\\"example.com/a\\\"\":{}}}}"), fieldsOf(next, "user"));
  }

  /** The item order of structured-merge-diff's merge: live items stay, shared ones in the configuration's order. */
  @ParameterizedTest(name = "live {0} + config {1} = {2}")
  @CsvSource(delimiter = '|', value = {
      "a,b|c|a,b,c",
      "a,b,c|c,a|b,c,a",
      "a,b|b|a,b",
      "a|b,a|b,a",
      "a,b,c|b,d|a,b,c,d"})
  void setItemsMergeInStructuredMergeDiffsOrder(String live, String config, String want) {
    JsonObject l = cm("\"finalizers\":" + list(live));
    JsonObject c = cm("\"finalizers\":" + list(config));
    JsonObject merged = PatchApplier.merge(l, c);
    FieldManager.mergeAssociative(merged, l, c);
    assertEquals(new JsonArray(list(want)), ObjectRules.metadata(merged).getJsonArray("finalizers"));
  }

  private static String list(String csv) {
    return new JsonArray(java.util.Arrays.stream(csv.split(",")).map(s -> "x.io/" + s).toList()).encode();
  }

  @Test
  void conflictPathsPrintAsFieldpath() {
    assertEquals(".metadata.finalizers[=\"x.io/a\\\"b\"]", FieldSet.print(java.util.List.of("metadata", "finalizers",
        FieldSet.ITEM + "v:" + io.vertx.core.json.Json.encode("x.io/a\"b"))));
    assertEquals(".spec.x", FieldSet.print(java.util.List.of("spec", "x")));
  }
}

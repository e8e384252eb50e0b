package io.mvproxy.registry.impl.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mvproxy.api.StatusException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * JSON patches ({@code application/json-patch+json}) as kube-apiserver applies them with
 * {@code gopkg.in/evanphx/json-patch.v4} ({@code handlers/patch.go jsonPatcher.applyJSPatch}): each row a patch of
 * {@code {"metadata":{"labels":{"a":"1"}},"data":{"k":"v"},"l":["x","y"]}} and the result, or the status code (422 with the fixed
 * text of {@code NewGenericServerResponse}, 400 for a patch that is not a list).
 */
@Tag("unit")
class JsonPatchTest {
  private static final JsonObject TARGET = new JsonObject("{\"metadata\":{\"labels\":{\"a\":\"1\"}},\"data\":{\"k\":\"v\"},"
      + "\"l\":[\"x\",\"y\"]}");

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
      // v4's replace of an absent key of an existing object sets it (partialDoc.get returns no error)
      "[{\"op\":\"replace\",\"path\":\"/metadata/labels/team\",\"value\":\"x\"}]|"
          + "{\"metadata\":{\"labels\":{\"a\":\"1\",\"team\":\"x\"}},\"data\":{\"k\":\"v\"},\"l\":[\"x\",\"y\"]}",
      "[{\"op\":\"remove\",\"path\":\"/metadata/labels/a\"}]|{\"metadata\":{\"labels\":{}},\"data\":{\"k\":\"v\"},"
          + "\"l\":[\"x\",\"y\"]}",
      // v4's remove of an absent key fails: Unable to remove nonexistent key
      "[{\"op\":\"remove\",\"path\":\"/metadata/labels/team\"}]|422",
      "[{\"op\":\"replace\",\"path\":\"/nope/x\",\"value\":1}]|422",
      "[{\"op\":\"bogus\",\"path\":\"/data\"}]|422",
      "[{\"op\":\"test\",\"path\":\"/data/k\",\"value\":\"other\"}]|422",
      "{\"op\":\"add\"}|400",
      "[1]|400",
      // an index zjsonpatch cannot read is 422, never 500 (json-patch v4 also takes negative indexes: not done)
      "[{\"op\":\"remove\",\"path\":\"/l/-1\"}]|422",
      "[{\"op\":\"remove\",\"path\":\"/l/abc\"}]|422",
      "[{\"op\":\"remove\",\"path\":\"/l/01\"}]|422",
      "null|{\"metadata\":{\"labels\":{\"a\":\"1\"}},\"data\":{\"k\":\"v\"},\"l\":[\"x\",\"y\"]}"})
  void appliesAsJsonPatchV4(String patch, String expected) {
    PatchApplier applier = new PatchApplier();
    if (expected.length() == 3) {
      StatusException e = assertThrows(StatusException.class,
          () -> applier.apply(PatchApplier.Type.JSON, TARGET, Buffer.buffer(patch)));
      assertEquals(Integer.parseInt(expected), e.code());
      if (e.code() == 422) {
        assertEquals("the server rejected our request due to an error in our request", e.getMessage());
      }
      return;
    }
    assertEquals(new JsonObject(expected), applier.apply(PatchApplier.Type.JSON, TARGET, Buffer.buffer(patch)));
  }
}

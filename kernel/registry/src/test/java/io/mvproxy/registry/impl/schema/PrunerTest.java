package io.mvproxy.registry.impl.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link Pruner}'s null pruning ({@code defaulting/prunenulls.go PruneNonNullableNullsWithoutDefaults}): a null is
 * dropped only from an object field whose schema is non-nullable without a default, at any depth; nulls with no
 * schema below them (preserved unknown fields) and array elements stay.
 */
@Tag("unit")
class PrunerTest {
  private static final SchemaNode SCHEMA = new SchemaNode(new JsonObject("""
      {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "strict": {"type": "string"},
        "nullableText": {"type": "string", "nullable": true},
        "withDefault": {"type": "string", "default": "d"},
        "nullDefault": {"type": "string", "default": null},
        "items": {"type": "array", "items": {"type": "object", "properties": {
          "a": {"type": "string"}, "b": {"type": "string", "nullable": true}}}},
        "names": {"type": "array", "items": {"type": "string"}},
        "byName": {"type": "object", "additionalProperties": {"type": "string"}},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
          "properties": {"known": {"type": "string"}}}
      }}}}"""));

  @Test
  void dropsOnlyNonNullableNullsWithoutDefault() {
    JsonObject o = new JsonObject("""
        {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "n"}, "spec": {
          "strict": null, "nullableText": null, "withDefault": null, "nullDefault": null,
          "items": [{"a": null, "b": null}, null],
          "names": [null, "a"],
          "byName": {"k": null, "l": "v"},
          "free": {"known": null, "other": null, "deep": {"x": null, "list": [null, {"y": null}]}}
        }}""");
    assertEquals(List.of(), Pruner.prune(o, SCHEMA));
    assertEquals(new JsonObject("""
        {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "n"}, "spec": {
          "nullableText": null, "withDefault": null,
          "items": [{"b": null}, null],
          "names": [null, "a"],
          "byName": {"l": "v"},
          "free": {"other": null, "deep": {"x": null, "list": [null, {"y": null}]}}
        }}"""), o);
  }

  /** Unknown fields of ObjectMeta and of its OwnerReferences are dropped and reported, as the typed decoder does. */
  @Test
  void dropsUnknownMetadataAndOwnerReferenceFields() {
    JsonObject o = new JsonObject("""
        {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "n", "bogus": 1, "ownerReferences": [
          {"apiVersion": "v1", "kind": "ConfigMap", "name": "p", "uid": "u", "controller": true, "foo": "bar"},
          {"apiVersion": "v1", "kind": "ConfigMap", "name": "q", "uid": "w", "blockOwnerDeletion": true}]}}""");
    assertEquals(List.of("metadata.bogus", "metadata.ownerReferences[0].foo"), Pruner.prune(o, SCHEMA));
    assertEquals(new JsonObject("""
        {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "n", "ownerReferences": [
          {"apiVersion": "v1", "kind": "ConfigMap", "name": "p", "uid": "u", "controller": true},
          {"apiVersion": "v1", "kind": "ConfigMap", "name": "q", "uid": "w", "blockOwnerDeletion": true}]}}"""), o);
  }
}

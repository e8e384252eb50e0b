package io.mvproxy.registry.impl.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mvproxy.registry.impl.schema.FieldError;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link ObjectMetaValidator} against the cases and message texts of apimachinery v0.33.0
 * {@code pkg/api/validation/objectmeta_test.go} and {@code pkg/util/validation/validation_test.go}.
 */
@Tag("unit")
class ObjectMetaValidatorTest {
  static final String NAME_PART = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
      + "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
      + "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  static final String LABEL_VALUE = "a valid label must be an empty string or consist of alphanumeric characters, "
      + "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
      + "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

  static String errors(List<FieldError> errs) {
    return errs.stream().map(FieldError::error).collect(Collectors.joining(" | "));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      valid                | {"labels":{"a":"b","example.com/MyName":"","x_y.z-1":"v.1"},"annotations":{"Example.COM/Key":"any value at all"},"finalizers":["kubernetes","example.com/f"],"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"u1","controller":true},{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"u2"}]} | ``
      label key            | {"labels":{"bad key!":"ok"}} | `metadata.labels: Invalid value: "bad key!": NAME_PART`
      label value          | {"labels":{"k":"bad value with spaces"}} | `metadata.labels: Invalid value: "bad value with spaces": LABEL_VALUE`
      long label value     | {"labels":{"k":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}} | `metadata.labels: Invalid value: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": must be no more than 63 characters`
      empty prefix         | {"labels":{"/a":"b"}} | `metadata.labels: Invalid value: "/a": prefix part must be non-empty`
      bad prefix           | {"labels":{"Ex_ample/a":"b"}} | `metadata.labels: Invalid value: "Ex_ample/a": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
      two slashes          | {"annotations":{"also bad/key/x":"v"}} | `metadata.annotations: Invalid value: "also bad/key/x": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`
      empty name part      | {"annotations":{"a.io/":"v"}} | `metadata.annotations: Invalid value: "a.io/": name part must be non-empty | metadata.annotations: Invalid value: "a.io/": NAME_PART`
      bad finalizer        | {"finalizers":["bad finalizer"]} | `metadata.finalizers: Invalid value: "bad finalizer": NAME_PART`
      both gc finalizers   | {"finalizers":["orphan","foregroundDeletion"]} | `metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set`
      empty owner          | {"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"","uid":""}]} | `metadata.ownerReferences.name: Invalid value: "": name must not be empty | metadata.ownerReferences.uid: Invalid value: "": uid must not be empty`
      owner no version     | {"ownerReferences":[{"apiVersion":"","kind":"","name":"n","uid":"u"}]} | `metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty | metadata.ownerReferences.kind: Invalid value: "": kind must not be empty`
      two controllers      | {"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"1","controller":true},{"apiVersion":"v1","kind":"Secret","name":"b","uid":"2","controller":true}]} | `metadata.ownerReferences: Invalid value: [{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"1","controller":true},{"apiVersion":"v1","kind":"Secret","name":"b","uid":"2","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for ConfigMap/a and Secret/b`
      event owner          | {"ownerReferences":[{"apiVersion":"v1","kind":"Event","name":"e","uid":"1"}]} | `metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"1"}: /v1, Kind=Event is disallowed from being an owner`
      negative generation  | {"generation":-1} | `metadata.generation: Invalid value: -1: must be greater than or equal to 0`
      """)
  void createChecks(String name, String meta, String expected) {
    String want = expected == null ? "" : expected.replace("NAME_PART", NAME_PART).replace("LABEL_VALUE", LABEL_VALUE);
    assertEquals(want, errors(ObjectMetaValidator.validate(new JsonObject(meta))), name);
  }

  /** apimachinery's {@code maskTrailingDash} as upstream has it (the two last characters become "a"). */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      no dash      | abc   | abc
      trailing     | abc-  | aba
      lone dash    | -     | -
      two dashes   | a--   | aa
      inner dash   | a-b   | a-b
      """)
  void maskTrailingDash(String name, String prefix, String masked) {
    assertEquals(masked, ObjectMetaValidator.maskTrailingDash(prefix), name);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      annotations at limit   | 262144 | ``
      annotations over limit | 262145 | `metadata.annotations: Too long: may not be more than 262144 bytes`
      """)
  void totalAnnotationSize(String name, int totalBytes, String expected) {
    // key "k" (1 byte) plus a value of totalBytes - 1 bytes, in two-byte characters where possible
    int valueBytes = totalBytes - 1;
    String value = "\u00e9".repeat(valueBytes / 2) + "x".repeat(valueBytes % 2);
    JsonObject meta = new JsonObject().put("annotations", new JsonObject().put("k", value));
    assertEquals(expected == null ? "" : expected, errors(ObjectMetaValidator.validate(meta)), name);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      unchanged                   | {"finalizers":["a"]}                                 | {"finalizers":["a"]} | ``
      finalizer added, deleting   | {"finalizers":["a"],"deletionTimestamp":"2026-01-01T00:00:00Z"} | {"finalizers":["a","c","b"]} | `metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b", "c"}`
      finalizer removed, deleting | {"finalizers":["a"],"deletionTimestamp":"2026-01-01T00:00:00Z"} | {"finalizers":[]} | ``
      generation decremented      | {"generation":3} | {"generation":2} | `metadata.generation: Invalid value: 2: must not be decremented`
      invalid label on update     | {} | {"labels":{"bad key!":"v"}} | `metadata.labels: Invalid value: "bad key!": NAME_PART`
      """)
  void updateChecks(String name, String oldMeta, String meta, String expected) {
    String want = expected == null ? "" : expected.replace("NAME_PART", NAME_PART);
    assertEquals(want, errors(ObjectMetaValidator.validateUpdate(new JsonObject(meta), new JsonObject(oldMeta))),
        name);
  }
}

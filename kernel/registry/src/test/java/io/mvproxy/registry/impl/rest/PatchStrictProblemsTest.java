package io.mvproxy.registry.impl.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.buffer.Buffer;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A patch body's own strict problems, as patch.go's kjson.UnmarshalStrict finds them (fieldValidation Warn/Strict). */
@Tag("unit")
class PatchStrictProblemsTest {
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(delimiter = '|', value = {
      "JSON      | [{\"op\":\"add\",\"path\":\"/a\",\"value\":1,\"foo\":2}]  | json patch unknown field \"[0].foo\"",
      "JSON      | [{\"op\":\"add\",\"op\":\"add\",\"path\":\"/a\",\"value\":1}] | json patch duplicate field \"[0].op\"",
      "JSON      | [{\"op\":\"add\",\"path\":\"/a\",\"value\":{\"b\":1,\"b\":2}}] | json patch duplicate field \"[0].value.b\"",
      "MERGE     | {\"spec\":{\"a\":1,\"a\":2}}                             | duplicate field \"spec.a\"",
      "STRATEGIC | {\"data\":{\"m\":\"1\",\"m\":\"2\"}}                    | duplicate field \"data.m\"",
      "APPLY     | {\"data\":{\"m\":\"1\",\"m\":\"2\"}}                    | ''",
      "MERGE     | {\"spec\":                                              | ''",
  })
  void problems(PatchApplier.Type type, String body, String want) {
    assertEquals(want.isEmpty() ? List.of() : List.of(want), PatchApplier.strictProblems(type, Buffer.buffer(body)));
  }
}

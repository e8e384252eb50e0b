package io.mvproxy.registry.impl.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mvproxy.api.StatusException;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link DeleteOptionsReader}: query decoding, body precedence and ValidateDeleteOptions, as a table. */
@Tag("unit")
class DeleteOptionsReaderTest {
  private static final String INVALID = "DeleteOptions.meta.k8s.io \"\" is invalid: ";
  private static final String SIDEWAYS = "propagationPolicy: Unsupported value: \"Sideways\": supported values: "
      + "\"Foreground\", \"Background\", \"Orphan\", \"nil\"";
  private static final String BOTH = "propagationPolicy: Invalid value: \"Orphan\": orphanDependents and "
      + "deletionPropagation cannot be both set";

  /** A query (or body, when set), and either the options read or the status code and message. */
  record Case(String query, String body, String want, int code, String message) {
  }

  @Test
  void table() {
    List<Case> cases = List.of(
        new Case("", null, "{}", 0, null),
        new Case("pretty=true&timeout=5s", null, "{}", 0, null),
        new Case("propagationPolicy=Orphan", null, "{\"propagationPolicy\":\"Orphan\"}", 0, null),
        new Case("propagationPolicy=Foreground&propagationPolicy=Orphan", null,
            "{\"propagationPolicy\":\"Foreground\"}", 0, null),
        new Case("gracePeriodSeconds=30", null, "{\"gracePeriodSeconds\":30}", 0, null),
        new Case("gracePeriodSeconds=-1", null, "{\"gracePeriodSeconds\":-1}", 0, null),
        new Case("orphanDependents=true", null, "{\"orphanDependents\":true}", 0, null),
        new Case("orphanDependents=FALSE", null, "{\"orphanDependents\":false}", 0, null),
        new Case("orphanDependents=0", null, "{\"orphanDependents\":false}", 0, null),
        new Case("orphanDependents=yes", null, "{\"orphanDependents\":true}", 0, null),
        new Case("dryRun=All", null, "{\"dryRun\":[\"All\"]}", 0, null),
        new Case("gracePeriodSeconds=abc", null, null, 400, "strconv.ParseInt: parsing \"abc\": invalid syntax"),
        new Case("gracePeriodSeconds=", null, null, 400, "strconv.ParseInt: parsing \"\": invalid syntax"),
        new Case("gracePeriodSeconds=1.5&propagationPolicy=Sideways", null, null, 400,
            "strconv.ParseInt: parsing \"1.5\": invalid syntax"),
        new Case("propagationPolicy=Sideways", null, null, 422, INVALID + SIDEWAYS),
        new Case("propagationPolicy=", null, null, 422, INVALID + SIDEWAYS.replace("Sideways", "")),
        new Case("orphanDependents=true&propagationPolicy=Orphan", null, null, 422, INVALID + BOTH),
        new Case("dryRun=x", null, null, 422,
            INVALID + "dryRun: Unsupported value: []string{\"x\"}: supported values: \"All\""),
        new Case("propagationPolicy=Sideways&dryRun=All&dryRun=y", null, null, 422, INVALID + "[" + SIDEWAYS
            + ", dryRun: Unsupported value: []string{\"All\", \"y\"}: supported values: \"All\"]"),
        // a body is used as it is, the query ignored
        new Case("propagationPolicy=Sideways&gracePeriodSeconds=abc", "{\"propagationPolicy\":\"Orphan\"}",
            "{\"propagationPolicy\":\"Orphan\"}", 0, null),
        new Case("propagationPolicy=Orphan", "{}", "{}", 0, null),
        new Case("", "{\"propagationPolicy\":\"Sideways\"}", null, 422, INVALID + SIDEWAYS),
        new Case("", "{\"orphanDependents\":false,\"propagationPolicy\":\"Orphan\"}", null, 422, INVALID + BOTH));
    for (Case c : cases) {
      MultiMap query = MultiMap.caseInsensitiveMultiMap();
      if (!c.query().isEmpty()) {
        for (String kv : c.query().split("&")) {
          int eq = kv.indexOf('=');
          query.add(kv.substring(0, eq), kv.substring(eq + 1));
        }
      }
      JsonObject body = c.body() == null ? null : new JsonObject(c.body());
      if (c.want() != null) {
        assertEquals(new JsonObject(c.want()), DeleteOptionsReader.read(body, query), c.toString());
      } else {
        StatusException e = assertThrows(StatusException.class, () -> DeleteOptionsReader.read(body, query),
            c.toString());
        assertEquals(c.code(), e.code(), c.toString());
        assertEquals(c.message(), e.getMessage(), c.toString());
      }
    }
  }
}

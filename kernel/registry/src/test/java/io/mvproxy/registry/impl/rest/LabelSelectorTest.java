package io.mvproxy.registry.impl.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link LabelSelector} against apimachinery's {@code labels.Parse}: each bad selector's error text, traced through
 * upstream's lexer and parser ({@code pkg/labels/selector.go}, 1.33), and the matching of every operator.
 */
@Tag("unit")
class LabelSelectorTest {
  static final String NAME_RULE = "name part must consist of alphanumeric characters, '-', '_' or '.', and must "
      + "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
      + "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  static final String VALUE_RULE = "a valid label must be an empty string or consist of alphanumeric characters, "
      + "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
      + "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  static final String R = "unable to parse requirement: ";

  record Bad(String selector, String message) {
  }

  @Test
  void errorsReadAsUpstream() {
    List<Bad> cases = List.of(
        new Bad("tier in (gold", R + "found '', expected: ',' or ')'"),
        new Bad("a===b", R + "found '=', expected: identifier"),
        new Bad("a=b=c", "found '=', expected: ',' or 'end of string'"),
        new Bad("!!", R + "found '!', expected: identifier"),
        new Bad("!", R + "found '', expected: identifier"),
        new Bad("x in (", R + "found '', expected: ',', ')' or identifier"),
        new Bad("x in (a b)", R + "found 'b', expected: ',' or ')'"),
        new Bad("x in (a,=)", R + "found '=', expected: ',', or identifier"),
        new Bad("=", "found '=', expected: !, identifier, or 'end of string'"),
        new Bad("(", "found '(', expected: !, identifier, or 'end of string'"),
        new Bad("a b", R + "found 'b', expected: in, notin, =, ==, !=, gt, lt"),
        new Bad("bad key!=x", R + "found 'key', expected: in, notin, =, ==, !=, gt, lt"),
        new Bad("x notin", R + "found '' expected: '('"),
        new Bad("x in", R + "found '' expected: '('"),
        new Bad("a,", "found '', expected: identifier after ','"),
        new Bad("a,,b", "found ',', expected: identifier after ','"),
        new Bad("a=(b)", R + "found '(', expected: identifier"),
        new Bad("a=b c", "found 'c', expected: ',' or 'end of string'"),
        new Bad("-a=b", R + "<nil>: Invalid value: \"-a\": " + NAME_RULE),
        new Bad("k=" + "v".repeat(64), R + "values[0][k]: Invalid value: \"" + "v".repeat(64)
            + "\": must be no more than 63 characters"),
        new Bad("a>b", R + "values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer"),
        new Bad("a in (-y,-x)", R + "[values[0][a]: Invalid value: \"-x\": " + VALUE_RULE
            + ", values[1][a]: Invalid value: \"-y\": " + VALUE_RULE + "]"));
    for (Bad c : cases) {
      StatusException e = assertThrows(StatusException.class, () -> LabelSelector.parse(c.selector()), c.selector());
      assertEquals(StatusReason.BadRequest, e.reason(), c.selector());
      assertEquals(c.message(), e.getMessage(), c.selector());
    }
  }

  record Match(String selector, JsonObject labels, boolean selected) {
  }

  @Test
  void everyOperatorMatchesAsUpstream() {
    JsonObject web = new JsonObject().put("tier", "web").put("n", "6").put("a", "in");
    JsonObject none = new JsonObject();
    List<Match> cases = List.of(
        new Match("", web, true), new Match("  ", none, true),
        new Match("tier=web", web, true), new Match("tier==web", web, true), new Match("tier!=web", web, false),
        new Match("tier!=web", none, true), new Match("tier in (db,web)", web, true),
        new Match("tier notin (db,web)", web, false), new Match("tier notin (db)", none, true),
        new Match("tier", web, true), new Match("!tier", web, false), new Match("!tier", none, true),
        new Match("n>5", web, true), new Match("n>6", web, false), new Match("n<7", web, true),
        new Match("tier>1", web, false), new Match("n>5", none, false),
        new Match("a in (in)", web, true), new Match("a=in", web, true), new Match("a notin (notin)", web, true),
        new Match("tier in (foo,,web),n,a notin ()", web, true), new Match("tier=", web, false),
        new Match("tier in (web),n>5,!missing", web, true), new Match("tier=web,n<5", web, false));
    for (Match m : cases) {
      JsonObject o = new JsonObject().put("metadata", new JsonObject().put("labels", m.labels()));
      assertEquals(m.selected(), LabelSelector.parse(m.selector()).matches(o), m.selector() + " on " + m.labels());
    }
  }
}

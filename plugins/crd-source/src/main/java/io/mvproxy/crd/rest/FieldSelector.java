package io.mvproxy.crd.rest;

import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A parsed {@code fieldSelector} supporting the fields custom resources support
 * ({@code apiextensions-apiserver/pkg/registry/customresource/strategy.go}): {@code metadata.name} and
 * {@code metadata.namespace}, with {@code =}, {@code ==} and {@code !=}.
 */
public final class FieldSelector {
  private record Term(String field, boolean equal, String value) {
  }

  private final List<Term> terms;

  private FieldSelector(List<Term> terms) {
    this.terms = terms;
  }

  /**
   * @param text the selector, null or blank for "everything"
   * @return the selector
   * @throws StatusException 400 BadRequest for bad syntax or an unsupported field
   */
  public static FieldSelector parse(String text) {
    List<Term> out = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return new FieldSelector(out);
    }
    for (String raw : text.split(",")) {
      String t = raw.trim();
      int i;
      int len;
      boolean eq;
      if ((i = t.indexOf("!=")) > 0) {
        len = 2;
        eq = false;
      } else if ((i = t.indexOf("==")) > 0) {
        len = 2;
        eq = true;
      } else if ((i = t.indexOf('=')) > 0) {
        len = 1;
        eq = true;
      } else {
        throw StatusException.badRequest("invalid selector: '" + text + "'; can't understand '" + t + "'");
      }
      String field = t.substring(0, i).trim();
      if (!"metadata.name".equals(field) && !"metadata.namespace".equals(field)) {
        throw StatusException.badRequest("\"" + field + "\" is not a known field selector: only \"metadata.name\", "
            + "\"metadata.namespace\"");
      }
      out.add(new Term(field, eq, t.substring(i + len).trim()));
    }
    return new FieldSelector(out);
  }

  /**
   * @param field {@code metadata.name} or {@code metadata.namespace}
   * @return the value required with {@code =} on that field, or null
   */
  public String equalValue(String field) {
    return terms.stream().filter(t -> t.equal() && t.field().equals(field)).map(Term::value).findFirst()
        .orElse(null);
  }

  /** @return true when the selector has no term */
  public boolean isEmpty() {
    return terms.isEmpty();
  }

  /** @return true when every term holds for {@code object} */
  public boolean matches(JsonObject object) {
    JsonObject meta = object.getJsonObject("metadata", new JsonObject());
    for (Term t : terms) {
      String v = meta.getString(t.field().substring("metadata.".length()), "");
      if (t.equal() != v.equals(t.value())) {
        return false;
      }
    }
    return true;
  }
}

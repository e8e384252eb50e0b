package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A parsed {@code fieldSelector} with {@code =}, {@code ==} and {@code !=}: on {@code metadata.name} and
 * {@code metadata.namespace}, as custom resources support
 * ({@code apiextensions-apiserver/pkg/registry/customresource/strategy.go}), plus the fields a built-in kind
 * selects by ({@link ObjectStrategy#selectableFields}).
 */
public final class FieldSelector {
  private record Term(String field, String path, boolean equal, String value) {
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
    return parse(text, null);
  }

  /**
   * @param text   the selector, null or blank for "everything"
   * @param fields a built-in kind's extra fields (label to dotted path), or null for a custom resource
   * @return the selector
   * @throws StatusException 400 BadRequest for bad syntax or an unsupported field
   */
  public static FieldSelector parse(String text, java.util.Map<String, String> fields) {
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
      String path = "metadata.name".equals(field) || "metadata.namespace".equals(field) ? field
          : fields == null ? null : fields.get(field);
      if (path == null) {
        throw StatusException.badRequest(fields == null ? "\"" + field + "\" is not a known field selector: only "
            + "\"metadata.name\", \"metadata.namespace\"" : "field label not supported: " + field);
      }
      out.add(new Term(field, path, eq, t.substring(i + len).trim()));
    }
    return new FieldSelector(out);
  }

  /**
   * @param name an object name, taken as it is (no selector syntax)
   * @return the selector {@code metadata.name=<name>}
   */
  public static FieldSelector name(String name) {
    return new FieldSelector(List.of(new Term("metadata.name", "metadata.name", true, name)));
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
    for (Term t : terms) {
      String v = valueAt(object, t.path());
      if (t.equal() != v.equals(t.value())) {
        return false;
      }
    }
    return true;
  }

  /** @return the value at a dotted path as text ({@code ""} when absent, as upstream's selectable fields) */
  private static String valueAt(JsonObject object, String path) {
    Object cur = object;
    for (String part : path.split("\\.")) {
      if (!(cur instanceof JsonObject o)) {
        return "";
      }
      cur = o.getValue(part);
    }
    return cur == null || cur instanceof JsonObject || cur instanceof io.vertx.core.json.JsonArray ? ""
        : String.valueOf(cur);
  }
}

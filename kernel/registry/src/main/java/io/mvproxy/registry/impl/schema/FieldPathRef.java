package io.mvproxy.registry.impl.schema;

/**
 * The {@code fieldPath} of a validation rule, checked and normalised as apiextensions-apiserver
 * {@code schema/cel/validation.go ValidFieldPath}: a JSON path of {@code .name} and {@code ['key']} steps relative to
 * the rule's schema, every step a declared property or an additionalProperties key; no array notation.
 */
public final class FieldPathRef {
  private FieldPathRef() {
  }

  /**
   * @param jsonPath the {@code fieldPath} ({@code .spec.replicas}, {@code .labels['a.b']})
   * @param s        the schema of the rule
   * @return the field path it names relative to the rule's value ({@code spec.replicas}, {@code labels[a.b]}), or
   *     null when it does not refer to a valid field
   */
  public static String normalize(String jsonPath, SchemaNode s) {
    String out = null;
    SchemaNode cur = s;
    int i = 0;
    int n = jsonPath.length();
    while (i < n) {
      char c = jsonPath.charAt(i);
      String name;
      boolean key;
      if (c == '.') {
        int j = i + 1;
        while (j < n && jsonPath.charAt(j) != '.' && jsonPath.charAt(j) != '[') {
          j++;
        }
        name = jsonPath.substring(i + 1, j);
        key = false;
        i = j;
      } else if (c == '[' && i + 1 < n && jsonPath.charAt(i + 1) == '\'') {
        int end = jsonPath.indexOf("']", i + 2);
        if (end < 0) {
          return null;
        }
        name = jsonPath.substring(i + 2, end).replace("\\'", "'");
        key = true;
        i = end + 2;
      } else {
        return null;
      }
      if (name.isEmpty() || cur == null) {
        return null;
      }
      SchemaNode next;
      if (cur.properties != null && cur.properties.containsKey(name)) {
        next = cur.properties.get(name);
        out = key && name.contains(".") ? FieldPaths.key(out, name) : FieldPaths.child(out, name);
      } else if (cur.additionalProperties != null) {
        next = cur.additionalProperties;
        out = FieldPaths.key(out, name);
      } else {
        return null;
      }
      cur = next;
    }
    return out;
  }
}

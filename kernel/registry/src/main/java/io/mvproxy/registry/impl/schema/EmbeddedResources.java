package io.mvproxy.registry.impl.schema;

import com.google.re2j.Pattern;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Checks {@code x-kubernetes-embedded-resource} objects below the root as apiextensions-apiserver
 * {@code pkg/apiserver/schema/objectmeta/validation.go}: {@code apiVersion} and {@code kind} required strings,
 * {@code kind} a DNS-1035 label in any case, {@code apiVersion} a group/version, {@code metadata.name} a valid path
 * segment. (The root's own metadata is checked by the object rules.)
 */
public final class EmbeddedResources {
  private static final Pattern DNS1035 = Pattern.compile("^[a-z]([-a-z0-9]*[a-z0-9])?$");

  private EmbeddedResources() {
  }

  /**
   * @param obj the object root
   * @param s   its schema
   * @return the errors (empty when valid)
   */
  public static List<FieldError> validate(JsonObject obj, SchemaNode s) {
    List<FieldError> errs = new ArrayList<>();
    children(null, obj, s, errs);
    return errs;
  }

  private static void walk(String path, Object x, SchemaNode s, List<FieldError> errs) {
    if (s == null) {
      return;
    }
    if (x instanceof JsonObject o) {
      if (s.embeddedResource) {
        embedded(path, o, errs);
      }
      children(path, o, s, errs);
    } else if (x instanceof JsonArray a) {
      for (int i = 0; i < a.size(); i++) {
        walk(FieldPaths.index(path, i), a.getValue(i), s.items, errs);
      }
    }
  }

  private static void children(String path, JsonObject o, SchemaNode s, List<FieldError> errs) {
    o.forEach(e -> {
      SchemaNode p = s.properties != null ? s.properties.get(e.getKey()) : null;
      if (p != null) {
        walk(FieldPaths.child(path, e.getKey()), e.getValue(), p, errs);
      } else if (s.additionalProperties != null) {
        walk(FieldPaths.key(path, e.getKey()), e.getValue(), s.additionalProperties, errs);
      }
    });
  }

  private static void embedded(String path, JsonObject x, List<FieldError> errs) {
    if (!x.containsKey("apiVersion")) {
      errs.add(FieldError.required(FieldPaths.child(path, "apiVersion"), ""));
    }
    if (!x.containsKey("kind")) {
      errs.add(FieldError.required(FieldPaths.child(path, "kind"), ""));
    }
    x.forEach(e -> {
      Object v = e.getValue();
      switch (e.getKey()) {
        case "apiVersion" -> {
          String f = FieldPaths.child(path, "apiVersion");
          if (!(v instanceof String av)) {
            errs.add(FieldError.invalid(f, v, "must be a string"));
          } else if (av.isEmpty()) {
            errs.add(FieldError.invalid(f, av, "must not be empty"));
          } else if (av.chars().filter(c -> c == '/').count() > 1) {
            errs.add(FieldError.invalid(f, av, "unexpected GroupVersion string: " + av));
          }
        }
        case "kind" -> {
          String f = FieldPaths.child(path, "kind");
          if (!(v instanceof String k)) {
            errs.add(FieldError.invalid(f, v, "must be a string"));
          } else if (k.isEmpty()) {
            errs.add(FieldError.invalid(f, k, "must not be empty"));
          } else {
            List<String> msgs = new ArrayList<>();
            String lower = k.toLowerCase(Locale.ROOT);
            if (lower.length() > 63) {
              msgs.add("must be no more than 63 characters");
            }
            if (!DNS1035.matcher(lower).find()) {
              msgs.add("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                  + "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
                  + "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
            }
            if (!msgs.isEmpty()) {
              errs.add(FieldError.invalid(f, k, "may have mixed case, but should otherwise match: "
                  + String.join(",", msgs)));
            }
          }
        }
        case "metadata" -> {
          String f = FieldPaths.child(path, "metadata");
          if (!(v instanceof JsonObject m)) {
            errs.add(FieldError.invalid(f, v, "must be an object"));
          } else if (m.getValue("name") instanceof String name && !name.isEmpty()) {
            String nf = FieldPaths.child(f, "name");
            if (".".equals(name)) {
              errs.add(FieldError.invalid(nf, name, "may not be '.'"));
            } else if ("..".equals(name)) {
              errs.add(FieldError.invalid(nf, name, "may not be '..'"));
            } else if (name.contains("/")) {
              errs.add(FieldError.invalid(nf, name, "may not contain '/'"));
            } else if (name.contains("%")) {
              errs.add(FieldError.invalid(nf, name, "may not contain '%'"));
            }
          }
        }
        default -> { }
      }
    });
  }
}

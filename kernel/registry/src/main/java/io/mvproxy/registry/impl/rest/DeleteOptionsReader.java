package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The DeleteOptions of a DELETE or deletecollection, read as apiserver's {@code endpoints/handlers/delete.go}
 * ({@code DeleteResource}, {@code DeleteCollection}) does: the decoded body when there is one (the query is then
 * ignored), else the query parameters through the parameter codec ({@code autoConvert_url_Values_To_v1_DeleteOptions}:
 * {@code gracePeriodSeconds} with {@code strconv.ParseInt}, {@code orphanDependents} as a Go query bool,
 * {@code propagationPolicy}, every {@code dryRun}); then checked by apimachinery's {@code ValidateDeleteOptions}
 * ({@code apis/meta/v1/validation/validation.go}). Used by custom resources and built-in APIs alike.
 */
public final class DeleteOptionsReader {
  private static final List<String> POLICIES = List.of("Foreground", "Background", "Orphan");

  private DeleteOptionsReader() {
  }

  /**
   * @param body  the decoded DeleteOptions body, or null when the request had no body
   * @param query the request's query parameters
   * @return the validated options (a JSON DeleteOptions; {@code {}} when neither body nor query sets any)
   * @throws StatusException 400 BadRequest with Go's conversion text for a query {@code gracePeriodSeconds} that is
   *     not an integer (e.g. {@code strconv.ParseInt: parsing "abc": invalid syntax}); 422
   *     {@code DeleteOptions.meta.k8s.io "" is invalid: ...} from {@link #validate}
   */
  public static JsonObject read(JsonObject body, MultiMap query) {
    JsonObject opts = body != null ? body : fromQuery(query);
    validate(opts);
    return opts;
  }

  /**
   * @param query query parameters (first value of each counts, all values of {@code dryRun})
   * @return the DeleteOptions they set
   * @throws StatusException 400 BadRequest for a non-integer {@code gracePeriodSeconds}
   */
  public static JsonObject fromQuery(MultiMap query) {
    JsonObject out = new JsonObject();
    String grace = query.get("gracePeriodSeconds");
    if (grace != null) {
      try {
        out.put("gracePeriodSeconds", GoParseInt.parse(grace));
      } catch (IllegalArgumentException e) {
        throw StatusException.badRequest(e.getMessage());
      }
    }
    String orphan = query.get("orphanDependents");
    if (orphan != null) {
      // runtime.Convert_Slice_string_To_bool: "0" and "false" (any case) are false, anything else true
      out.put("orphanDependents", !("0".equals(orphan) || "false".equalsIgnoreCase(orphan)));
    }
    String policy = query.get("propagationPolicy");
    if (policy != null) {
      out.put("propagationPolicy", policy);
    }
    List<String> dryRun = query.getAll("dryRun");
    if (!dryRun.isEmpty()) {
      out.put("dryRun", new JsonArray(List.copyOf(dryRun)));
    }
    return out;
  }

  /**
   * {@code ValidateDeleteOptions}: {@code orphanDependents} and {@code propagationPolicy} not both set, the policy
   * one of Foreground, Background, Orphan, {@code dryRun} only {@code All}.
   *
   * @param opts DeleteOptions
   * @throws StatusException 422 Invalid, kind DeleteOptions, group meta.k8s.io, one cause per problem
   */
  public static void validate(JsonObject opts) {
    JsonArray causes = new JsonArray();
    Object orphanDependents = opts.getValue("orphanDependents");
    Object policy = opts.getValue("propagationPolicy");
    if (orphanDependents != null && policy != null) {
      causes.add(cause("FieldValueInvalid", "propagationPolicy", "Invalid value: " + quote(String.valueOf(policy))
          + ": orphanDependents and deletionPropagation cannot be both set"));
    }
    if (policy != null && !POLICIES.contains(String.valueOf(policy))) {
      causes.add(cause("FieldValueNotSupported", "propagationPolicy", "Unsupported value: "
          + quote(String.valueOf(policy)) + ": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""));
    }
    if (opts.getValue("dryRun") instanceof JsonArray dryRun && !dryRun.stream().allMatch("All"::equals)) {
      String shown = dryRun.stream().map(v -> quote(String.valueOf(v)))
          .collect(Collectors.joining(", ", "[]string{", "}"));
      causes.add(cause("FieldValueNotSupported", "dryRun", "Unsupported value: " + shown
          + ": supported values: \"All\""));
    }
    if (!causes.isEmpty()) {
      throw StatusException.invalid(new Gvr("meta.k8s.io", "v1", ""), "DeleteOptions", "", causes);
    }
  }

  /** @return {@code true} when the options ask for {@code dryRun: [All]} */
  public static boolean dryRun(JsonObject opts) {
    return opts.getValue("dryRun") instanceof JsonArray a && a.contains("All");
  }

  private static JsonObject cause(String reason, String field, String message) {
    return new JsonObject().put("reason", reason).put("message", message).put("field", field);
  }

  /** Go's {@code %q}. */
  private static String quote(String s) {
    return io.mvproxy.api.GoStrings.quote(s);
  }
}

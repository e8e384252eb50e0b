package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The query options of a create, update or patch checked as apimachinery's {@code pkg/apis/meta/v1/validation}
 * ({@code ValidateCreateOptions}, {@code ValidateUpdateOptions}, {@code ValidatePatchOptions}), every violation one
 * cause of a single {@code 422 Invalid} on {@code <Kind>.meta.k8s.io ""}, in upstream's order: for a patch,
 * {@code fieldManager} required by apply / {@code force} forbidden for other patch types; then {@code fieldManager}
 * at most 128 bytes of printable characters; {@code dryRun} only {@code All}; {@code fieldValidation} one of
 * {@code Ignore}, {@code Strict}, {@code Warn} (or empty).
 */
public final class WriteOptions {
  /** apimachinery's {@code FieldManagerMaxLength}, in bytes. */
  public static final int FIELD_MANAGER_MAX_LENGTH = 128;
  private static final Gvr META = new Gvr("meta.k8s.io", "v1", "");

  private WriteOptions() {
  }

  /**
   * @param req   the request
   * @param kind  {@code CreateOptions}, {@code UpdateOptions} or {@code PatchOptions}
   * @param apply for {@code PatchOptions}: true for an apply patch, false for another patch type; null otherwise
   * @throws StatusException 422, e.g. {@code PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value:
   *     is required for apply patch}
   */
  public static void validate(CrdRequest req, String kind, Boolean apply) {
    JsonArray causes = new JsonArray();
    String manager = req.param("fieldManager");
    manager = manager == null ? "" : manager;
    if (Boolean.TRUE.equals(apply) && manager.isEmpty()) {
      causes.add(cause("FieldValueRequired", "Required value: is required for apply patch", "fieldManager"));
    } else if (Boolean.FALSE.equals(apply) && req.param("force") != null) {
      causes.add(cause("FieldValueForbidden", "Forbidden: may not be specified for non-apply patch", "force"));
    }
    byte[] bytes = manager.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > FIELD_MANAGER_MAX_LENGTH) {
      causes.add(cause("FieldValueTooLong", "Too long: may not be more than " + FIELD_MANAGER_MAX_LENGTH + " bytes",
          "fieldManager"));
    }
    int at = 0;
    for (int i = 0; i < manager.length(); ) {
      int cp = manager.codePointAt(i);
      if (!io.mvproxy.registry.impl.schema.GoValues.isPrint(cp)) {
        causes.add(cause("FieldValueInvalid", "Invalid value: " + io.mvproxy.registry.impl.schema.GoValues.quote(manager)
            + ": invalid character " + String.format("U+%04X", cp) + " (at position " + at + ")", "fieldManager"));
      }
      at += new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
      i += Character.charCount(cp);
    }
    List<String> dryRun = req.ctx().request().params().getAll("dryRun");
    if (!dryRun.stream().allMatch("All"::equals)) {
      String shown = dryRun.stream().map(v -> "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
          .collect(Collectors.joining(", ", "[]string{", "}"));
      causes.add(cause("FieldValueNotSupported", "Unsupported value: " + shown + ": supported values: \"All\"",
          "dryRun"));
    }
    String fv = req.param("fieldValidation");
    if (fv != null && !fv.isEmpty() && !"Ignore".equals(fv) && !"Strict".equals(fv) && !"Warn".equals(fv)) {
      causes.add(cause("FieldValueNotSupported", "Unsupported value: " + io.mvproxy.registry.impl.schema.GoValues.quote(fv)
          + ": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"", "fieldValidation"));
    }
    if (!causes.isEmpty()) {
      throw StatusException.invalid(META, kind, "", causes);
    }
  }

  private static JsonObject cause(String reason, String message, String field) {
    return new JsonObject().put("reason", reason).put("message", message).put("field", field);
  }
}

package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code fieldValidation} query parameter (apiserver {@code pkg/endpoints/handlers/rest.go fieldValidation}):
 * duplicate fields (found by {@link StrictJson} while decoding the body, kept in the request under
 * {@link #DUPLICATES_KEY}) and unknown fields (found by pruning) are, with {@code Strict}, a {@code 400 BadRequest}
 * {@code <Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding error: duplicate field "a", unknown
 * field "b"}; with {@code Warn} (the default) one {@code Warning: 299 - "duplicate field \"a\""} header each; with
 * {@code Ignore} nothing. The value itself is checked by {@link WriteOptions}.
 */
public final class FieldValidation {
  /** Routing-context key of the duplicate field paths of the decoded body (a {@code List<String>}). */
  public static final String DUPLICATES_KEY = "mvproxy.crd.duplicateFields";
  /**
   * Routing-context key of the body's own strict decoding problems before the object's (a {@code List<String>} of
   * whole texts): a patch's ({@link PatchApplier#strictProblems}), a YAML body's repeated keys ({@code error
   * converting YAML to JSON: yaml: unmarshal errors: ...}, {@code YAMLToJSONStrict}).
   */
  public static final String BODY_PROBLEMS_KEY = "mvproxy.crd.bodyProblems";

  private FieldValidation() {
  }

  /**
   * Reports the request's duplicate fields and {@code unknown} fields as its {@code fieldValidation} asks.
   *
   * @param req     the request
   * @param unknown paths of fields the schema does not know (dropped)
   * @throws StatusException 400 with {@code fieldValidation=Strict} when there is anything to report
   */
  public static void report(CrdRequest req, List<String> unknown) {
    List<String> problems = new ArrayList<>();
    List<String> dups = req.ctx().get(DUPLICATES_KEY);
    // duplicates come from the JSON decoder, quoted as Go's %q; unknown fields of a built-in kind from its strict
    // decoder (%q too), of a custom resource from pruning ("%s", customresource_handler.go)
    java.util.function.UnaryOperator<String> goQuote = io.mvproxy.registry.impl.schema.GoValues::quote;
    java.util.function.UnaryOperator<String> quote = req.strategy().typedDecoding() ? goQuote : f -> "\"" + f + "\"";
    List<String> bodyProblems = req.ctx().get(BODY_PROBLEMS_KEY);
    if (bodyProblems != null) {
      problems.addAll(bodyProblems);
    }
    if (dups != null) {
      dups.forEach(d -> problems.add("duplicate field " + goQuote.apply(d)));
    }
    unknown.forEach(u -> problems.add("unknown field " + quote.apply(u)));
    if (problems.isEmpty()) {
      return;
    }
    String mode = req.param("fieldValidation");
    if ("Strict".equals(mode)) {
      String kind = req.crd().kind();
      throw StatusException.badRequest(kind + " in version \"" + req.version().name() + "\" cannot be handled as a "
          + kind + ": strict decoding error: " + String.join(", ", problems));
    }
    if (!"Ignore".equals(mode)) {
      problems.forEach(p -> io.mvproxy.api.Warnings.add(req.ctx(), p));
    }
  }
}

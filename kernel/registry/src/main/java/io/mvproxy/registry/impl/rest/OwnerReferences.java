package io.mvproxy.registry.impl.rest;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The deduplication of {@code metadata.ownerReferences} every write makes before the object is validated and stored
 * (apiserver {@code pkg/endpoints/handlers/rest.go dedupOwnerReferences}, {@code dedupOwnerReferencesAndAddWarning}):
 * a reference equal in every field to an earlier one is dropped and its uid named in a warning. A create and a PUT
 * dedup the object sent (and again after mutating admission); a patch, server-side apply included, dedups only the
 * object after its patch and mutating admission, with the warning text saying so. Without it, an exact duplicate of
 * a controller reference was refused as a second controller ({@code Only one reference can have Controller set to
 * true}), where kube-apiserver stores the object with one.
 */
final class OwnerReferences {
  /** {@code handlers.DuplicateOwnerReferencesWarningFormat}. */
  static final String DUPLICATES = ".metadata.ownerReferences contains duplicate entries; API server dedups owner "
      + "references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate "
      + "UID(s) observed: ";
  /** {@code handlers.DuplicateOwnerReferencesAfterMutatingAdmissionWarningFormat}. */
  static final String DUPLICATES_AFTER_ADMISSION = ".metadata.ownerReferences contains duplicate entries after "
      + "mutating admission happens; API server dedups owner references in 1.20+, and may reject such requests as "
      + "early as 1.24; please fix your requests; duplicate UID(s) observed: ";
  /** The fields of {@code metav1.OwnerReference}, the ones the comparison sees (others were pruned before). */
  private static final String[] FIELDS = {"apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"};

  private OwnerReferences() {
  }

  /**
   * Drops the exact duplicates from {@code o}'s owner references and warns about them on {@code req}'s response.
   *
   * @param req                    the request (its verb picks the warning text: a patch's is the after-admission
   *                               one, as upstream dedups a patch only then)
   * @param o                      the object, changed in place; one whose metadata or owner references are not
   *                               JSON objects is left alone (its decoding or validation error comes elsewhere)
   * @param afterMutatingAdmission true for the pass after mutating admission
   */
  static void dedup(CrdRequest req, JsonObject o, boolean afterMutatingAdmission) {
    if (!(o.getValue("metadata") instanceof JsonObject meta) || !(meta.getValue("ownerReferences") instanceof
        JsonArray refs) || refs.size() < 2) {
      return;
    }
    List<String> duplicates = new ArrayList<>();
    JsonArray kept = dedup(refs, duplicates);
    if (!duplicates.isEmpty()) {
      meta.put("ownerReferences", kept);
      boolean after = afterMutatingAdmission || "patch".equals(req.info().verb());
      io.mvproxy.api.Warnings.add(req.ctx(), (after ? DUPLICATES_AFTER_ADMISSION : DUPLICATES)
          + String.join(", ", duplicates));
    }
  }

  /**
   * {@code dedupOwnerReferences}: keeps the first of references equal in every {@code metav1.OwnerReference} field
   * ({@code apiequality.Semantic.DeepEqual}: an absent and a {@code null} pointer are equal, {@code false} is not),
   * in order.
   *
   * @param refs       the owner references (items that are not objects are kept as they are)
   * @param duplicates receives the uid of each reference dropped, in order
   * @return the references kept
   */
  static JsonArray dedup(JsonArray refs, List<String> duplicates) {
    JsonArray kept = new JsonArray();
    Map<String, Set<Map<String, Object>>> seen = new HashMap<>();
    for (Object item : refs) {
      if (!(item instanceof JsonObject ref)) {
        kept.add(item);
        continue;
      }
      Map<String, Object> fields = new HashMap<>();
      for (String f : FIELDS) {
        if (ref.getValue(f) != null) {
          fields.put(f, ref.getValue(f));
        }
      }
      String uid = ref.getValue("uid") instanceof String u ? u : "";
      if (seen.computeIfAbsent(uid, u -> new HashSet<>()).add(fields)) {
        kept.add(ref);
      } else {
        duplicates.add(uid);
      }
    }
    return kept;
  }
}

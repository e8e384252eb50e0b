package io.mvproxy.api.storage;

/**
 * Conditions a stored object must meet for an update or delete to proceed (DeleteOptions {@code preconditions},
 * apiserver {@code storage/interfaces.go Preconditions}); a failure is 409 Conflict
 * {@code Precondition failed: UID in precondition: X, UID in object meta: Y}.
 *
 * @param uid             required {@code metadata.uid}, or null
 * @param resourceVersion required {@code metadata.resourceVersion}, or null
 */
public record Preconditions(String uid, String resourceVersion) {
  /** No conditions. */
  public static final Preconditions NONE = new Preconditions(null, null);

  /**
   * @param current the stored object
   * @return null when {@code current} meets the conditions, else the failure text
   *     ({@code UID in precondition: X, UID in object meta: Y} or the resourceVersion equivalent)
   */
  public String failure(StoredObject current) {
    String curUid = current.uid();
    if (uid != null && !uid.isEmpty() && !uid.equals(curUid)) {
      return "UID in precondition: " + uid + ", UID in object meta: " + curUid;
    }
    String curRv = Long.toString(current.resourceVersion());
    if (resourceVersion != null && !resourceVersion.isEmpty() && !resourceVersion.equals(curRv)) {
      return "ResourceVersion in precondition: " + resourceVersion + ", ResourceVersion in object meta: " + curRv;
    }
    return null;
  }
}

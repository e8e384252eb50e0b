package io.mvproxy.api.storage;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * A storage failure, typed by {@link Code} (apiserver {@code storage/errors.go}) and answered as the Status
 * kube-apiserver gives for it ({@code registry/generic/registry/storage_error.go}, {@code etcd3/errors.go}).
 * Uncaught, it renders with a generic message; {@link #forResource(Gvr, String)} gives the resource-specific one
 * ({@code widgets.demo.example.com "w1" not found}).
 */
public final class StorageException extends StatusException {
  /** Message of 410 for a list or continue at a compacted revision. */
  public static final String LIST_TOO_OLD = "The resourceVersion for the provided list is too old.";
  /** Message of 410 for a continue token at a compacted revision (metadata.continue carries a fresh token). */
  public static final String CONTINUE_TOO_OLD = "The provided continue parameter is too old to display a consistent "
      + "list result. You can start a new list without the continue parameter, or use the continue token in this "
      + "response to retrieve the remainder of the results. Continuing with the provided token results in an "
      + "inconsistent list - objects that were created, modified, or deleted between the time the first chunk was "
      + "returned and now may show up in the list.";
  /** Message of 410 for a watch from a compacted revision, as etcd3/watcher.go. */
  public static final String WATCH_TOO_OLD = "The resourceVersion for the provided watch is too old.";

  /** Failure kinds, each with its Status reason (and so HTTP code). */
  public enum Code {
    /** 404: the key is absent. */
    NOT_FOUND(StatusReason.NotFound),
    /** 409 AlreadyExists: create of a present key. */
    KEY_EXISTS(StatusReason.AlreadyExists),
    /** 409 Conflict: preconditions failed or a resourceVersion was stale. */
    CONFLICT(StatusReason.Conflict),
    /** 410 Expired: the revision was compacted or fell out of the watch cache. */
    EXPIRED(StatusReason.Expired),
    /** 504 Timeout: a resourceVersion ahead of the store (ResourceVersionTooLarge). */
    TOO_LARGE_RESOURCE_VERSION(StatusReason.Timeout),
    /** 400: malformed key, continue token or resourceVersion. */
    BAD_REQUEST(StatusReason.BadRequest),
    /** 503: the backend is unreachable. */
    UNAVAILABLE(StatusReason.ServiceUnavailable),
    /** 504: the backend did not answer within the request timeout. */
    TIMEOUT(StatusReason.Timeout),
    /** 500: the stored data is unusable (e.g. not JSON). */
    INTERNAL(StatusReason.InternalError);

    private final StatusReason reason;

    Code(StatusReason reason) {
      this.reason = reason;
    }

    /** @return the Status reason */
    public StatusReason reason() {
      return reason;
    }
  }

  private final Code storageCode;
  private final String key;
  private final String continueToken;

  private StorageException(Code code, String key, String message, JsonObject details, int retryAfter,
                           String continueToken) {
    super(code.reason(), message, details, retryAfter);
    this.storageCode = code;
    this.key = key;
    this.continueToken = continueToken;
  }

  /** @return the failure kind */
  public Code storageCode() {
    return storageCode;
  }

  /** @return the relative key concerned, or null */
  public String key() {
    return key;
  }

  /** @return the fresh continue token a 410 for a compacted continue offers ({@code rv:-1}), or null */
  public String continueToken() {
    return continueToken;
  }

  /** @return the Status, with {@code metadata.continue} when a fresh token is offered */
  @Override
  public JsonObject toStatus() {
    JsonObject s = super.toStatus();
    if (continueToken != null) {
      s.getJsonObject("metadata").put("continue", continueToken);
    }
    return s;
  }

  /**
   * The Status kube-apiserver's registry gives for this failure on {@code gvr}/{@code name}: 404
   * {@code <resource>.<group> "<name>" not found}, 409 {@code ... already exists}, 409
   * {@code Operation cannot be fulfilled on <resource>.<group> "<name>": <detail>}; other codes unchanged.
   *
   * @param gvr  the resource
   * @param name the object's name
   * @return the exception to answer with
   */
  public StatusException forResource(Gvr gvr, String name) {
    return switch (storageCode) {
      case NOT_FOUND -> StatusException.notFound(gvr, name);
      case KEY_EXISTS -> StatusException.alreadyExists(gvr, name);
      case CONFLICT -> new StatusException(StatusReason.Conflict, "Operation cannot be fulfilled on "
          + gvr.groupResource() + " \"" + name + "\": " + getMessage(), details(gvr, name));
      default -> this;
    };
  }

  private static JsonObject details(Gvr gvr, String name) {
    JsonObject d = new JsonObject().put("name", name);
    if (!gvr.group().isEmpty()) {
      d.put("group", gvr.group());
    }
    return d.put("kind", gvr.resource());
  }

  /** @return 404 for {@code key} */
  public static StorageException notFound(String key) {
    return new StorageException(Code.NOT_FOUND, key, "key not found: " + key, new JsonObject(), 0, null);
  }

  /** @return 409 AlreadyExists for {@code key} */
  public static StorageException keyExists(String key) {
    return new StorageException(Code.KEY_EXISTS, key, "key exists: " + key, new JsonObject(), 0, null);
  }

  /**
   * @param key    the key
   * @param detail e.g. {@code Precondition failed: UID in precondition: X, UID in object meta: Y} or the
   *               optimistic-lock text
   * @return 409 Conflict
   */
  public static StorageException conflict(String key, String detail) {
    return new StorageException(Code.CONFLICT, key, detail, new JsonObject(), 0, null);
  }

  /** The optimistic-lock text of a stale resourceVersion (apiserver {@code registry/generic/registry/store.go}). */
  public static final String OPTIMISTIC_LOCK = "the object has been modified; please apply your changes to the "
      + "latest version and try again";

  /**
   * @param message e.g. {@link #LIST_TOO_OLD}, {@link #WATCH_TOO_OLD}, {@code too old resource version: N (M)}
   * @return 410 Expired
   */
  public static StorageException expired(String message) {
    return new StorageException(Code.EXPIRED, null, message, new JsonObject(), 0, null);
  }

  /**
   * @param freshToken the {@code rv:-1} token to offer
   * @return 410 Expired for a compacted continue token, {@link #CONTINUE_TOO_OLD}
   */
  public static StorageException continueExpired(String freshToken) {
    return new StorageException(Code.EXPIRED, null, CONTINUE_TOO_OLD, new JsonObject(), 0, freshToken);
  }

  /**
   * @param requested the resourceVersion asked for
   * @param current   the store's current revision
   * @return 504 {@code Timeout: Too large resource version: N, current: C} with cause ResourceVersionTooLarge and
   *     Retry-After 1 (storage.md section 4)
   */
  public static StorageException tooLargeResourceVersion(long requested, long current) {
    JsonObject d = new JsonObject().put("causes", new JsonArray().add(new JsonObject()
        .put("reason", "ResourceVersionTooLarge").put("message", "Too large resource version")));
    return new StorageException(Code.TOO_LARGE_RESOURCE_VERSION, null, "Timeout: Too large resource version: "
        + requested + ", current: " + current, d, 1, null);
  }

  /** @return 400 BadRequest with {@code message} */
  public static StorageException badRequest(String message) {
    return new StorageException(Code.BAD_REQUEST, null, message, null, 0, null);
  }

  /**
   * @param what what could not be reached (e.g. {@code etcd at http://127.0.0.1:2379})
   * @param cause the error text
   * @return 503 ServiceUnavailable with Retry-After 1
   */
  public static StorageException unavailable(String what, String cause) {
    return new StorageException(Code.UNAVAILABLE, null, "storage is unavailable: " + what + ": " + cause,
        new JsonObject(), 1, null);
  }

  /**
   * @param what      the operation
   * @param timeoutMs the deadline that passed, ms
   * @return 504 Timeout with Retry-After 1
   */
  public static StorageException timeout(String what, long timeoutMs) {
    return new StorageException(Code.TIMEOUT, null, "Timeout: storage did not answer " + what + " within "
        + timeoutMs + " ms", new JsonObject(), 1, null);
  }

  /** @return 500 for unusable stored data under {@code key} */
  public static StorageException internal(String key, String message) {
    return new StorageException(Code.INTERNAL, key, "Internal error occurred: " + message, new JsonObject(), 0,
        null);
  }
}

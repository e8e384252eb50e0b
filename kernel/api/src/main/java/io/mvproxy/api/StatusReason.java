package io.mvproxy.api;

/**
 * Kubernetes {@code metav1.StatusReason} values used by mvproxy, each with its HTTP code
 * (apimachinery {@code pkg/api/errors/errors.go}).
 */
public enum StatusReason {
  /** 400: the request was malformed. */
  BadRequest(400),
  /** 401: no valid credentials. */
  Unauthorized(401),
  /** 403: authenticated but not allowed. */
  Forbidden(403),
  /** 404: object or resource not found. */
  NotFound(404),
  /** 405: verb not supported on this path. */
  MethodNotAllowed(405),
  /** 406: no acceptable representation. */
  NotAcceptable(406),
  /** 409: an object of that name exists. */
  AlreadyExists(409),
  /** 409: optimistic-concurrency conflict (stale resourceVersion). */
  Conflict(409),
  /** 410: resourceVersion too old for watch or continue token. */
  Expired(410),
  /** 413: request body too large. */
  RequestEntityTooLarge(413),
  /** 415: content type not supported (e.g. strategic merge patch on a custom resource). */
  UnsupportedMediaType(415),
  /** 429: too many requests in flight (kube-apiserver's max-in-flight filter); sent with Retry-After. */
  TooManyRequests(429),
  /** 422: object failed validation. */
  Invalid(422),
  /** 500: unexpected server error. */
  InternalError(500),
  /** 503: the server or every capable peer is unavailable; sent with Retry-After. */
  ServiceUnavailable(503),
  /** 504: the request timed out. */
  Timeout(504);

  private final int code;

  StatusReason(int code) {
    this.code = code;
  }

  /** @return the HTTP status code for this reason */
  public int code() {
    return code;
  }
}

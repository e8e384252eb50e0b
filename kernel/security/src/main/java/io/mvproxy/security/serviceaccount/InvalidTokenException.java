package io.mvproxy.security.serviceaccount;

/**
 * A service account token that is ours (our issuer) but not acceptable; the message is kube-apiserver's
 * ({@code service account token has expired}, {@code service account UID (x) does not match claim (y)}, ...), shown
 * in a TokenReview's {@code status.error}; a request carrying it gets 401.
 */
public final class InvalidTokenException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message kube-apiserver's text */
  public InvalidTokenException(String message) {
    super(message, null, false, false);
  }
}

package io.mvproxy.storage.encryption;

/** A value that cannot be transformed; the message is upstream's error text (e.g. {@code no matching prefix found}). */
public final class TransformException extends Exception {
  private static final long serialVersionUID = 1L;

  /** @param message upstream's error text */
  public TransformException(String message) {
    super(message, null, false, false);
  }
}

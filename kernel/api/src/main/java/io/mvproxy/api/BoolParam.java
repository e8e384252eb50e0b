package io.mvproxy.api;

/**
 * Boolean query parameters as kube-apiserver reads them (apimachinery {@code runtime.Convert_Slice_string_To_bool}):
 * absent is false; present, anything but {@code 0} or {@code false} (any case) is true, so {@code watch=True} (what
 * the Python client sends), {@code watch=1} and even {@code watch=} are watches.
 */
public final class BoolParam {
  private BoolParam() {
  }

  /**
   * @param value the first value of the parameter, or null when absent
   * @return its boolean value
   */
  public static boolean of(String value) {
    return value != null && !"0".equals(value) && !"false".equalsIgnoreCase(value);
  }
}

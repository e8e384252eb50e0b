package io.mvproxy.crd;

import java.nio.file.Path;

/** Public access to {@link SharedTestData} for tests in sub-packages. */
public final class SharedTestDataAccess {
  private SharedTestDataAccess() {
  }

  /** @return {@code shared/testdata/<relative>} (the test is skipped when absent) */
  public static Path dir(String relative) {
    return SharedTestData.file(relative);
  }
}

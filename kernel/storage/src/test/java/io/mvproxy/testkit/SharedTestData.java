package io.mvproxy.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the {@code shared} folder (spec and test data) by walking up from the working directory (shared through the
 * mvproxy-storage test-jar).
 */
public final class SharedTestData {
  private SharedTestData() {
  }

  /** @return {@code shared/testdata/<relative>}; the test is skipped, with the reason, when absent */
  public static Path file(String relative) {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      Path p = dir.resolve("shared").resolve("testdata").resolve(relative);
      if (Files.exists(p)) {
        return p;
      }
      dir = dir.getParent();
    }
    Assumptions.assumeTrue(false, "shared/testdata/" + relative + " not found above " + Path.of("").toAbsolutePath()
        + ": skipped (in CI the shared folder sits beside the repository clone)");
    return null;
  }
}

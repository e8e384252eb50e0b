package io.mvproxy.node.fleet;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Locates test inputs: the repository root and the shared test data folder beside the checkout. */
public final class TestData {
  private TestData() {
  }

  /** @return the repository root (the folder holding {@code plugins/examples}) */
  public static Path repoRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("plugins/examples"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("repository root not found above " + Path.of("").toAbsolutePath());
    }
    return p;
  }

  /** @return {@code plugins/examples/<name>} */
  public static Path example(String name) {
    return repoRoot().resolve("plugins/examples").resolve(name);
  }

  /** @return the manifests of the "new" widgets plugin, sorted */
  public static java.util.List<Path> newWidgets() throws java.io.IOException {
    try (java.util.stream.Stream<Path> s = Files.list(example("widgets-new"))) {
      return s.sorted().toList();
    }
  }

  /**
   * Writes a minimal namespaced CRD manifest (one served version {@code v1}, any fields kept).
   *
   * @param dir    folder to write into
   * @param group  API group
   * @param plural plural resource name
   * @param kind   kind
   * @return the manifest file
   */
  public static Path crd(Path dir, String group, String plural, String kind) throws java.io.IOException {
    String singular = kind.toLowerCase();
    return Files.writeString(dir.resolve(plural + "." + group + ".yaml"), """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: %s.%s
        spec:
          group: %s
          scope: Namespaced
          names: {plural: %s, singular: %s, kind: %s}
          versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
        """.formatted(plural, group, group, plural, singular, kind));
  }

  /** @return the {@code shared} folder beside the checkout (or above it), when present */
  public static Optional<Path> shared() {
    Path p = repoRoot();
    while (p != null) {
      Path s = p.resolve("shared");
      if (Files.isDirectory(s.resolve("testdata"))) {
        return Optional.of(s);
      }
      p = p.getParent();
    }
    return Optional.empty();
  }
}

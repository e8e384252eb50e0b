package io.mvproxy.discovery;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Reads the kubectl request captures ({@code shared/spec/kubectl-captures/<scenario>/log.jsonl}), found by walking
 * up from the working directory (the {@code shared/} folder lies beside the repository clone).
 */
final class Captures {
  static final String RELATIVE = "shared/spec/kubectl-captures";

  private Captures() {
  }

  /** @return the captures folder, or empty when no ancestor of the working directory has one */
  static Optional<Path> folder() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      Path c = p.resolve(RELATIVE);
      if (Files.isDirectory(c)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /** One request line, with its scenario folder name. */
  record Request(String scenario, JsonObject line) {
    String pathWithoutQuery() {
      String p = line.getString("path", "");
      int q = p.indexOf('?');
      return q < 0 ? p : p.substring(0, q);
    }
  }

  /** @return every request line (markers skipped) of every scenario, in folder then file order */
  static List<Request> requests(Path folder) {
    List<Request> out = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(folder)) {
      for (Path d : dirs.sorted().toList()) {
        Path log = d.resolve("log.jsonl");
        if (!Files.isRegularFile(log)) {
          continue;
        }
        for (String line : Files.readAllLines(log)) {
          if (line.isBlank()) {
            continue;
          }
          JsonObject o = new JsonObject(line);
          if (o.containsKey("path")) {
            out.add(new Request(d.getFileName().toString(), o));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}

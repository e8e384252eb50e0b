package io.mvproxy.node.rehearsal;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The {@code kubectl} binary users run, as a share of the rehearsal's traffic: each invocation talks to one node (the
 * kubeconfig's context of that name, {@code DevPki} writes one per node) with a fresh discovery cache (so what it
 * maps a kind to is what the node's discovery says now, not a cached view), and its answer is classified from its exit
 * code and stderr as the HTTP client's answers are ({@link #answer}: {@code Error from server (NotFound): ...} and the
 * other reasons of {@code k8s.io/apimachinery/pkg/api/errors} become the Status code and reason, a {@code NotFound}
 * naming an object keeps {@code details.kind/name}; kubectl's own discovery misses, {@code no matches for kind} and
 * {@code the server doesn't have a resource type}, are the route's 404 as kubectl's user sees it; a connection error
 * is no answer). Processes run on Vert.x worker threads; one that outlives its time is stopped (SIGTERM, then SIGKILL
 * after 5 s) and that is its normal end for {@code kubectl get -w}.
 */
final class Kubectl {
  /**
   * One finished invocation.
   *
   * @param exit    the exit code (-1 when it was stopped)
   * @param stdout  what it printed on stdout
   * @param stderr  what it printed on stderr
   * @param stopped true when it was stopped after its time
   */
  record Run(int exit, String stdout, String stderr, boolean stopped) {
  }

  /** kubectl's reasons ({@code Error from server (Reason)}) to HTTP status, as {@code apimachinery/pkg/api/errors}. */
  private static final Map<String, Integer> CODES = Map.ofEntries(Map.entry("NotFound", 404),
      Map.entry("AlreadyExists", 409), Map.entry("Conflict", 409), Map.entry("Forbidden", 403),
      Map.entry("Unauthorized", 401), Map.entry("BadRequest", 400), Map.entry("Invalid", 422),
      Map.entry("MethodNotAllowed", 405), Map.entry("Gone", 410), Map.entry("Expired", 410),
      Map.entry("TooManyRequests", 429), Map.entry("ServiceUnavailable", 503), Map.entry("Timeout", 504),
      Map.entry("ServerTimeout", 504), Map.entry("InternalError", 500), Map.entry("RequestEntityTooLarge", 413),
      Map.entry("UnsupportedMediaType", 415), Map.entry("NotAcceptable", 406));
  private static final Pattern FROM_SERVER = Pattern.compile("Error from server \\((\\w+)\\): (.*)");
  private static final Pattern KLOG = Pattern.compile("[IWE]\\d{4} \\d{2}:\\d{2}:\\d{2}\\.\\d+ ");
  private static final Pattern NAMED = Pattern.compile("([a-z0-9.\\-]+) \"([^\"]+)\" not found");
  private static final List<String> DISCOVERY_MISS = List.of("no matches for kind", "resource mapping not found",
      "the server doesn't have a resource type", "the server could not find the requested resource");
  private static final List<String> NO_ANSWER = List.of("Unable to connect to the server", "connection refused",
      "The connection to the server",  // kubectl's own text for ECONNREFUSED: "... was refused - did you specify ..."
      "connection reset", "EOF", "http2: ", "TLS handshake", "i/o timeout", "broken pipe");

  private final Vertx vertx;
  private final Path binary;
  private final Path kubeconfig;
  private final Path cacheRoot;
  private final AtomicLong seq = new AtomicLong();

  /**
   * @param vertx      where the processes' workers come from
   * @param binary     the kubectl executable
   * @param kubeconfig a kubeconfig with one context per node name (admin user)
   * @param cacheRoot  folder for the invocations' discovery caches (each deleted after its invocation)
   */
  Kubectl(Vertx vertx, Path binary, Path kubeconfig, Path cacheRoot) {
    this.vertx = vertx;
    this.binary = binary;
    this.kubeconfig = kubeconfig;
    this.cacheRoot = cacheRoot;
  }

  /** @return the kubectl executable on PATH, or null when there is none */
  static Path find() {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, "kubectl"))) {
        return Path.of(d, "kubectl");
      }
    }
    return null;
  }

  /**
   * Runs kubectl against one node.
   *
   * @param context the node's name (its kubeconfig context)
   * @param args    the arguments after the global ones ({@code --kubeconfig}, {@code --context}, {@code --cache-dir})
   * @param stdin   what to write on its stdin (then closed), or null
   * @param maxMs   longest run, ms; then it is stopped
   * @param onLine  called with each stdout line as it is printed (on the reading thread), or null
   * @return the finished invocation (failed only when the process cannot be started)
   */
  Future<Run> run(String context, List<String> args, String stdin, long maxMs, Consumer<String> onLine) {
    return vertx.executeBlocking(() -> runBlocking(context, args, stdin, maxMs, onLine), false);
  }

  private Run runBlocking(String context, List<String> args, String stdin, long maxMs, Consumer<String> onLine)
      throws IOException, InterruptedException {
    Path cache = Files.createDirectories(cacheRoot.resolve("run-" + seq.incrementAndGet()));
    Path err = cache.resolve("stderr");
    List<String> cmd = new ArrayList<>(List.of(binary.toString(), "--kubeconfig", kubeconfig.toString(),
        "--context", context, "--cache-dir", cache.resolve("cache").toString()));
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
    StringBuilder out = new StringBuilder();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          synchronized (out) {
            out.append(line).append('\n');
          }
          if (onLine != null) {
            onLine.accept(line);
          }
        }
      } catch (IOException closed) {
        // the process ended
      }
    }, "kubectl-stdout");
    reader.setDaemon(true);
    reader.start();
    try (OutputStream in = p.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException gone) {
      // it exited before reading its input: its stderr says why
    }
    boolean stopped = false;
    if (!p.waitFor(maxMs, TimeUnit.MILLISECONDS)) {
      stopped = true;
      p.destroy();
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    }
    reader.join(5000);
    String stderr = Files.exists(err) ? Files.readString(err) : "";
    int exit = stopped ? -1 : p.exitValue();
    try (Stream<Path> s = Files.walk(cache)) {
      for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
    synchronized (out) {
      return new Run(exit, out.toString(), stderr, stopped);
    }
  }

  /**
   * Classifies an invocation as the HTTP client's answer would be.
   *
   * @param r the finished invocation
   * @return its HTTP status (200 for exit code 0, or a stopped {@code get -w} that printed no error; 0 when it never
   *     reached the server) and a Status-like body ({@code reason}, {@code message}: kubectl's first error line,
   *     {@code details.kind/name} for a {@code NotFound} naming an object)
   */
  static Answer answer(Run r) {
    // client-go's klog lines (W1206 04:05:43.208279 ... reflector.go: watch ... ended with ...) are its own
    // warnings and retries, not the command's failure
    List<String> lines = r.stderr().lines().filter(l -> !l.isBlank() && !KLOG.matcher(l).lookingAt()).toList();
    String stderr = String.join("\n", lines).strip();
    if (r.exit() == 0 || (r.stopped() && stderr.isEmpty())) {
      return new Answer(200, new JsonObject());
    }
    String first = lines.stream().filter(l -> l.startsWith("error:") || l.startsWith("Error from server")
        || l.startsWith("Unable to connect")).findFirst().orElse(lines.isEmpty() ? "kubectl exit code " + r.exit()
        + (r.stderr().isBlank() ? "" : ": " + r.stderr().strip().lines().reduce((a, b) -> b).orElse(""))
        : lines.get(lines.size() - 1));
    Matcher m = FROM_SERVER.matcher(stderr);
    if (m.find()) {
      String reason = m.group(1);
      String message = m.group(2).strip();
      JsonObject body = new JsonObject().put("kind", "Status").put("reason", reason).put("message", message);
      Matcher named = NAMED.matcher(message);
      if ("NotFound".equals(reason) && named.find()) {
        body.put("details", new JsonObject().put("kind", named.group(1)).put("name", named.group(2)));
      }
      return new Answer(CODES.getOrDefault(reason, 500), body);
    }
    for (String miss : DISCOVERY_MISS) {
      if (stderr.contains(miss)) {
        return new Answer(404, new JsonObject().put("kind", "Status").put("reason", "NotFound").put("message",
            "kubectl: " + first));
      }
    }
    if (stderr.contains("timed out waiting for the condition")) {
      return new Answer(504, new JsonObject().put("kind", "Status").put("reason", "Timeout").put("message",
          "kubectl: " + first));
    }
    for (String none : NO_ANSWER) {
      if (stderr.contains(none)) {
        return new Answer(0, new JsonObject().put("message", "kubectl: " + first));
      }
    }
    return new Answer(500, new JsonObject().put("kind", "Status").put("reason", "KubectlError").put("message",
        "kubectl: " + first));
  }

  /** A classified invocation. @param status HTTP status (0: no answer) @param body a Status-like body */
  record Answer(int status, JsonObject body) {
  }
}

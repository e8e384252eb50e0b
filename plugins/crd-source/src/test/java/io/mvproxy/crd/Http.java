package io.mvproxy.crd;

import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A blocking JDK HTTP client for tests (a real client on a real socket). */
final class Http {
  final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  final String base;

  /** An answer. */
  record Res(int code, String body, HttpResponse<String> raw) {
    JsonObject json() {
      return new JsonObject(body);
    }

    String header(String name) {
      return raw.headers().firstValue(name).orElse(null);
    }
  }

  Http(String base) {
    this.base = base;
  }

  Res send(String method, String path, String contentType, String body, String accept) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20));
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    if (accept != null) {
      b.header("Accept", accept);
    }
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Res(r.statusCode(), r.body(), r);
  }

  Res get(String path) throws Exception {
    return send("GET", path, null, null, "application/json");
  }

  Res get(String path, String accept) throws Exception {
    return send("GET", path, null, null, accept);
  }

  Res post(String path, JsonObject body) throws Exception {
    return send("POST", path, "application/json", body.encode(), "application/json");
  }

  Res put(String path, JsonObject body) throws Exception {
    return send("PUT", path, "application/json", body.encode(), "application/json");
  }

  Res patch(String path, String contentType, String body) throws Exception {
    return send("PATCH", path, contentType, body, "application/json");
  }

  Res delete(String path) throws Exception {
    return send("DELETE", path, "application/json", "{\"propagationPolicy\":\"Background\"}", "application/json");
  }

  /** A streaming watch: lines are queued as they arrive. */
  final class Watch implements AutoCloseable {
    final BlockingQueue<JsonObject> events = new LinkedBlockingQueue<>();
    final int code;
    private final InputStream in;
    private final Thread reader;

    Watch(String path, String accept) throws Exception {
      HttpRequest req = HttpRequest.newBuilder(URI.create(base + path)).header("Accept", accept).GET().build();
      HttpResponse<InputStream> r = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
      code = r.statusCode();
      in = r.body();
      reader = new Thread(() -> {
        try (BufferedReader br = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
          String line;
          while ((line = br.readLine()) != null) {
            if (!line.isBlank()) {
              events.add(new JsonObject(line));
            }
          }
          events.add(new JsonObject().put("type", "EOF"));
        } catch (Exception e) {
          events.add(new JsonObject().put("type", "EOF"));
        }
      });
      reader.setDaemon(true);
      reader.start();
    }

    /** @return the next event, failing the test after {@code seconds} */
    JsonObject next(int seconds) throws InterruptedException {
      JsonObject e = events.poll(seconds, TimeUnit.SECONDS);
      if (e == null) {
        throw new AssertionError("no watch event within " + seconds + " s");
      }
      return e;
    }

    /** @return the next event that is not a BOOKMARK */
    JsonObject nextNonBookmark(int seconds) throws InterruptedException {
      JsonObject e;
      do {
        e = next(seconds);
      } while ("BOOKMARK".equals(e.getString("type")));
      return e;
    }

    @Override
    public void close() throws Exception {
      in.close();
    }
  }

  Watch watch(String path) throws Exception {
    return new Watch(path, "application/json");
  }

  Watch watch(String path, String accept) throws Exception {
    return new Watch(path, accept);
  }
}

package io.mvproxy.node.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The webhook backend in batch mode ({@code --audit-webhook-config-file}; kube-apiserver's
 * {@code plugin/pkg/audit/webhook} behind {@code plugin/pkg/audit/buffered}): events are queued (never blocking the
 * caller; a full queue drops and counts them in {@code apiserver_audit_error_total{plugin="webhook"}}), gathered into
 * batches of at most {@code maxBatchSize} events or {@code maxBatchWait} after a batch's first event, and POSTed as an
 * {@code audit.k8s.io/v1} {@code EventList} to the kubeconfig's server, in order, by one sender thread. A connection
 * error, 429 or 5xx answer is retried with kube's backoff (initial {@code --audit-webhook-initial-backoff}, factor 1.5,
 * 5 attempts); a batch that still fails is dropped and counted. The kubeconfig is client-go's: the current context's
 * cluster ({@code server}, {@code certificate-authority[-data]}, {@code insecure-skip-tls-verify}) and user
 * ({@code client-certificate[-data]}/{@code client-key[-data]}, {@code token}).
 */
public final class AuditWebhookBackend implements AuditSink {
  private static final Logger LOG = Logger.getLogger(AuditWebhookBackend.class.getName());
  private static final JsonObject STOP = new JsonObject();
  private static final int ATTEMPTS = 5;

  /**
   * A webhook kubeconfig, read and checked.
   *
   * @param server   the URL events are POSTed to
   * @param ca       PEM CA bundle, or null (the JVM's trust store)
   * @param cert     PEM client certificate, or null
   * @param key      PEM client key, or null
   * @param token    bearer token, or null
   * @param insecure {@code insecure-skip-tls-verify}
   */
  public record Kubeconfig(URI server, Buffer ca, Buffer cert, Buffer key, String token, boolean insecure) {
    /**
     * Reads a kubeconfig as client-go does for a webhook: the current context (or the only one), its cluster and
     * user; relative file paths are relative to the kubeconfig.
     *
     * @param file the kubeconfig
     * @return the settings
     * @throws IllegalArgumentException naming what is missing or unreadable
     */
    public static Kubeconfig load(Path file) {
      JsonNode kc;
      try {
        kc = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
      } catch (IOException e) {
        throw new IllegalArgumentException("invalid kubeconfig " + file + ": " + e.getMessage());
      }
      if (kc == null || !kc.isObject()) {
        throw new IllegalArgumentException("invalid kubeconfig " + file + ": not an object");
      }
      String current = kc.path("current-context").asText("");
      JsonNode context = named(kc.path("contexts"), current).path("context");
      JsonNode cluster = named(kc.path("clusters"), context.path("cluster").asText("")).path("cluster");
      JsonNode user = named(kc.path("users"), context.path("user").asText("")).path("user");
      String server = cluster.path("server").asText("");
      URI uri;
      try {
        uri = URI.create(server);
      } catch (IllegalArgumentException e) {
        uri = null;
      }
      if (uri == null || uri.getHost() == null || !("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))) {
        throw new IllegalArgumentException("invalid kubeconfig " + file + ": cluster server \"" + server
            + "\" is not an http(s) URL");
      }
      Path dir = file.toAbsolutePath().getParent();
      return new Kubeconfig(uri, pem(cluster, "certificate-authority", dir), pem(user, "client-certificate", dir),
          pem(user, "client-key", dir), user.path("token").asText(null),
          cluster.path("insecure-skip-tls-verify").asBoolean(false));
    }

    /** The entry named {@code name}, else the first one (a kubeconfig with one cluster and no context). */
    private static JsonNode named(JsonNode list, String name) {
      for (JsonNode n : list) {
        if (name.equals(n.path("name").asText())) {
          return n;
        }
      }
      return list.size() > 0 ? list.get(0) : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    private static Buffer pem(JsonNode n, String field, Path dir) {
      String data = n.path(field + "-data").asText("");
      if (!data.isEmpty()) {
        return Buffer.buffer(Base64.getMimeDecoder().decode(data));
      }
      String path = n.path(field).asText("");
      if (path.isEmpty()) {
        return null;
      }
      try {
        return Buffer.buffer(Files.readAllBytes(dir.resolve(path)));
      } catch (IOException e) {
        throw new IllegalArgumentException("invalid kubeconfig: " + field + " " + path + ": " + e.getMessage());
      }
    }
  }

  private final Kubeconfig config;
  private final HttpClient client;
  private final BlockingQueue<JsonObject> queue;
  private final int maxBatchSize;
  private final long maxWaitMs;
  private final long initialBackoffMs;
  private final Counter errors;
  private final Thread sender;
  private volatile boolean closed;

  /**
   * @param vertx          the node's Vert.x (the HTTP client)
   * @param config         the webhook kubeconfig
   * @param bufferSize     {@code --audit-webhook-batch-buffer-size}
   * @param maxBatchSize   {@code --audit-webhook-batch-max-size}
   * @param maxWait        {@code --audit-webhook-batch-max-wait}
   * @param initialBackoff {@code --audit-webhook-initial-backoff}
   * @param registry       metrics registry
   */
  public AuditWebhookBackend(Vertx vertx, Kubeconfig config, int bufferSize, int maxBatchSize, Duration maxWait,
                             Duration initialBackoff, MeterRegistry registry) {
    this.config = config;
    HttpClientOptions o = new HttpClientOptions().setConnectTimeout(10_000).setIdleTimeout(60);
    if ("https".equals(config.server().getScheme())) {
      o.setSsl(true).setVerifyHost(!config.insecure()).setTrustAll(config.insecure());
      if (config.ca() != null && !config.insecure()) {
        o.setTrustOptions(new PemTrustOptions().addCertValue(config.ca()));
      }
      if (config.cert() != null && config.key() != null) {
        o.setKeyCertOptions(new PemKeyCertOptions().addCertValue(config.cert()).addKeyValue(config.key()));
      }
    }
    this.client = vertx.createHttpClient(io.mvproxy.api.ClientLimits.apply(o));
    this.queue = new ArrayBlockingQueue<>(Math.max(1, bufferSize));
    this.maxBatchSize = Math.max(1, maxBatchSize);
    this.maxWaitMs = Math.max(1, maxWait.toMillis());
    this.initialBackoffMs = initialBackoff.toMillis();
    this.errors = Counter.builder("apiserver_audit_error_total").description("Counter of audit events that failed to "
        + "be audited properly. Plugin identifies the plugin affected by the error.").tag("plugin", "webhook")
        .register(registry);
    this.sender = new Thread(this::run, "audit-webhook-sender");
    sender.setDaemon(true);
    sender.start();
  }

  @Override
  public boolean process(JsonObject event) {
    if (closed || !queue.offer(event)) {
      errors.increment();
      return false;
    }
    return true;
  }

  /** @return events dropped or not delivered so far */
  public long errors() {
    return (long) errors.count();
  }

  private void run() {
    boolean stop = false;
    while (!stop) {
      List<JsonObject> batch = new ArrayList<>();
      try {
        JsonObject first = queue.take();
        long until = System.currentTimeMillis() + maxWaitMs;
        JsonObject next = first;
        while (next != null) {
          if (next == STOP) {
            stop = true;
            break;
          }
          batch.add(next);
          if (batch.size() >= maxBatchSize) {
            break;
          }
          long left = until - System.currentTimeMillis();
          next = closed ? queue.poll() : left <= 0 ? null : queue.poll(left, TimeUnit.MILLISECONDS);
        }
      } catch (InterruptedException e) {
        return;
      }
      if (!batch.isEmpty()) {
        send(batch, !stop && !closed);
      }
    }
  }

  /** POSTs one EventList, retrying transient failures (with backoff only while not closing). */
  private void send(List<JsonObject> batch, boolean backoff) {
    Buffer body = new JsonObject().put("kind", "EventList").put("apiVersion", "audit.k8s.io/v1")
        .put("metadata", new JsonObject()).put("items", new JsonArray(new ArrayList<>(batch))).toBuffer();
    MultiMap headers = MultiMap.caseInsensitiveMultiMap().add("Content-Type", "application/json")
        .add("Accept", "application/json");
    if (config.token() != null && !config.token().isEmpty()) {
      headers.add("Authorization", "Bearer " + config.token());
    }
    URI u = config.server();
    int port = u.getPort() > 0 ? u.getPort() : "https".equals(u.getScheme()) ? 443 : 80;
    String path = (u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath())
        + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
    long wait = initialBackoffMs;
    String last = null;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        int code = client.request(new RequestOptions().setMethod(HttpMethod.POST).setHost(u.getHost()).setPort(port)
                .setURI(path).setHeaders(headers).setTimeout(30_000))
            .compose(req -> req.send(body).compose(resp -> resp.body().map(b -> resp.statusCode())))
            .toCompletionStage().toCompletableFuture().get(40, TimeUnit.SECONDS);
        if (code >= 200 && code < 300) {
          return;
        }
        last = "HTTP " + code;
        if (code != 429 && code < 500) {
          break;
        }
      } catch (Exception e) {
        last = e instanceof java.util.concurrent.ExecutionException ee && ee.getCause() != null
            ? ee.getCause().toString() : e.toString();
      }
      if (!backoff || attempt == ATTEMPTS) {
        break;
      }
      try {
        Thread.sleep((long) (wait * (1 + 0.2 * Math.random())));
      } catch (InterruptedException e) {
        break;
      }
      wait = (long) (wait * 1.5);
    }
    errors.increment(batch.size());
    LOG.warning("Error in audit plugin 'webhook' affecting " + batch.size() + " audit events: " + last);
  }

  /** Sends what is queued (one attempt per batch, within about 5 s), then stops the sender. */
  @Override
  public void close() {
    closed = true;
    while (!queue.offer(STOP) && sender.isAlive()) {
      Thread.onSpinWait();
    }
    try {
      sender.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    client.close();
  }
}

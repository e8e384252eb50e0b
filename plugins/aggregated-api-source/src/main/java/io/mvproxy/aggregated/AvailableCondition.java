package io.mvproxy.aggregated;

import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * The {@code Available} condition of an APIService ({@code status.conditions[type=Available]}), computed like
 * kube-aggregator's {@code pkg/controllers/status/remote/remote_available_controller.go} (formerly
 * {@code available_controller.go}) from the outcome of the backend discovery check. {@code lastTransitionTime} moves
 * only when {@code status} changes, as {@code apiregistration/v1/helper.SetAPIServiceCondition} does. Immutable.
 *
 * @param status             {@code True}, {@code False} or {@code Unknown}
 * @param reason             e.g. {@link #PASSED}, {@link #FAILED_DISCOVERY_CHECK}, {@link #SERVICE_NOT_FOUND}
 * @param message            human-readable detail
 * @param lastTransitionTime when {@code status} last changed (second precision, as Kubernetes serializes it)
 */
public record AvailableCondition(String status, String reason, String message, Instant lastTransitionTime) {
  /** Reason when the backend answered its discovery: message {@code all checks passed}. */
  public static final String PASSED = "Passed";
  /** Reason when the backend did not answer discovery correctly (refused, TLS error, timeout, bad status). */
  public static final String FAILED_DISCOVERY_CHECK = "FailedDiscoveryCheck";
  /** Reason when the service cannot be resolved (mvproxy: no {@code serviceResolution} entry). */
  public static final String SERVICE_NOT_FOUND = "ServiceNotFound";
  /** Reason before the first check completed (status {@code Unknown}). */
  public static final String PENDING = "Pending";

  /** @throws NullPointerException when a part is null */
  public AvailableCondition {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(message, "message");
    lastTransitionTime = lastTransitionTime.truncatedTo(ChronoUnit.SECONDS);
  }

  /**
   * @param now the current time
   * @return the condition before any check: {@code Unknown}, reason {@link #PENDING}
   */
  public static AvailableCondition pending(Instant now) {
    return new AvailableCondition("Unknown", PENDING, "the discovery check has not completed yet", now);
  }

  /**
   * @param available true for {@code True}
   * @param reason    the new reason
   * @param message   the new message
   * @param now       the current time, used as {@code lastTransitionTime} only when the status changes
   * @return the next condition
   */
  public AvailableCondition next(boolean available, String reason, String message, Instant now) {
    String s = available ? "True" : "False";
    return new AvailableCondition(s, reason, message, s.equals(status) ? lastTransitionTime : now);
  }

  /** @return true when {@code status} is {@code True} */
  public boolean isAvailable() {
    return "True".equals(status);
  }

  /** @return the Kubernetes JSON form: {@code {type: Available, status, lastTransitionTime, reason, message}} */
  public JsonObject toJson() {
    return new JsonObject().put("type", "Available").put("status", status)
        .put("lastTransitionTime", lastTransitionTime.toString()).put("reason", reason).put("message", message);
  }
}

package io.mvproxy.builtin;

import io.mvproxy.registry.impl.rest.Ages;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.Locale;

/**
 * The Table cells of both Event APIs, as kube-apiserver's {@code printEvent} ({@code
 * pkg/printers/internalversion/printers.go}): no leading Name column; {@code Last Seen} falls back to the first
 * timestamp, then to {@code eventTime}, and is the series' last observation when there is one; {@code Object} is
 * {@code <lower-case kind>/<name>}; {@code Source} is {@code component, host} (else the reporting controller and
 * instance); {@code Count} is 1 for a singleton new-style event.
 */
final class EventTable implements ObjectStrategy {
  @Override
  public boolean tableNameColumn() {
    return false;
  }

  @Override
  public Object tableCell(String column, JsonObject obj, Object cell) {
    JsonObject e = "events.k8s.io/v1".equals(obj.getString("apiVersion")) ? EventConversion.toCore(obj) : obj;
    Instant now = Instant.now();
    JsonObject series = e.getJsonObject("series");
    String first = since(e.getString("firstTimestamp"), now);
    if (first == null) {
      first = since(e.getString("eventTime"), now);
    }
    String last = since(e.getString("lastTimestamp"), now);
    if (last == null) {
      last = first;
    }
    if (series != null) {
      last = since(series.getString("lastObservedTime"), now);
    }
    JsonObject inv = e.getJsonObject("involvedObject", new JsonObject());
    JsonObject src = e.getJsonObject("source", new JsonObject());
    switch (column) {
      case "Last Seen":
        return last == null ? "<unknown>" : last;
      case "First Seen":
        return first == null ? "<unknown>" : first;
      case "Object": {
        String kind = inv.getString("kind", "").toLowerCase(Locale.ROOT);
        String name = inv.getString("name", "");
        return name.isEmpty() ? kind : kind + "/" + name;
      }
      case "Subobject":
        return inv.getString("fieldPath", "");
      case "Source": {
        String component = nonEmpty(src.getString("component"), e.getString("reportingComponent"));
        String host = nonEmpty(src.getString("host"), e.getString("reportingInstance"));
        return host.isEmpty() ? component : component + ", " + host;
      }
      case "Message":
        return e.getString("message", "").strip();
      case "Count": {
        long count = series != null ? series.getLong("count", 0L) : e.getLong("count", 0L);
        return series == null && count == 0 ? 1L : count;
      }
      case "Type":
      case "Reason":
        return e.getString(column.toLowerCase(Locale.ROOT), "");
      case "Name":
        return e.getJsonObject("metadata", new JsonObject()).getString("name", "");
      default:
        return cell;
    }
  }

  private static String since(String ts, Instant now) {
    return ts == null || ts.isEmpty() ? null : Ages.since(ts, now);
  }

  private static String nonEmpty(String a, String b) {
    return a != null && !a.isEmpty() ? a : b == null ? "" : b;
  }
}

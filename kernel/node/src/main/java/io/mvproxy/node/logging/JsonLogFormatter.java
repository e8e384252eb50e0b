package io.mvproxy.node.logging;

import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * {@code --logging-format=json}: one JSON object per line, like kube-apiserver's JSON logs
 * ({@code {"ts":..., "v":0, "msg":...}}), with {@code level}, {@code logger}, {@code thread} and {@code err}.
 */
public final class JsonLogFormatter extends Formatter {
  @Override
  public String format(LogRecord r) {
    JsonObject j = new JsonObject().put("ts", Instant.ofEpochMilli(r.getMillis()).toString())
        .put("level", r.getLevel().getName()).put("logger", r.getLoggerName()).put("msg", formatMessage(r))
        .put("thread", Thread.currentThread().getName());
    if (r.getThrown() != null) {
      StringWriter sw = new StringWriter();
      r.getThrown().printStackTrace(new PrintWriter(sw));
      j.put("err", r.getThrown().toString()).put("stacktrace", sw.toString());
    }
    return j.encode() + System.lineSeparator();
  }
}

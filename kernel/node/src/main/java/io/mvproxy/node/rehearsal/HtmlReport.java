package io.mvproxy.node.rehearsal;

import io.mvproxy.node.rehearsal.Journal.Request;
import java.awt.Color;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.JFreeChart;
import org.jfree.svg.SVGGraphics2D;

import static io.mvproxy.node.rehearsal.ReportChart.HEIGHT;
import static io.mvproxy.node.rehearsal.ReportChart.WIDTH;
import static io.mvproxy.node.rehearsal.ReportChart.chart;

/**
 * The rehearsal's report as one self-contained HTML page (no external script, style sheet or image: the charts are
 * SVG drawn by JFreeChart through JFreeSVG and inlined as {@code data:} URIs). Per run (gate on above gate off): a
 * chart of each node's life (plugin set, in and out of the load balancer, SIGTERM, stopped, starting, ready) with the
 * namespace and garbage-collection events and every non-2xx answer marked, over the client requests per second by
 * outcome with the {@link Causes.Window}s shaded; the windows with their lengths; and every non-2xx answer with time,
 * node, request, status and reason and the {@link Causes cause} attributed to it. The Markdown table of
 * {@link Rehearsal#format} heads the page. The charts are drawn by {@link ReportChart}.
 */
public final class HtmlReport {
  /** The outcome groups of the requests-per-second chart. */
  enum Group {
    OK("2xx", new Color(0x4caf50)),
    NOT_SERVED("404 not served anywhere", new Color(0xb0bec5)),
    FALSE_404("false 404", new Color(0xd32f2f)),
    OBJECT_404("404 naming an object", new Color(0xff9800)),
    UNAVAILABLE("503", new Color(0x7e57c2)),
    OTHER("other (403, 409, 429, no answer, ...)", new Color(0x212121));

    final String label;
    final Color color;

    Group(String label, Color color) {
      this.label = label;
      this.color = color;
    }

    static Group of(Outcome o) {
      return switch (o) {
        case OK -> OK;
        case NOT_SERVED_YET -> NOT_SERVED;
        case FALSE_404 -> FALSE_404;
        case OBJECT_NOT_FOUND -> OBJECT_404;
        case UNAVAILABLE -> UNAVAILABLE;
        default -> OTHER;
      };
    }
  }

  private HtmlReport() {
  }

  /**
   * Writes the page.
   *
   * @param file  the HTML file (its folder is created)
   * @param title the page title
   * @param intro settings line (seed, soak, upgrades ...)
   * @param on    the gate-on run, or null
   * @param off   the gate-off run, or null
   * @throws IOException when the file cannot be written
   */
  public static void write(Path file, String title, String intro, RunReport on, RunReport off) throws IOException {
    System.setProperty("java.awt.headless", "true");
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>").append(esc(title))
        .append("</title>\n<style>\n").append(CSS).append("</style></head>\n<body>\n<h1>").append(esc(title))
        .append("</h1>\n<p>").append(esc(intro)).append("</p>\n");
    if (on != null) {
      List<String> f = on.failures();
      h.append("<p class=\"verdict ").append(f.isEmpty() ? "pass" : "fail").append("\" id=\"verdict\">Gate on: ")
          .append(f.isEmpty() ? "no false 404, no 404 naming an existing object, no dependent of a live owner "
              + "collected, no namespace finished with content (exit code 0)"
              : "FAILED (exit code 1): " + esc(String.join("; ", f))).append("</p>\n");
    }
    h.append("<h2>Summary</h2>\n").append(markdownTable(Rehearsal.format(on, off)));
    for (RunReport r : new RunReport[] {on, off}) {
      if (r != null) {
        run(h, r);
      }
    }
    h.append(SCRIPT).append("</body></html>\n");
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, h.toString(), StandardCharsets.UTF_8);
  }

  private static void run(StringBuilder h, RunReport r) {
    Journal j = r.journal();
    Causes causes = new Causes(j);
    String gate = r.gate() ? "gate on" : "gate off";
    String id = r.gate() ? "gate-on" : "gate-off";
    h.append("<h2 id=\"").append(id).append("\">").append(gate).append(r.gate()
        ? " (UnknownVersionInteroperabilityProxy=true)" : " (UnknownVersionInteroperabilityProxy=false)")
        .append("</h2>\n");
    String svg = chart(j, causes, gate);
    h.append("<img class=\"chart\" id=\"chart-").append(id).append("\" width=\"").append(WIDTH).append("\" height=\"")
        .append(HEIGHT).append("\" alt=\"").append(gate).append(": node timeline and requests per second by outcome"
            + "\" src=\"data:image/svg+xml;base64,")
        .append(Base64.getEncoder().encodeToString(svg.getBytes(StandardCharsets.UTF_8))).append("\">\n");
    List<Request> non2xx = j.requests().stream().filter(q -> q.outcome() != Outcome.OK).toList();
    List<Causes.Cause> cs = non2xx.stream().map(causes::of).toList();
    long unexplained = cs.stream().filter(c -> !c.explained()).count();
    Map<String, Integer> inWindow = new LinkedHashMap<>();
    cs.forEach(c -> {
      if (!c.window().isEmpty()) {
        inWindow.merge(c.window(), 1, Integer::sum);
      }
    });
    h.append("<h3>Windows in which a 503 is right</h3>\n<table class=\"windows\"><tr><th>window</th><th>what</th>"
        + "<th>from</th><th>to</th><th>length</th><th>non-2xx inside</th></tr>\n");
    for (Causes.Window w : causes.windows()) {
      h.append("<tr><td>").append(w.name()).append("</td><td>").append(esc(w.what())).append("</td><td>")
          .append(sec(w.fromMs())).append("</td><td>").append(w.toMs() < 0 ? "-" : sec(w.toMs()))
          .append("</td><td>").append(w.lengthMs() < 0 ? "not closed" : w.lengthMs() + " ms").append("</td><td>")
          .append(inWindow.getOrDefault(w.name(), 0)).append("</td></tr>\n");
    }
    h.append("</table>\n");
    if (!r.wronglyCollectedPaths().isEmpty() || !r.namespacesLeftFull().isEmpty()) {
      h.append("<h3>Lost or left behind</h3>\n<ul>\n");
      r.wronglyCollectedPaths().forEach(p -> h.append("<li class=\"bad\">dependent wrongly collected: ")
          .append(esc(p)).append("</li>\n"));
      r.namespacesLeftFull().forEach(p -> h.append("<li class=\"bad\">namespace finished with content: ")
          .append(esc(p)).append("</li>\n"));
      h.append("</ul>\n");
    }
    h.append("<h3>Every non-2xx answer (").append(non2xx.size()).append(" of ").append(j.requests().size())
        .append(" requests; ").append(unexplained).append(" unexplained)</h3>\n")
        .append("<table class=\"non2xx\" id=\"non2xx-").append(id).append("\"><tr><th>time</th><th>node</th>"
            + "<th>request</th><th>status</th><th>outcome</th><th>cause</th></tr>\n");
    for (int i = 0; i < non2xx.size(); i++) {
      Request q = non2xx.get(i);
      Causes.Cause c = cs.get(i);
      h.append("<tr class=\"").append(c.explained() ? "explained" : "unexplained").append("\"><td>")
          .append(sec(q.atMs())).append("</td><td>").append(esc(q.node())).append("</td><td><code>")
          .append(esc(q.method() + " " + q.path())).append("</code></td><td>")
          .append(q.status() == 0 ? "no answer" : q.status() + (q.reason().isEmpty() ? "" : " " + esc(q.reason())))
          .append("</td><td>").append(esc(q.outcome().label())).append("</td><td>")
          .append(c.window().isEmpty() ? "" : "<b>" + c.window() + "</b>: ").append(esc(c.text()))
          .append("</td></tr>\n");
    }
    h.append("</table>\n");
  }

  /** @return the Markdown table as an HTML table ({@code **x**} as bold) */
  static String markdownTable(String md) {
    StringBuilder b = new StringBuilder("<table class=\"summary\">\n");
    boolean head = true;
    for (String line : md.split("\n")) {
      if (!line.startsWith("|") || line.startsWith("|---")) {
        continue;
      }
      String[] cells = line.substring(1, line.length() - 1).split("\\|", -1);
      b.append("<tr>");
      for (String c : cells) {
        String cell = esc(c.trim()).replaceAll("\\*\\*(.+?)\\*\\*", "<b>$1</b>");
        b.append(head ? "<th>" : "<td>").append(cell).append(head ? "</th>" : "</td>");
      }
      b.append("</tr>\n");
      head = false;
    }
    return b.append("</table>\n").toString();
  }

  private static String sec(long ms) {
    return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
  }

  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  private static final String CSS = """
      body { font-family: sans-serif; margin: 1.5em; color: #212121; max-width: 1250px; }
      table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 13px; }
      th, td { border: 1px solid #cfd8dc; padding: 2px 6px; text-align: left; vertical-align: top; }
      th { background: #eceff1; }
      tr.unexplained td { background: #ffebee; }
      code { font-size: 12px; word-break: break-all; }
      img.chart { display: block; border: 1px solid #cfd8dc; max-width: 100%; height: auto; }
      .verdict { font-weight: bold; padding: 0.5em; }
      .pass { background: #e8f5e9; }
      .fail, .bad { background: #ffebee; }
      """;

  /**
   * The page's only script, inline: once loaded it notes each chart's decoded size on the body
   * ({@code data-charts="1200x720 1200x720"}), which a test reads from the headless browser's DOM.
   */
  private static final String SCRIPT = """
      <script>
      window.addEventListener('load', function () {
        var s = Array.prototype.map.call(document.querySelectorAll('img.chart'), function (i) {
          return i.naturalWidth + 'x' + i.naturalHeight;
        });
        document.body.setAttribute('data-charts', s.join(' '));
      });
      </script>
      """;
}

package io.mvproxy.node.rehearsal;

import io.mvproxy.node.rehearsal.HtmlReport.Group;
import io.mvproxy.node.rehearsal.Journal.Mark;
import io.mvproxy.node.rehearsal.Journal.NodeEvent;
import io.mvproxy.node.rehearsal.Journal.Request;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Rectangle;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.StackedXYBarRenderer;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYBarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.DefaultTableXYDataset;
import org.jfree.data.xy.XYIntervalSeries;
import org.jfree.data.xy.XYIntervalSeriesCollection;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

/**
 * The charts of the rehearsal's {@link HtmlReport}: per run, each node's life as a timeline (plugin set, in and out
 * of the load balancer, SIGTERM, stopped, starting, ready) with the namespace and garbage-collection events and every
 * non-2xx answer marked, over the client requests per second by outcome with the {@link Causes.Window}s shaded, as
 * SVG (JFreeChart through JFreeSVG).
 */
final class ReportChart {
  /** A node's state between two of its events (the timeline's bars). */
  private enum State {
    SERVING_OLD("serving, old plugin set", new Color(0x90caf9)),
    SERVING_NEW("serving, new plugin set", new Color(0x1565c0)),
    STARTING("starting (not ready)", new Color(0xffe082)),
    OUT("ready, out of the load balancer", new Color(0xcfd8dc)),
    STOPPING("SIGTERM, draining", new Color(0xef9a9a)),
    STOPPED("stopped (plugin jars swapped)", new Color(0x616161));

    final String label;
    final Color color;

    State(String label, Color color) {
      this.label = label;
      this.color = color;
    }
  }

  /** The chart's width, px. */
  static final int WIDTH = 1200;
  /** The chart's height, px. */
  static final int HEIGHT = 720;

  private ReportChart() {
  }

  /**
   * Draws one run: node timeline (with marks) over requests per second by outcome, sharing the time axis.
   *
   * @return the SVG element (with its namespace, no DOCTYPE)
   */
  static String chart(Journal j, Causes causes, String gate) {
    List<String> nodes = j.nodes();
    List<String> lanes = new ArrayList<>(List.of("garbage collector", "namespaces"));
    for (int i = nodes.size() - 1; i >= 0; i--) {
      lanes.add(nodes.get(i));
    }
    List<NodeEvent> events = j.nodeEvents();
    List<Request> requests = j.requests();
    List<Mark> marks = j.marks();
    double end = Math.max(events.isEmpty() ? 0 : events.get(events.size() - 1).atMs(),
        Math.max(requests.isEmpty() ? 0 : requests.get(requests.size() - 1).atMs(),
            marks.isEmpty() ? 0 : marks.get(marks.size() - 1).atMs())) / 1000.0 + 1;

    // the timeline: one bar per node state
    Map<State, XYIntervalSeries> bars = new EnumMap<>(State.class);
    for (State s : State.values()) {
      bars.put(s, new XYIntervalSeries(s.label));
    }
    for (String n : nodes) {
      double y = lanes.indexOf(n);
      State state = null;
      double from = 0;
      for (NodeEvent e : events) {
        if (!e.node().equals(n)) {
          continue;
        }
        State next = switch (e.kind()) {
          case STARTED -> State.STARTING;
          case READY, OUT_OF_ROTATION -> State.OUT;
          case IN_ROTATION -> "new".equals(e.pluginSet()) ? State.SERVING_NEW : State.SERVING_OLD;
          case SIGTERM -> State.STOPPING;
          case EXITED -> State.STOPPED;
        };
        double x = e.atMs() / 1000.0;
        if (state != null && x > from) {
          bars.get(state).add(from + (x - from) / 2, from, x, y, y - 0.3, y + 0.3);
        }
        state = next;
        from = x;
      }
      if (state != null && end > from) {
        bars.get(state).add(from + (end - from) / 2, from, end, y, y - 0.3, y + 0.3);
      }
    }
    XYIntervalSeriesCollection barData = new XYIntervalSeriesCollection();
    bars.values().forEach(barData::addSeries);
    XYBarRenderer barRenderer = new XYBarRenderer();
    barRenderer.setUseYInterval(true);
    barRenderer.setShadowVisible(false);
    barRenderer.setBarPainter(new StandardXYBarPainter());
    for (State s : State.values()) {
      barRenderer.setSeriesPaint(s.ordinal(), s.color);
    }
    SymbolAxis laneAxis = new SymbolAxis(null, lanes.toArray(new String[0]));
    laneAxis.setGridBandsVisible(false);
    XYPlot timeline = new XYPlot(barData, null, laneAxis, barRenderer);

    // marks: namespace and GC events on their lanes, non-2xx answers on the answering node's lane
    XYSeriesCollection markData = new XYSeriesCollection();
    Map<String, XYSeries> markSeries = new LinkedHashMap<>();
    Map<String, Color> markColor = new LinkedHashMap<>();
    Map<String, Shape> markShape = new LinkedHashMap<>();
    for (Mark m : marks) {
      String lane = switch (m.kind()) {
        case NAMESPACE_CREATED, NAMESPACE_DELETED, NAMESPACE_GONE -> "namespaces";
        case OWNER_CREATED, OWNER_DELETED, DEPENDENT_COLLECTED -> "garbage collector";
        case PROBE -> null;
      };
      if (lane == null || m.kind() == Journal.MarkKind.OWNER_CREATED) {
        continue;
      }
      double dy = switch (m.kind()) {
        case NAMESPACE_CREATED, OWNER_DELETED -> 0.2;
        case NAMESPACE_DELETED -> 0;
        default -> -0.2;
      };
      markSeries.computeIfAbsent(m.kind().label(), k -> new XYSeries(k, false, true))
          .add(m.atMs() / 1000.0, lanes.indexOf(lane) + dy);
      markColor.putIfAbsent(m.kind().label(), switch (m.kind()) {
        case NAMESPACE_CREATED -> new Color(0x43a047);
        case NAMESPACE_DELETED, OWNER_DELETED -> new Color(0xe53935);
        default -> new Color(0x1e88e5);
      });
      markShape.putIfAbsent(m.kind().label(), new Ellipse2D.Double(-3, -3, 6, 6));
    }
    for (Request q : requests) {
      if (q.outcome() != Outcome.OK && lanes.contains(q.node())) {
        Group g = Group.of(q.outcome());
        String key = "answer: " + g.label;
        markSeries.computeIfAbsent(key, k -> new XYSeries(k, false, true)).add(q.atMs() / 1000.0,
            lanes.indexOf(q.node()));
        markColor.putIfAbsent(key, g.color);
        markShape.putIfAbsent(key, new Rectangle2D.Double(-2, -6, 4, 12));
      }
    }
    XYLineAndShapeRenderer markRenderer = new XYLineAndShapeRenderer(false, true);
    int k = 0;
    for (Map.Entry<String, XYSeries> e : markSeries.entrySet()) {
      markData.addSeries(e.getValue());
      markRenderer.setSeriesPaint(k, markColor.get(e.getKey()));
      markRenderer.setSeriesShape(k, markShape.get(e.getKey()));
      k++;
    }
    timeline.setDataset(1, markData);
    timeline.setRenderer(1, markRenderer);
    timeline.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD); // the marks over the bars

    // requests per second by outcome group, stacked
    int seconds = (int) Math.ceil(end);
    long[][] counts = new long[Group.values().length][seconds + 1];
    for (Request q : requests) {
      counts[Group.of(q.outcome()).ordinal()][(int) Math.min(seconds, q.atMs() / 1000)]++;
    }
    DefaultTableXYDataset rate = new DefaultTableXYDataset();
    StackedXYBarRenderer rateRenderer = new StackedXYBarRenderer(0.1);
    rateRenderer.setShadowVisible(false);
    rateRenderer.setBarPainter(new StandardXYBarPainter());
    for (Group g : Group.values()) {
      XYSeries s = new XYSeries(g.label, false, false);
      for (int i = 0; i <= seconds; i++) {
        s.add(i + 0.5, counts[g.ordinal()][i]);
      }
      rate.addSeries(s);
      rateRenderer.setSeriesPaint(g.ordinal(), g.color);
    }
    NumberAxis rateAxis = new NumberAxis("requests per second");
    XYPlot rates = new XYPlot(rate, null, rateAxis, rateRenderer);
    for (Causes.Window w : causes.windows()) {
      boolean restart = w.what().contains(" restart ");
      double to = (w.toMs() < 0 ? end * 1000 : w.toMs()) / 1000.0;
      if (to - w.fromMs() / 1000.0 < 0.05) {
        continue;
      }
      IntervalMarker m = new IntervalMarker(w.fromMs() / 1000.0, to, restart ? new Color(0, 0, 0, 28)
          : new Color(255, 193, 7, 40));
      m.setLabel(w.name());
      m.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
      m.setLabelAnchor(restart ? RectangleAnchor.TOP_LEFT : RectangleAnchor.BOTTOM_LEFT);
      m.setLabelTextAnchor(restart ? TextAnchor.TOP_LEFT : TextAnchor.BOTTOM_LEFT);
      rates.addDomainMarker(m, Layer.BACKGROUND);
    }
    if (j.trafficStartMs() >= 0) {
      IntervalMarker pre = new IntervalMarker(0, j.trafficStartMs() / 1000.0, new Color(0, 0, 0, 10));
      pre.setLabel("fleet start-up, no traffic");
      pre.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
      pre.setLabelAnchor(RectangleAnchor.TOP_LEFT);
      pre.setLabelTextAnchor(TextAnchor.TOP_LEFT);
      timeline.addDomainMarker(pre, Layer.BACKGROUND);
    }

    NumberAxis time = new NumberAxis("seconds since the run started");
    time.setRange(0, end);
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(time);
    plot.setGap(8);
    plot.add(timeline, 5);
    plot.add(rates, 4);
    for (XYPlot p : List.of(timeline, rates)) {
      p.setBackgroundPaint(Color.WHITE);
      p.setDomainGridlinePaint(new Color(0xe0e0e0));
      p.setRangeGridlinePaint(new Color(0xe0e0e0));
      p.setDomainGridlineStroke(new BasicStroke(0.5f));
      p.setRangeGridlineStroke(new BasicStroke(0.5f));
    }
    JFreeChart chart = new JFreeChart(gate + ": each node's life over client requests per second by outcome",
        new Font(Font.SANS_SERIF, Font.BOLD, 14), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    SVGGraphics2D g2 = new SVGGraphics2D(WIDTH, HEIGHT);
    g2.setGeomDoubleConverter(ReportChart::tenth); // a tenth of a pixel is enough: a third of the size
    g2.setTransformDoubleConverter(ReportChart::tenth);
    chart.draw(g2, new Rectangle(0, 0, WIDTH, HEIGHT));
    return g2.getSVGElement(); // no DOCTYPE: nothing for a reader to fetch
  }

  /** @return the number rounded to a tenth, without a trailing {@code .0} */
  private static String tenth(double d) {
    long r = Math.round(d * 10);
    return r % 10 == 0 ? Long.toString(r / 10) : Double.toString(r / 10.0);
  }
}

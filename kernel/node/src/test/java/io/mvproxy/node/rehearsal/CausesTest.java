package io.mvproxy.node.rehearsal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.node.rehearsal.Journal.Mark;
import io.mvproxy.node.rehearsal.Journal.MarkKind;
import io.mvproxy.node.rehearsal.Journal.NodeEvent;
import io.mvproxy.node.rehearsal.Journal.NodeKind;
import io.mvproxy.node.rehearsal.Journal.Request;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Causes} and {@link HtmlReport} on a replayed first upgrade (node-a restarted onto the new plugin set while
 * node-b and node-c stay old): which non-2xx answers the journal explains, which windows it names, and the page.
 */
@Tag("unit")
class CausesTest {
  private static final String GADGETS = "gadgets.demo.mvproxy.io/v1";

  private static Journal journal(boolean gate) {
    Journal j = new Journal(gate, 42);
    for (String n : List.of("node-a", "node-b", "node-c")) {
      j.add(new NodeEvent(0, n, NodeKind.STARTED, "old"));
      j.add(new NodeEvent(1000, n, NodeKind.READY, "old"));
      j.add(new NodeEvent(1001, n, NodeKind.IN_ROTATION, "old"));
    }
    j.add(new NodeEvent(5000, "node-a", NodeKind.OUT_OF_ROTATION, "old"));
    j.add(new NodeEvent(5000, "node-a", NodeKind.SIGTERM, "old"));
    j.add(new NodeEvent(6000, "node-a", NodeKind.EXITED, "old"));
    j.add(new NodeEvent(6100, "node-a", NodeKind.STARTED, "new"));
    j.add(new NodeEvent(20000, "node-a", NodeKind.READY, "new"));
    j.add(new NodeEvent(20050, "node-a", NodeKind.IN_ROTATION, "new"));
    j.add(new Mark(27000, MarkKind.NAMESPACE_CREATED, "rh-1", "node-a"));
    return j;
  }

  private static Request req(long at, long took, String node, String path, int status, String named, Outcome o,
                             String message) {
    return new Request(at, took, node, "GET", path, GADGETS, true, status, status == 404 ? "NotFound"
        : status == 503 ? "ServiceUnavailable" : "", message, named.isEmpty() ? "" : "namespaces", named, o);
  }

  @Test
  void explainsTrue404sRestartAndLearningWindowsButNotAGateOnFalse404() {
    Journal j = journal(true);
    Request notYet = req(3000, 5, "node-b", "/apis/demo.mvproxy.io/v1/gadgets", 404, "", Outcome.NOT_SERVED_YET, "");
    Request restart = req(8000, 5, "node-b", "/apis/demo.mvproxy.io/v1/gadgets", 503, "", Outcome.UNAVAILABLE,
        "waiting for cluster member");
    Request learning = req(20010, 5, "node-c", "/apis/demo.mvproxy.io/v1/gadgets", 503, "", Outcome.UNAVAILABLE, "");
    Request learnt = req(21000, 5, "node-c", "/apis/demo.mvproxy.io/v1/gadgets", 200, "", Outcome.OK, "");
    Request late503 = req(25000, 5, "node-c", "/apis/demo.mvproxy.io/v1/gadgets", 503, "", Outcome.UNAVAILABLE, "");
    Request false404 = req(26000, 5, "node-b", "/apis/demo.mvproxy.io/v1/gadgets", 404, "", Outcome.FALSE_404, "");
    Request nsNotFound = req(27100, 5, "node-b", "/apis/demo.mvproxy.io/v1/namespaces/rh-1/widgets", 404, "rh-1",
        Outcome.OBJECT_NOT_FOUND, "namespaces \"rh-1\" not found");
    Request inFlight = req(4900, 300, "node-a", "/api/v1/namespaces/rehearsal/configmaps", 0, "",
        Outcome.NO_ANSWER, "Connection reset");
    for (Request r : List.of(notYet, restart, learning, learnt, late503, false404, nsNotFound, inFlight)) {
      j.add(r);
    }
    Causes c = new Causes(j);
    // W1: node-a's restart; then node-b and node-c learning node-a (node-b never answers 2xx for it again)
    assertEquals(3, c.windows().size(), c.windows().toString());
    Causes.Window w1 = c.windows().get(0);
    assertEquals("W1", w1.name());
    assertEquals(15000, w1.lengthMs(), "SIGTERM at 5 s to /readyz 200 at 20 s");
    Causes.Window nodeC = c.windows().stream().filter(w -> w.what().startsWith("node-c learning")).findFirst()
        .orElseThrow();
    assertEquals(1000, nodeC.lengthMs(), "node-a ready at 20 s, node-c's first 2xx for the new APIs at 21 s");

    assertTrue(c.of(notYet).explained() && c.of(notYet).text().startsWith("true 404"), c.of(notYet).text());
    assertEquals("W1", c.of(restart).window(), c.of(restart).text());
    assertTrue(c.of(restart).explained() && c.of(restart).text().contains("waiting for cluster member"));
    assertEquals(nodeC.name(), c.of(learning).window(), c.of(learning).text());
    assertFalse(c.of(late503).explained(), c.of(late503).text());
    assertFalse(c.of(false404).explained(), c.of(false404).text());
    Causes.Cause ns = c.of(nsNotFound);
    assertFalse(ns.explained(), ns.text());
    assertTrue(ns.text().contains("100 ms after the namespace was created through node-a"), ns.text());
    assertTrue(c.of(inFlight).explained() && c.of(inFlight).text().contains("SIGTERM at 5.0 s"),
        c.of(inFlight).text());

    Journal off = journal(false);
    off.add(false404);
    assertTrue(new Causes(off).of(false404).explained(), "gate off: a false 404 is the expected harm");
  }

  @Test
  void pageIsSelfContainedWithAChartAndOneRowPerNon2xx(@TempDir Path dir) throws Exception {
    Journal j = journal(true);
    j.add(req(8000, 5, "node-b", "/apis/demo.mvproxy.io/v1/gadgets", 503, "", Outcome.UNAVAILABLE, "x < y"));
    j.add(req(8100, 5, "node-b", "/apis/demo.mvproxy.io/v1/gadgets", 200, "", Outcome.OK, ""));
    j.add(req(26000, 5, "node-b", "/apis/demo.mvproxy.io/v1/gadgets", 404, "", Outcome.FALSE_404, ""));
    RunReport r = new RunReport(true, 30, Map.of(Outcome.OK, 1L, Outcome.UNAVAILABLE, 1L, Outcome.FALSE_404, 1L),
        Map.of(GADGETS, 1L), 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, -1, List.of(19000L), j, List.of(), List.of());
    assertEquals(1, r.failures().size(), r.failures().toString());
    Path file = dir.resolve("sub/report.html");
    HtmlReport.write(file, "t", "seed 42", r, null);
    String page = Files.readString(file);
    assertFalse(page.contains("src=\"http") || page.contains("<link"), "nothing loaded from elsewhere");
    assertTrue(page.contains("FAILED (exit code 1)"), "the verdict names the failure");
    assertEquals(1, count(page, "<tr class=\"explained\">"), "the 503 in W1");
    assertEquals(1, count(page, "<tr class=\"unexplained\">"), "the false 404");
    assertTrue(page.contains("x &lt; y"), "messages are escaped");
    assertTrue(page.contains("<th>gate on</th>") && !page.contains("gate off</th>"),
        "a gate-on-only run has one column, not the gate-on figures twice");
    String md = Rehearsal.format(r, null);
    assertTrue(md.startsWith("| | gate on |\n|---|---|\n| client requests | 3 |\n"), md);
    assertTrue(Rehearsal.format(r, r).startsWith("| | gate on | gate off |\n|---|---|---|\n"), "both runs");
    Matcher m = Pattern.compile("data:image/svg\\+xml;base64,([A-Za-z0-9+/=]+)").matcher(page);
    assertTrue(m.find(), "the chart is inlined");
    byte[] svg = Base64.getDecoder().decode(m.group(1));
    var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(svg));
    assertEquals("svg", doc.getDocumentElement().getTagName());
    List<String> texts = Pattern.compile("<text[^>]*>([^<]*)</text>").matcher(new String(svg,
        StandardCharsets.UTF_8)).results().map(x -> x.group(1)).toList();
    // (the rotated rate-axis label is drawn as glyph outlines, not as text)
    assertTrue(texts.containsAll(List.of("node-a", "namespaces", "seconds since the run started", "W1", "503")),
        "lanes, the time axis, the window and the legend are drawn: " + texts);
  }

  private static int count(String s, String sub) {
    int n = 0;
    for (int i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + sub.length())) {
      n++;
    }
    return n;
  }
}

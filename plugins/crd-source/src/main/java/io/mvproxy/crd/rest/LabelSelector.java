package io.mvproxy.crd.rest;

import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed {@code labelSelector} (apimachinery {@code pkg/labels/selector.go}): comma-separated requirements
 * {@code k=v}, {@code k==v}, {@code k!=v}, {@code k in (a,b)}, {@code k notin (a,b)}, {@code k}, {@code !k}.
 */
public final class LabelSelector {
  private static final Pattern SET_OP = Pattern.compile("^([^\\s!=(),]+)\\s+(in|notin)\\s*\\((.*)\\)$");
  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?");
  private static final Pattern VALUE = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");

  private enum Op { EQ, NEQ, IN, NOTIN, EXISTS, NOTEXISTS }

  private record Req(String key, Op op, Set<String> values) {
  }

  private final List<Req> reqs;

  private LabelSelector(List<Req> reqs) {
    this.reqs = reqs;
  }

  /**
   * @param text the selector, null or blank for "everything"
   * @return the selector
   * @throws StatusException 400 BadRequest when it does not parse
   */
  public static LabelSelector parse(String text) {
    List<Req> out = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return new LabelSelector(out);
    }
    for (String term : splitTop(text)) {
      String t = term.trim();
      Matcher m = SET_OP.matcher(t);
      if (t.isEmpty()) {
        throw bad(text);
      } else if (m.matches()) {
        List<String> vals = new ArrayList<>();
        for (String v : m.group(3).split(",")) {
          vals.add(checkValue(v.trim(), text));
        }
        out.add(new Req(checkKey(m.group(1), text), "in".equals(m.group(2)) ? Op.IN : Op.NOTIN, Set.copyOf(vals)));
      } else if (t.startsWith("!")) {
        out.add(new Req(checkKey(t.substring(1).trim(), text), Op.NOTEXISTS, Set.of()));
      } else if (t.contains("!=")) {
        int i = t.indexOf("!=");
        out.add(new Req(checkKey(t.substring(0, i).trim(), text), Op.NEQ,
            Set.of(checkValue(t.substring(i + 2).trim(), text))));
      } else if (t.contains("==")) {
        int i = t.indexOf("==");
        out.add(new Req(checkKey(t.substring(0, i).trim(), text), Op.EQ,
            Set.of(checkValue(t.substring(i + 2).trim(), text))));
      } else if (t.contains("=")) {
        int i = t.indexOf('=');
        out.add(new Req(checkKey(t.substring(0, i).trim(), text), Op.EQ,
            Set.of(checkValue(t.substring(i + 1).trim(), text))));
      } else {
        out.add(new Req(checkKey(t, text), Op.EXISTS, Set.of()));
      }
    }
    return new LabelSelector(out);
  }

  /** @return true when the selector selects everything */
  public boolean isEmpty() {
    return reqs.isEmpty();
  }

  /**
   * @param object a Kubernetes object (labels read from {@code metadata.labels})
   * @return true when every requirement holds
   */
  public boolean matches(JsonObject object) {
    JsonObject meta = object.getJsonObject("metadata");
    JsonObject labels = meta == null ? null : meta.getJsonObject("labels");
    for (Req r : reqs) {
      Object raw = labels == null ? null : labels.getValue(r.key());
      String v = raw == null ? null : String.valueOf(raw);
      boolean ok = switch (r.op()) {
        case EQ, IN -> v != null && r.values().contains(v);
        case NEQ, NOTIN -> v == null || !r.values().contains(v);
        case EXISTS -> v != null;
        case NOTEXISTS -> v == null;
      };
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static List<String> splitTop(String s) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(s.substring(start, i));
        start = i + 1;
      }
    }
    out.add(s.substring(start));
    return out;
  }

  private static String checkKey(String k, String text) {
    if (!KEY.matcher(k).matches() || k.length() > 316) {
      throw bad(text);
    }
    return k;
  }

  private static String checkValue(String v, String text) {
    if (!VALUE.matcher(v).matches() || v.length() > 63) {
      throw bad(text);
    }
    return v;
  }

  private static StatusException bad(String text) {
    return StatusException.badRequest("unable to parse requirement: invalid label selector: \"" + text + "\"");
  }
}

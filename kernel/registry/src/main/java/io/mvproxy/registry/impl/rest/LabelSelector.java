package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.schema.GoValues;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A parsed {@code labelSelector}, lexed, parsed, validated and matched as apimachinery's {@code pkg/labels/selector.go}
 * ({@code Parse}, {@code NewRequirement}, {@code Requirement.Matches}): comma-separated requirements {@code k=v},
 * {@code k==v}, {@code k!=v}, {@code k in (a,b)}, {@code k notin (a,b)}, {@code k}, {@code !k}, {@code k>1},
 * {@code k<1}; errors carry upstream's texts, e.g. {@code unable to parse requirement: found '', expected: ',' or ')'}.
 */
public final class LabelSelector {
  private static final String BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt";
  private static final Map<String, Tok> TOKENS = Map.ofEntries(Map.entry(")", Tok.CLOSED_PAR),
      Map.entry(",", Tok.COMMA), Map.entry("!", Tok.DOES_NOT_EXIST), Map.entry("==", Tok.DOUBLE_EQUALS),
      Map.entry("=", Tok.EQUALS), Map.entry(">", Tok.GREATER_THAN), Map.entry("in", Tok.IN),
      Map.entry("<", Tok.LESS_THAN), Map.entry("!=", Tok.NOT_EQUALS), Map.entry("notin", Tok.NOT_IN),
      Map.entry("(", Tok.OPEN_PAR));

  private enum Tok {
    ERROR, END_OF_STRING, CLOSED_PAR, COMMA, DOES_NOT_EXIST, DOUBLE_EQUALS, EQUALS, GREATER_THAN, IDENTIFIER, IN,
    LESS_THAN, NOT_EQUALS, NOT_IN, OPEN_PAR
  }

  private enum Op { IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, EXISTS, DOES_NOT_EXIST, GREATER_THAN, LESS_THAN }

  private record Item(Tok tok, String literal) {
  }

  private record Req(String key, Op op, List<String> values) {
  }

  private final List<Req> reqs;

  private LabelSelector(List<Req> reqs) {
    this.reqs = reqs;
  }

  /**
   * @param text the selector, null, empty or blank for "everything"
   * @return the selector
   * @throws StatusException 400 BadRequest with {@code labels.Parse}'s error text
   */
  public static LabelSelector parse(String text) {
    if (text == null) {
      return new LabelSelector(List.of());
    }
    try {
      return new LabelSelector(new Parser(lex(text)).parse());
    } catch (IllegalArgumentException e) {
      throw StatusException.badRequest(e.getMessage());
    }
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
      if (!matches(r, v)) {
        return false;
      }
    }
    return true;
  }

  private static boolean matches(Req r, String v) {
    return switch (r.op()) {
      case IN, EQUALS, DOUBLE_EQUALS -> v != null && r.values().contains(v);
      case NOT_IN, NOT_EQUALS -> v == null || !r.values().contains(v);
      case EXISTS -> v != null;
      case DOES_NOT_EXIST -> v == null;
      case GREATER_THAN, LESS_THAN -> {
        if (v == null || r.values().size() != 1 || !GoParseInt.valid(v) || !GoParseInt.valid(r.values().get(0))) {
          yield false;
        }
        long have = GoParseInt.parse(v);
        long want = GoParseInt.parse(r.values().get(0));
        yield r.op() == Op.GREATER_THAN ? have > want : have < want;
      }
    };
  }

  // ---- lexer (selector.go Lexer) ----

  private static boolean whitespace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  }

  private static boolean special(char c) {
    return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
  }

  private static List<Item> lex(String s) {
    List<Item> items = new ArrayList<>();
    int[] pos = {0};
    while (true) {
      Item it = next(s, pos);
      items.add(it);
      if (it.tok() == Tok.END_OF_STRING) {
        return items;
      }
    }
  }

  /** @return the character at pos (advancing it), or 0 at the end, as {@code Lexer.read} */
  private static char read(String s, int[] pos) {
    if (pos[0] < s.length()) {
      return s.charAt(pos[0]++);
    }
    return 0;
  }

  private static Item next(String s, int[] pos) {
    char ch = read(s, pos);
    while (whitespace(ch)) {
      ch = read(s, pos);
    }
    if (ch == 0) {
      return new Item(Tok.END_OF_STRING, "");
    }
    pos[0]--;
    StringBuilder buf = new StringBuilder();
    if (special(ch)) {
      Item last = null;
      while (true) {
        char c = read(s, pos);
        if (c == 0) {
          break;
        }
        if (!special(c)) {
          pos[0]--;
          break;
        }
        buf.append(c);
        Tok t = TOKENS.get(buf.toString());
        if (t != null) {
          last = new Item(t, buf.toString());
        } else if (last != null) {
          pos[0]--;
          break;
        }
      }
      return last != null ? last : new Item(Tok.ERROR, "error expected: keyword found '" + buf + "'");
    }
    while (true) {
      char c = read(s, pos);
      if (c == 0) {
        break;
      }
      if (special(c) || whitespace(c)) {
        pos[0]--;
        break;
      }
      buf.append(c);
    }
    Tok t = TOKENS.get(buf.toString());
    return new Item(t != null ? t : Tok.IDENTIFIER, buf.toString());
  }

  // ---- parser (selector.go Parser) ----

  private static final class Parser {
    private final List<Item> items;
    private int position;

    Parser(List<Item> items) {
      this.items = items;
    }

    private Item at(int i, boolean values) {
      Item it = i < items.size() ? items.get(i) : items.get(items.size() - 1);
      if (values && (it.tok() == Tok.IN || it.tok() == Tok.NOT_IN)) {
        return new Item(Tok.IDENTIFIER, it.literal());
      }
      return it;
    }

    private Item lookahead(boolean values) {
      return at(position, values);
    }

    private Item consume(boolean values) {
      return at(position++, values);
    }

    List<Req> parse() {
      List<Req> reqs = new ArrayList<>();
      while (true) {
        Item it = lookahead(true);
        switch (it.tok()) {
          case IDENTIFIER, DOES_NOT_EXIST -> {
            Req r;
            try {
              r = requirement();
            } catch (IllegalArgumentException e) {
              throw new IllegalArgumentException("unable to parse requirement: " + e.getMessage());
            }
            reqs.add(r);
            Item t = consume(true);
            switch (t.tok()) {
              case END_OF_STRING -> {
                reqs.sort((a, b) -> a.key().compareTo(b.key()));
                return reqs;
              }
              case COMMA -> {
                Item t2 = lookahead(true);
                if (t2.tok() != Tok.IDENTIFIER && t2.tok() != Tok.DOES_NOT_EXIST) {
                  throw new IllegalArgumentException("found '" + t2.literal() + "', expected: identifier after ','");
                }
              }
              default -> throw new IllegalArgumentException("found '" + t.literal()
                  + "', expected: ',' or 'end of string'");
            }
          }
          case END_OF_STRING -> {
            reqs.sort((a, b) -> a.key().compareTo(b.key()));
            return reqs;
          }
          default -> throw new IllegalArgumentException("found '" + it.literal()
              + "', expected: !, identifier, or 'end of string'");
        }
      }
    }

    private Req requirement() {
      Op op = null;
      Item it = consume(true);
      if (it.tok() == Tok.DOES_NOT_EXIST) {
        op = Op.DOES_NOT_EXIST;
        it = consume(true);
      }
      if (it.tok() != Tok.IDENTIFIER) {
        throw new IllegalArgumentException("found '" + it.literal() + "', expected: identifier");
      }
      String key = it.literal();
      List<String> keyErrs = ObjectMetaValidator.qualifiedName(key);
      if (!keyErrs.isEmpty()) {
        throw new IllegalArgumentException("<nil>: Invalid value: " + GoValues.quote(key) + ": "
            + String.join("; ", keyErrs));
      }
      Tok next = lookahead(true).tok();
      if (next == Tok.END_OF_STRING || next == Tok.COMMA) {
        if (op != Op.DOES_NOT_EXIST) {
          op = Op.EXISTS;
        }
      }
      if (op == Op.EXISTS || op == Op.DOES_NOT_EXIST) {
        return newRequirement(key, op, List.of());
      }
      Item o = consume(false);
      op = switch (o.tok()) {
        case IN -> Op.IN;
        case EQUALS -> Op.EQUALS;
        case DOUBLE_EQUALS -> Op.DOUBLE_EQUALS;
        case GREATER_THAN -> Op.GREATER_THAN;
        case LESS_THAN -> Op.LESS_THAN;
        case NOT_IN -> Op.NOT_IN;
        case NOT_EQUALS -> Op.NOT_EQUALS;
        default -> throw new IllegalArgumentException("found '" + o.literal() + "', expected: " + BINARY_OPERATORS);
      };
      Set<String> values = op == Op.IN || op == Op.NOT_IN ? values() : exactValue();
      return newRequirement(key, op, new ArrayList<>(new TreeSet<>(values)));
    }

    private Set<String> values() {
      Item it = consume(true);
      if (it.tok() != Tok.OPEN_PAR) {
        throw new IllegalArgumentException("found '" + it.literal() + "' expected: '('");
      }
      Item la = lookahead(true);
      switch (la.tok()) {
        case IDENTIFIER, COMMA -> {
          Set<String> s = identifiers();
          if (consume(true).tok() != Tok.CLOSED_PAR) {
            throw new IllegalArgumentException("found '" + la.literal() + "', expected: ')'");
          }
          return s;
        }
        case CLOSED_PAR -> {
          consume(true);
          return Set.of("");
        }
        default -> throw new IllegalArgumentException("found '" + la.literal()
            + "', expected: ',', ')' or identifier");
      }
    }

    private Set<String> identifiers() {
      Set<String> s = new LinkedHashSet<>();
      while (true) {
        Item it = consume(true);
        switch (it.tok()) {
          case IDENTIFIER -> {
            s.add(it.literal());
            Item t2 = lookahead(true);
            switch (t2.tok()) {
              case COMMA -> {
              }
              case CLOSED_PAR -> {
                return s;
              }
              default -> throw new IllegalArgumentException("found '" + t2.literal() + "', expected: ',' or ')'");
            }
          }
          case COMMA -> {
            if (s.isEmpty()) {
              s.add("");
            }
            Tok t2 = lookahead(true).tok();
            if (t2 == Tok.CLOSED_PAR) {
              s.add("");
              return s;
            }
            if (t2 == Tok.COMMA) {
              s.add("");
            }
          }
          default -> throw new IllegalArgumentException("found '" + it.literal() + "', expected: ',', or identifier");
        }
      }
    }

    private Set<String> exactValue() {
      Tok la = lookahead(true).tok();
      if (la == Tok.END_OF_STRING || la == Tok.COMMA) {
        return Set.of("");
      }
      Item it = consume(true);
      if (it.tok() == Tok.IDENTIFIER) {
        return Set.of(it.literal());
      }
      throw new IllegalArgumentException("found '" + it.literal() + "', expected: identifier");
    }
  }

  /** {@code NewRequirement}: the value checks; several errors read {@code [e1, e2]} as an aggregate. */
  private static Req newRequirement(String key, Op op, List<String> vals) {
    Set<String> errs = new LinkedHashSet<>();
    if ((op == Op.IN || op == Op.NOT_IN) && vals.isEmpty()) {
      errs.add("values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty");
    }
    if (op == Op.GREATER_THAN || op == Op.LESS_THAN) {
      for (int i = 0; i < vals.size(); i++) {
        if (!GoParseInt.valid(vals.get(i))) {
          errs.add("values[" + i + "]: Invalid value: " + GoValues.quote(vals.get(i))
              + ": for 'Gt', 'Lt' operators, the value must be an integer");
        }
      }
    }
    for (int i = 0; i < vals.size(); i++) {
      List<String> bad = ObjectMetaValidator.labelValue(vals.get(i));
      if (!bad.isEmpty()) {
        errs.add("values[" + i + "][" + key + "]: Invalid value: " + GoValues.quote(vals.get(i)) + ": "
            + String.join("; ", bad));
      }
    }
    if (errs.size() == 1) {
      throw new IllegalArgumentException(errs.iterator().next());
    }
    if (!errs.isEmpty()) {
      throw new IllegalArgumentException("[" + String.join(", ", errs) + "]");
    }
    return new Req(key, op, List.copyOf(vals));
  }
}

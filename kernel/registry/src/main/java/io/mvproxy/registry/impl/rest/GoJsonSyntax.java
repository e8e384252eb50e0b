package io.mvproxy.registry.impl.rest;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * The texts kube-apiserver answers for a create or update body it cannot read as a JSON object: Go's
 * {@code encoding/json} syntax errors (the state machine of {@code src/encoding/json/scanner.go}, ported state for
 * state so the message and the character it names are Go's: {@code invalid character '}' looking for beginning of
 * object key string}, {@code unexpected end of JSON input}), wrapped as apimachinery's {@code SimpleMetaFactory
 * .Interpret} and apiserver's {@code handlers/rest.go transformDecodeError} wrap them. Used on the error path only:
 * the body itself is decoded by {@link StrictJson}.
 */
public final class GoJsonSyntax {
  /** Go's {@code maxNestingDepth} of the scanner. */
  static final int MAX_NESTING_DEPTH = 10000;
  /** The bytes of a body {@code summarizeData} shows. */
  static final int SUMMARY_BYTES = 30;
  /**
   * The type {@code Interpret} decodes a body into, as Go's {@code reflect} prints it (its {@code UnmarshalTypeError}
   * for a body that is not an object names it).
   */
  static final String FIND_KIND_TYPE = "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
      + "Kind string \"json:\\\"kind,omitempty\\\"\" }";

  private GoJsonSyntax() {
  }

  /**
   * @param kind the kind the request writes (e.g. {@code ConfigMap})
   * @param body the body as sent (JSON)
   * @return kube-apiserver's 400 message for a body that is not JSON or not an object, e.g. {@code the object
   *     provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected
   *     end of JSON input ({"a":)}; null when the body is syntactically valid JSON with an object or {@code null} at
   *     its top (its error, if any, lies elsewhere)
   */
  public static String unrecognized(String kind, byte[] body) {
    String err = syntaxError(body);
    if (err == null) {
      String type = topLevelType(body);
      if (type == null) {
        return null;
      }
      err = "json: cannot unmarshal " + type + " into Go value of type " + FIND_KIND_TYPE;
    }
    return "the object provided is unrecognized (must be of type " + kind + "): couldn't get version/kind; json "
        + "parse error: " + err + " (" + summarize(body) + ")";
  }

  /**
   * @param data     bytes a decoder refused
   * @param fallback the decoder's own text
   * @return Go's syntax error of {@code data} ({@link #syntaxError}), or {@code fallback} when Go would read it (the
   *     refusal was for something else: a number out of range, nesting)
   */
  public static String syntaxErrorOr(byte[] data, String fallback) {
    String err = syntaxError(data);
    return err != null ? err : fallback;
  }

  /**
   * Go's {@code checkValid}.
   *
   * @param data the bytes
   * @return the {@code SyntaxError} text, or null when {@code data} is one valid JSON value
   */
  public static String syntaxError(byte[] data) {
    Scanner s = new Scanner();
    for (byte b : data) {
      if (s.step(b & 0xff) == Scanner.ERROR) {
        return s.err;
      }
    }
    return s.eof() ? null : s.err;
  }

  /**
   * What Go's decoder makes of the bytes of a JSON text that are not UTF-8 ({@code encoding/json unquote}: each byte
   * {@code utf8.DecodeRune} cannot read becomes U+FFFD); valid UTF-8 is returned as it is (the same array).
   *
   * @param data bytes Go's scanner accepts (invalid UTF-8 can only be inside strings then)
   * @return UTF-8 bytes
   */
  public static byte[] replaceInvalidUtf8(byte[] data) {
    java.io.ByteArrayOutputStream out = null;
    int i = 0;
    while (i < data.length) {
      int size = runeSize(data, i);
      if (size > 0) {
        if (out != null) {
          out.write(data, i, size);
        }
        i += size;
        continue;
      }
      if (out == null) {
        out = new java.io.ByteArrayOutputStream(data.length + 16);
        out.write(data, 0, i);
      }
      out.write(0xef);
      out.write(0xbf);
      out.write(0xbd);
      i++;
    }
    return out == null ? data : out.toByteArray();
  }

  /** @return the length of the valid UTF-8 sequence at {@code i} as Go's {@code utf8.DecodeRune} reads it, or 0 */
  private static int runeSize(byte[] b, int i) {
    int b0 = b[i] & 0xff;
    if (b0 < 0x80) {
      return 1;
    }
    int n;
    int lo = 0x80;
    int hi = 0xbf;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      n = 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      n = 3;
      lo = b0 == 0xe0 ? 0xa0 : 0x80;
      hi = b0 == 0xed ? 0x9f : 0xbf;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      n = 4;
      lo = b0 == 0xf0 ? 0x90 : 0x80;
      hi = b0 == 0xf4 ? 0x8f : 0xbf;
    } else {
      return 0;
    }
    if (i + n > b.length) {
      return 0;
    }
    int b1 = b[i + 1] & 0xff;
    if (b1 < lo || b1 > hi) {
      return 0;
    }
    for (int k = 2; k < n; k++) {
      int c = b[i + k] & 0xff;
      if (c < 0x80 || c > 0xbf) {
        return 0;
      }
    }
    return n;
  }

  /**
   * apiserver's {@code summarizeData(body, 30)}: an object's first 30 bytes as text, anything else as hex, with
   * {@code " ..."} when cut; {@code <empty>} for no bytes.
   */
  static String summarize(byte[] data) {
    if (data.length == 0) {
      return "<empty>";
    }
    boolean cut = data.length > SUMMARY_BYTES;
    byte[] head = cut ? java.util.Arrays.copyOf(data, SUMMARY_BYTES) : data;
    String shown = data[0] == '{' ? new String(head, StandardCharsets.UTF_8) : HexFormat.of().formatHex(head);
    return cut ? shown + " ..." : shown;
  }

  /** @return the Go value kind of a valid body's top-level value that is not an object or null, else null */
  private static String topLevelType(byte[] data) {
    for (byte b : data) {
      switch (b) {
        case ' ', '\t', '\r', '\n' -> {
          continue;
        }
        case '[' -> {
          return "array";
        }
        case '"' -> {
          return "string";
        }
        case 't', 'f' -> {
          return "bool";
        }
        case '{', 'n' -> {
          return null;
        }
        default -> {
          return "number";
        }
      }
    }
    return null;
  }

  /** Go's {@code quoteChar}: a byte as a quoted character literal ({@link io.mvproxy.api.GoStrings#quoteChar}). */
  static String quoteChar(int c) {
    return io.mvproxy.api.GoStrings.quoteChar(c);
  }

  /** The scanner's states ({@code scanner.step}), one per Go state function. */
  private enum State {
    BEGIN_VALUE_OR_EMPTY, BEGIN_VALUE, BEGIN_STRING_OR_EMPTY, BEGIN_STRING, END_VALUE, END_TOP, IN_STRING,
    IN_STRING_ESC, IN_STRING_ESC_U, IN_STRING_ESC_U1, IN_STRING_ESC_U12, IN_STRING_ESC_U123, NEG, ONE, ZERO, DOT,
    DOT0, E, E_SIGN, E0, T, TR, TRU, F, FA, FAL, FALS, N, NU, NUL, ERROR
  }

  /** Go's {@code scanner}, reduced to what {@code checkValid} needs: continue, end or error. */
  private static final class Scanner {
    static final int CONTINUE = 0;
    static final int END = 1;
    static final int ERROR = 2;
    private static final int PARSE_OBJECT_KEY = 0;
    private static final int PARSE_OBJECT_VALUE = 1;
    private static final int PARSE_ARRAY_VALUE = 2;

    private State step = State.BEGIN_VALUE;
    private boolean endTop;
    private int[] parseState = new int[16];
    private int depth;
    private String err;

    /** {@code scanner.eof}: @return true when the input ended after one complete value */
    boolean eof() {
      if (err != null) {
        return false;
      }
      if (endTop) {
        return true;
      }
      step(' ');
      if (endTop) {
        return true;
      }
      if (err == null) {
        err = "unexpected end of JSON input";
      }
      return false;
    }

    private int error(int c, String context) {
      step = State.ERROR;
      err = "invalid character " + quoteChar(c) + " " + context;
      return ERROR;
    }

    private int push(int c, int state) {
      if (depth == parseState.length) {
        parseState = java.util.Arrays.copyOf(parseState, depth * 2);
      }
      parseState[depth++] = state;
      return depth <= MAX_NESTING_DEPTH ? CONTINUE : error(c, "exceeded max depth");
    }

    private void pop() {
      depth--;
      if (depth == 0) {
        step = State.END_TOP;
        endTop = true;
      } else {
        step = State.END_VALUE;
      }
    }

    private static boolean isSpace(int c) {
      return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private static boolean isHex(int c) {
      return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F';
    }

    private int next(State s) {
      step = s;
      return CONTINUE;
    }

    /** One byte through the current state function. */
    int step(int c) {
      return switch (step) {
        case BEGIN_VALUE_OR_EMPTY -> isSpace(c) ? CONTINUE : c == ']' ? endValue(c) : beginValue(c);
        case BEGIN_VALUE -> beginValue(c);
        case BEGIN_STRING_OR_EMPTY -> {
          if (isSpace(c)) {
            yield CONTINUE;
          }
          if (c == '}') {
            parseState[depth - 1] = PARSE_OBJECT_VALUE;
            yield endValue(c);
          }
          yield beginString(c);
        }
        case BEGIN_STRING -> beginString(c);
        case END_VALUE -> endValue(c);
        case END_TOP -> endTop(c);
        case IN_STRING -> c == '"' ? next(State.END_VALUE) : c == '\\' ? next(State.IN_STRING_ESC)
            : c < 0x20 ? error(c, "in string literal") : CONTINUE;
        case IN_STRING_ESC -> switch (c) {
          case 'b', 'f', 'n', 'r', 't', '\\', '/', '"' -> next(State.IN_STRING);
          case 'u' -> next(State.IN_STRING_ESC_U);
          default -> error(c, "in string escape code");
        };
        case IN_STRING_ESC_U -> hex(c, State.IN_STRING_ESC_U1);
        case IN_STRING_ESC_U1 -> hex(c, State.IN_STRING_ESC_U12);
        case IN_STRING_ESC_U12 -> hex(c, State.IN_STRING_ESC_U123);
        case IN_STRING_ESC_U123 -> hex(c, State.IN_STRING);
        case NEG -> c == '0' ? next(State.ZERO) : '1' <= c && c <= '9' ? next(State.ONE)
            : error(c, "in numeric literal");
        case ONE -> '0' <= c && c <= '9' ? next(State.ONE) : zero(c);
        case ZERO -> zero(c);
        case DOT -> '0' <= c && c <= '9' ? next(State.DOT0) : error(c, "after decimal point in numeric literal");
        case DOT0 -> '0' <= c && c <= '9' ? CONTINUE : c == 'e' || c == 'E' ? next(State.E) : endValue(c);
        case E -> c == '+' || c == '-' ? next(State.E_SIGN) : eSign(c);
        case E_SIGN -> eSign(c);
        case E0 -> '0' <= c && c <= '9' ? CONTINUE : endValue(c);
        case T -> literal(c, 'r', State.TR, "true");
        case TR -> literal(c, 'u', State.TRU, "true");
        case TRU -> literal(c, 'e', State.END_VALUE, "true");
        case F -> literal(c, 'a', State.FA, "false");
        case FA -> literal(c, 'l', State.FAL, "false");
        case FAL -> literal(c, 's', State.FALS, "false");
        case FALS -> literal(c, 'e', State.END_VALUE, "false");
        case N -> literal(c, 'u', State.NU, "null");
        case NU -> literal(c, 'l', State.NUL, "null");
        case NUL -> literal(c, 'l', State.END_VALUE, "null");
        case ERROR -> ERROR;
      };
    }

    private int hex(int c, State then) {
      return isHex(c) ? next(then) : error(c, "in \\u hexadecimal character escape");
    }

    private int literal(int c, char want, State then, String word) {
      return c == want ? next(then) : error(c, "in literal " + word + " (expecting '" + want + "')");
    }

    private int zero(int c) {
      return c == '.' ? next(State.DOT) : c == 'e' || c == 'E' ? next(State.E) : endValue(c);
    }

    private int eSign(int c) {
      return '0' <= c && c <= '9' ? next(State.E0) : error(c, "in exponent of numeric literal");
    }

    private int beginValue(int c) {
      if (isSpace(c)) {
        return CONTINUE;
      }
      switch (c) {
        case '{' -> {
          step = State.BEGIN_STRING_OR_EMPTY;
          return push(c, PARSE_OBJECT_KEY);
        }
        case '[' -> {
          step = State.BEGIN_VALUE_OR_EMPTY;
          return push(c, PARSE_ARRAY_VALUE);
        }
        case '"' -> {
          return next(State.IN_STRING);
        }
        case '-' -> {
          return next(State.NEG);
        }
        case '0' -> {
          return next(State.ZERO);
        }
        case 't' -> {
          return next(State.T);
        }
        case 'f' -> {
          return next(State.F);
        }
        case 'n' -> {
          return next(State.N);
        }
        default -> {
          return '1' <= c && c <= '9' ? next(State.ONE) : error(c, "looking for beginning of value");
        }
      }
    }

    private int beginString(int c) {
      if (isSpace(c)) {
        return CONTINUE;
      }
      return c == '"' ? next(State.IN_STRING) : error(c, "looking for beginning of object key string");
    }

    private int endValue(int c) {
      if (depth == 0) {
        step = State.END_TOP;
        endTop = true;
        return endTop(c);
      }
      if (isSpace(c)) {
        step = State.END_VALUE;
        return CONTINUE;
      }
      switch (parseState[depth - 1]) {
        case PARSE_OBJECT_KEY -> {
          if (c == ':') {
            parseState[depth - 1] = PARSE_OBJECT_VALUE;
            return next(State.BEGIN_VALUE);
          }
          return error(c, "after object key");
        }
        case PARSE_OBJECT_VALUE -> {
          if (c == ',') {
            parseState[depth - 1] = PARSE_OBJECT_KEY;
            return next(State.BEGIN_STRING);
          }
          if (c == '}') {
            pop();
            return CONTINUE;
          }
          return error(c, "after object key:value pair");
        }
        default -> {
          if (c == ',') {
            return next(State.BEGIN_VALUE);
          }
          if (c == ']') {
            pop();
            return CONTINUE;
          }
          return error(c, "after array element");
        }
      }
    }

    /** Go's {@code stateEndTop}: a non-space byte is an error on the next call (or at eof). */
    private int endTop(int c) {
      if (!isSpace(c)) {
        error(c, "after top-level value");
      }
      return END;
    }
  }
}

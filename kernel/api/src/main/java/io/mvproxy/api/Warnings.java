package io.mvproxy.api;

import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A request's {@code Warning} response headers, the one writer of them: apiserver's {@code warning.AddWarning} with
 * the deduplicating recorder of {@code pkg/endpoints/filters/warning.go}. A text is written once however often it is
 * added (a write retried after a lost race adds its warnings again); a text that is empty or holds
 * a control character is dropped ({@code net.NewWarningHeader} refuses it, and a line break would break the
 * response); once the texts exceed {@link #TRUNCATE_AT_TOTAL_RUNES} runes in all, every text, those written and those
 * to come, is cut to {@link #TRUNCATE_ITEM_RUNES} runes. The header is {@code 299 - "<text>"}, {@code "} and
 * {@code \} escaped ({@code net.NewWarningHeader}, agent {@code -}), sent as UTF-8 bytes as Go's server sends it.
 *
 * <p>One instance per request ({@link RequestScope#warnings()}), confined to its event loop.
 */
public final class Warnings {
  /** Runes of warning text written in all before the recorder truncates ({@code truncateAtTotalRunes}). */
  public static final int TRUNCATE_AT_TOTAL_RUNES = 4 * 1024;
  /** Runes each text is cut to once truncating ({@code truncateItemRunes}). */
  public static final int TRUNCATE_ITEM_RUNES = 256;

  private final Set<String> recorded = new HashSet<>();
  private final List<String> ordered = new ArrayList<>();
  private int written;
  private boolean truncating;

  Warnings() {
  }

  /**
   * Adds a warning to the request's response ({@code warning.AddWarning(ctx, "", text)}); nothing once the response
   * head is written, or when {@code ctx} is null (a write made by the node itself, with no client to tell).
   *
   * @param ctx  the request
   * @param text the warning text, without quotes or escapes
   */
  public static void add(RoutingContext ctx, String text) {
    // most requests add none or a null one (a version that is not deprecated): no recorder made for them
    if (ctx != null && text != null && !text.isEmpty()) {
      RequestScope.of(ctx).warnings().record(ctx.response(), text);
    }
  }

  /**
   * The recorder's {@code AddWarning}.
   *
   * @param resp the response the headers go to
   * @param raw  the warning text as added (unpaired surrogates not yet U+FFFD)
   */
  void record(HttpServerResponse resp, String raw) {
    if (raw == null || raw.isEmpty() || written >= TRUNCATE_AT_TOTAL_RUNES && truncating) {
      return;
    }
    String text = wellFormed(raw);
    if (!recorded.add(text)) {
      return;
    }
    ordered.add(text);
    String shown = truncating ? truncate(text) : text;
    String header = header(shown);
    if (header == null || resp.headWritten()) {
      return;
    }
    int runes = shown.codePointCount(0, shown.length());
    if (written + runes <= TRUNCATE_AT_TOTAL_RUNES || truncating) {
      written += runes;
      resp.headers().add("Warning", wire(header));
      return;
    }
    truncating = true;
    written = 0;
    resp.headers().remove("Warning");
    for (String t : ordered) {
      String cut = truncate(t);
      String h = header(cut);
      if (h != null) {
        written += cut.codePointCount(0, cut.length());
        resp.headers().add("Warning", wire(h));
      }
    }
  }

  /**
   * @return {@code text} with each unpaired surrogate as U+FFFD, as Go's JSON decoder reads it (a webhook's warnings
   *     are decoded so before the recorder deduplicates them)
   */
  static String wellFormed(String text) {
    StringBuilder b = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean pair = Character.isHighSurrogate(c) && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1));
      if (pair) {
        if (b != null) {
          b.append(c).append(text.charAt(i + 1));
        }
        i++;
      } else if (Character.isSurrogate(c)) {
        if (b == null) {
          b = new StringBuilder(text.length()).append(text, 0, i);
        }
        b.append('\uFFFD');
      } else if (b != null) {
        b.append(c);
      }
    }
    return b == null ? text : b.toString();
  }

  /**
   * @return {@code header} as its UTF-8 bytes, one char each: the HTTP codec writes a header's chars as ISO-8859-1
   *     bytes (others as {@code ?}), Go's server writes the string's UTF-8 bytes, which clients decode
   */
  private static String wire(String header) {
    return new String(header.getBytes(java.nio.charset.StandardCharsets.UTF_8),
        java.nio.charset.StandardCharsets.ISO_8859_1);
  }

  private static String truncate(String text) {
    return text.codePointCount(0, text.length()) <= TRUNCATE_ITEM_RUNES ? text
        : text.substring(0, text.offsetByCodePoints(0, TRUNCATE_ITEM_RUNES));
  }

  /**
   * {@code net.NewWarningHeader(299, "", text)}.
   *
   * @param text the warning text
   * @return {@code 299 - "<text>"} with {@code "} and {@code \} escaped and an unpaired surrogate as U+FFFD, or
   *     null when the text holds a control character ({@code unicode.IsControl}: U+0000-U+001F, U+007F-U+009F)
   */
  public static String header(String text) {
    String t = wellFormed(text);
    StringBuilder b = new StringBuilder(t.length() + 8).append("299 - \"");
    for (int i = 0; i < t.length(); i++) {
      char c = t.charAt(i);
      if (Character.isISOControl(c)) {
        return null;
      }
      if (c == '"' || c == '\\') {
        b.append('\\');
      }
      b.append(c);
    }
    return b.append('"').toString();
  }
}

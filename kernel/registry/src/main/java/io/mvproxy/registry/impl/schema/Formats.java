package io.mvproxy.registry.impl.schema;

import com.google.re2j.Pattern;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The string formats kube-apiserver checks in custom resources: kube-openapi {@code pkg/validation/strfmt}
 * ({@code default.go}, {@code date.go}, {@code time.go}, {@code duration.go}, {@code kubernetes-extensions.go},
 * govalidator patterns) restricted to the list of apiextensions-apiserver {@code pkg/apiserver/validation/formats.go}
 * at compatibility version 1.33 (unsupported formats are ignored, as there; {@code k8s-short-name} and
 * {@code k8s-long-name} arrive in 1.34). Names are normalised by dropping dashes ({@code date-time} =
 * {@code datetime}).
 */
public final class Formats {
  private static final Pattern HOSTNAME = Pattern.compile("^([a-zA-Z0-9\\p{S}\\p{L}]((-?[a-zA-Z0-9\\p{S}\\p{L}]{0,62})?)"
      + "|([a-zA-Z0-9\\p{S}\\p{L}](([a-zA-Z0-9-\\p{S}\\p{L}]{0,61}[a-zA-Z0-9\\p{S}\\p{L}])?)(\\.)){1,}"
      + "([a-zA-Z\\p{L}]){2,63})$");
  private static final Pattern UUID = Pattern.compile(
      "(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$");
  private static final Pattern UUID3 = Pattern.compile(
      "(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$");
  private static final Pattern UUID4 = Pattern.compile(
      "(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$");
  private static final Pattern UUID5 = Pattern.compile(
      "(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$");
  private static final Pattern CREDIT_CARD = Pattern.compile("^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}"
      + "|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\\d{3})\\d{11})$");
  private static final Pattern ISBN10 = Pattern.compile("^(?:[0-9]{9}X|[0-9]{10})$");
  private static final Pattern ISBN13 = Pattern.compile("^(?:[0-9]{13})$");
  private static final Pattern HEXCOLOR = Pattern.compile("^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$");
  private static final Pattern RGBCOLOR = Pattern.compile("^rgb\\(\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*,"
      + "\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*,\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*\\)$");
  private static final Pattern BASE64 = Pattern.compile(
      "^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$");
  private static final Pattern SSN = Pattern.compile("^\\d{3}[- ]?\\d{2}[- ]?\\d{4}$");
  private static final Pattern DATE_TIME_TAIL = Pattern.compile(
      "^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$");
  private static final Pattern SCALA_DURATION = Pattern.compile("((\\d+)\\s*([A-Za-zµ]+))");
  private static final Pattern GO_DURATION = Pattern.compile(
      "^[-+]?(0|(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$");
  private static final Pattern BSON_OBJECT_ID = Pattern.compile("^[0-9a-fA-F]{24}$");
  private static final Pattern EMAIL = Pattern.compile(
      "^(?:[^<>@\\s]*<)?[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9.\\[\\]:-]+>?$");
  private static final Pattern MAC = Pattern.compile("^(?:[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){5}"
      + "|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){7}|[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){19}"
      + "|[0-9a-fA-F]{4}(?:\\.[0-9a-fA-F]{4}){2}|[0-9a-fA-F]{4}(?:\\.[0-9a-fA-F]{4}){3}"
      + "|[0-9a-fA-F]{4}(?:\\.[0-9a-fA-F]{4}){9})$");
  private static final DateTimeFormatter FULL_DATE = DateTimeFormatter.ofPattern("uuuu-MM-dd")
      .withResolverStyle(ResolverStyle.STRICT);
  private static final List<List<String>> TIME_UNITS = List.of(List.of("ns", "nano"), List.of("us", "µs", "micro"),
      List.of("ms", "milli"), List.of("s", "sec"), List.of("m", "min"), List.of("h", "hr", "hour"),
      List.of("d", "day"), List.of("w", "wk", "week"));

  private static final Map<String, Predicate<String>> CHECKS = Map.ofEntries(
      Map.entry("bsonobjectid", s -> BSON_OBJECT_ID.matcher(s).find()),
      Map.entry("uri", Formats::isRequestUri),
      Map.entry("email", s -> EMAIL.matcher(s).find()),
      Map.entry("hostname", Formats::isHostname),
      Map.entry("ipv4", s -> IpAddresses.parseIp(s) != null && s.contains(".")),
      Map.entry("ipv6", s -> IpAddresses.parseIp(s) != null && s.contains(":")),
      Map.entry("cidr", s -> IpAddresses.parseCidr(s) != null),
      Map.entry("mac", s -> MAC.matcher(s).find()),
      Map.entry("uuid", s -> UUID.matcher(s).find()),
      Map.entry("uuid3", s -> UUID3.matcher(s).find()),
      Map.entry("uuid4", s -> UUID4.matcher(s).find()),
      Map.entry("uuid5", s -> UUID5.matcher(s).find()),
      Map.entry("isbn", s -> ISBN10.matcher(digits(s)).find() && isbn10(digits(s))
          || ISBN13.matcher(digits(s)).find() && isbn13(digits(s))),
      Map.entry("isbn10", s -> ISBN10.matcher(digits(s)).find() && isbn10(digits(s))),
      Map.entry("isbn13", s -> ISBN13.matcher(digits(s)).find() && isbn13(digits(s))),
      Map.entry("creditcard", Formats::isCreditCard),
      Map.entry("ssn", s -> s.length() >= 9 && SSN.matcher(s).find()),
      Map.entry("hexcolor", s -> HEXCOLOR.matcher(s).find()),
      Map.entry("rgbcolor", s -> RGBCOLOR.matcher(s).find()),
      Map.entry("byte", s -> BASE64.matcher(s).find()),
      Map.entry("password", s -> true),
      Map.entry("date", Formats::isDate),
      Map.entry("duration", Formats::isDuration),
      Map.entry("datetime", Formats::isDateTime));
  /** The normalised names checked. */
  public static final Set<String> SUPPORTED = CHECKS.keySet();

  private Formats() {
  }

  /**
   * @param format a schema {@code format}
   * @param type   the schema {@code type}
   * @return the format kube-apiserver validates for it (normalised), or null when it is ignored
   *     ({@code StripUnsupportedFormatsPostProcessorForVersion}; int32/int64/float/double are type hints only)
   */
  public static String effective(String format, String type) {
    if (format == null || format.isEmpty() || !(type.isEmpty() || "string".equals(type))) {
      return null;
    }
    String n = format.replace("-", "");
    return CHECKS.containsKey(n) ? n : null;
  }

  /**
   * @param normalized a name from {@link #SUPPORTED}
   * @param s          the string
   * @return true when {@code s} is valid in that format
   */
  public static boolean valid(String normalized, String s) {
    Predicate<String> p = CHECKS.get(normalized);
    return p == null || p.test(s);
  }

  /** @return {@code strfmt.IsDateTime} */
  public static boolean isDateTime(String str) {
    if (str.length() < 4) {
      return false;
    }
    String[] s = str.toLowerCase(Locale.ROOT).split("t", -1);
    if (s.length < 2 || !isDate(s[0])) {
      return false;
    }
    var m = DATE_TIME_TAIL.matcher(s[1]);
    if (!m.find()) {
      return false;
    }
    return m.group(1).compareTo("23") <= 0 && m.group(2).compareTo("59") <= 0 && m.group(3).compareTo("59") <= 0;
  }

  /** @return {@code time.Parse("2006-01-02", s) == nil} */
  public static boolean isDate(String s) {
    if (s.length() != 10) {
      return false;
    }
    try {
      LocalDate.parse(s, FULL_DATE);
      return true;
    } catch (DateTimeParseException e) {
      return false;
    }
  }

  /** @return {@code strfmt.IsDuration}: Go {@code time.ParseDuration} or the Scala-like fallback */
  public static boolean isDuration(String s) {
    if (GO_DURATION.matcher(s).find()) {
      return true;
    }
    var m = SCALA_DURATION.matcher(s);
    boolean ok = false;
    while (m.find()) {
      String unit = m.group(3).trim().toLowerCase(Locale.ROOT);
      for (List<String> variants : TIME_UNITS) {
        int last = variants.size() - 1;
        for (int i = 0; i < variants.size(); i++) {
          String variant = variants.get(i);
          if (last == i && unit.startsWith(variant) || variant.equalsIgnoreCase(unit)) {
            ok = true;
          }
        }
      }
    }
    return ok;
  }

  private static boolean isHostname(String s) {
    if (!HOSTNAME.matcher(s).find() || s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) {
      return false;
    }
    for (String p : s.split("\\.", -1)) {
      if (p.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 63) {
        return false;
      }
    }
    return true;
  }

  /** {@code url.ParseRequestURI}: an absolute URI or an absolute path, no fragment-only or relative forms. */
  private static boolean isRequestUri(String s) {
    if (s.isEmpty()) {
      return false;
    }
    String noFrag = s;
    try {
      URI u = new URI(noFrag.replace(" ", "%20"));
      return u.getScheme() != null || s.startsWith("/");
    } catch (URISyntaxException e) {
      return false;
    }
  }

  private static String digits(String s) {
    return s.replaceAll("[\\s-]", "");
  }

  private static boolean isbn10(String s) {
    int sum = 0;
    for (int i = 0; i < 9; i++) {
      sum += (i + 1) * (s.charAt(i) - '0');
    }
    sum += s.charAt(9) == 'X' ? 100 : 10 * (s.charAt(9) - '0');
    return sum % 11 == 0;
  }

  private static boolean isbn13(String s) {
    int sum = 0;
    for (int i = 0; i < 12; i++) {
      sum += (i % 2 == 0 ? 1 : 3) * (s.charAt(i) - '0');
    }
    return (10 - sum % 10) % 10 == s.charAt(12) - '0';
  }

  private static boolean isCreditCard(String str) {
    String s = str.replaceAll("[^0-9]+", "");
    if (!CREDIT_CARD.matcher(s).find()) {
      return false;
    }
    int sum = 0;
    boolean shouldDouble = false;
    for (int i = s.length() - 1; i >= 0; i--) {
      int d = s.charAt(i) - '0';
      if (shouldDouble) {
        d *= 2;
        if (d >= 10) {
          d = d % 10 + 1;
        }
      }
      sum += d;
      shouldDouble = !shouldDouble;
    }
    return sum % 10 == 0;
  }
}

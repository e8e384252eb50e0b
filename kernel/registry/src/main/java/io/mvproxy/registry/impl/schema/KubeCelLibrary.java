package io.mvproxy.registry.impl.schema;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.CelType;
import dev.cel.common.types.ListType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelFunctionBinding;
import java.math.BigDecimal;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Kubernetes CEL libraries of apiserver {@code pkg/cel/library} that CRD rules use, for {@code dev.cel:cel}:
 * {@code lists.go} (isSorted, sum, min, max, indexOf, lastIndexOf), {@code regex.go} (find, findAll),
 * {@code urls.go} (url, isURL, getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery), {@code ip.go}
 * (ip, isIP, family, isUnspecified, isLoopback, isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast),
 * {@code cidr.go} (cidr, isCIDR, containsIP, containsCIDR, ip, masked, prefixLength) and {@code quantity.go}
 * (quantity, isQuantity, isInteger, asInteger, asApproximateFloat, sign, add, sub, compareTo, isGreaterThan,
 * isLessThan). Error texts follow the upstream ones where callers see them.
 */
public final class KubeCelLibrary {
  /** {@code net.IP}. */
  public static final CelType IP = OpaqueType.create("net.IP");
  /** {@code net.CIDR}. */
  public static final CelType CIDR = OpaqueType.create("net.CIDR");
  /** {@code kubernetes.URL}. */
  public static final CelType URL = OpaqueType.create("kubernetes.URL");
  /** {@code kubernetes.Quantity}. */
  public static final CelType QUANTITY = OpaqueType.create("kubernetes.Quantity");
  private static final CelType LIST = ListType.create(SimpleType.DYN);
  private static final CelType STRING = SimpleType.STRING;
  private static final CelType BOOL = SimpleType.BOOL;
  private static final CelType INT = SimpleType.INT;

  /** An IP address value. */
  public record IpValue(InetAddress address) {
  }

  /** A CIDR value: the address as written and the prefix length. */
  public record CidrValue(InetAddress address, int prefix) {
  }

  /** A URL value. */
  public record UrlValue(URI uri) {
  }

  private KubeCelLibrary() {
  }

  /** @return the function declarations */
  public static List<CelFunctionDecl> declarations() {
    return List.of(
        member("isSorted", "list_is_sorted", BOOL, LIST),
        member("sum", "list_sum", SimpleType.DYN, LIST),
        member("min", "list_min", SimpleType.DYN, LIST),
        member("max", "list_max", SimpleType.DYN, LIST),
        member("indexOf", "list_index_of", INT, LIST, SimpleType.DYN),
        member("lastIndexOf", "list_last_index_of", INT, LIST, SimpleType.DYN),
        member("find", "string_find", STRING, STRING, STRING),
        CelFunctionDecl.newFunctionDeclaration("findAll",
            CelOverloadDecl.newMemberOverload("string_find_all", ListType.create(STRING), STRING, STRING),
            CelOverloadDecl.newMemberOverload("string_find_all_n", ListType.create(STRING), STRING, STRING, INT)),
        global("url", "string_to_url", URL, STRING),
        global("isURL", "is_url_string", BOOL, STRING),
        member("getScheme", "url_get_scheme", STRING, URL),
        member("getHost", "url_get_host", STRING, URL),
        member("getHostname", "url_get_hostname", STRING, URL),
        member("getPort", "url_get_port", STRING, URL),
        member("getEscapedPath", "url_get_escaped_path", STRING, URL),
        member("getQuery", "url_get_query", MapType.create(STRING, ListType.create(STRING)), URL),
        global("isIP", "is_ip", BOOL, STRING),
        CelFunctionDecl.newFunctionDeclaration("ip",
            CelOverloadDecl.newGlobalOverload("string_to_ip", IP, STRING),
            CelOverloadDecl.newMemberOverload("cidr_ip", IP, CIDR)),
        member("family", "ip_family", INT, IP),
        member("isUnspecified", "ip_is_unspecified", BOOL, IP),
        member("isLoopback", "ip_is_loopback", BOOL, IP),
        member("isLinkLocalMulticast", "ip_is_link_local_multicast", BOOL, IP),
        member("isLinkLocalUnicast", "ip_is_link_local_unicast", BOOL, IP),
        member("isGlobalUnicast", "ip_is_global_unicast", BOOL, IP),
        global("isCIDR", "is_cidr", BOOL, STRING),
        global("cidr", "string_to_cidr", CIDR, STRING),
        CelFunctionDecl.newFunctionDeclaration("containsIP",
            CelOverloadDecl.newMemberOverload("cidr_contains_ip_string", BOOL, CIDR, STRING),
            CelOverloadDecl.newMemberOverload("cidr_contains_ip_ip", BOOL, CIDR, IP)),
        CelFunctionDecl.newFunctionDeclaration("containsCIDR",
            CelOverloadDecl.newMemberOverload("cidr_contains_cidr_string", BOOL, CIDR, STRING),
            CelOverloadDecl.newMemberOverload("cidr_contains_cidr", BOOL, CIDR, CIDR)),
        member("masked", "cidr_masked", CIDR, CIDR),
        member("prefixLength", "cidr_prefix_length", INT, CIDR),
        global("isQuantity", "is_quantity", BOOL, STRING),
        global("quantity", "string_to_quantity", QUANTITY, STRING),
        member("isInteger", "quantity_is_integer", BOOL, QUANTITY),
        member("asInteger", "quantity_as_integer", INT, QUANTITY),
        member("asApproximateFloat", "quantity_as_float", SimpleType.DOUBLE, QUANTITY),
        member("sign", "quantity_sign", INT, QUANTITY),
        CelFunctionDecl.newFunctionDeclaration("add",
            CelOverloadDecl.newMemberOverload("quantity_add", QUANTITY, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload("quantity_add_int", QUANTITY, QUANTITY, INT)),
        CelFunctionDecl.newFunctionDeclaration("sub",
            CelOverloadDecl.newMemberOverload("quantity_sub", QUANTITY, QUANTITY, QUANTITY),
            CelOverloadDecl.newMemberOverload("quantity_sub_int", QUANTITY, QUANTITY, INT)),
        member("compareTo", "quantity_compare_to", INT, QUANTITY, QUANTITY),
        member("isGreaterThan", "quantity_is_greater_than", BOOL, QUANTITY, QUANTITY),
        member("isLessThan", "quantity_is_less_than", BOOL, QUANTITY, QUANTITY));
  }

  /** @return the runtime bindings of {@link #declarations()} */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static List<CelFunctionBinding> bindings() {
    List<CelFunctionBinding> b = new ArrayList<>();
    b.add(CelFunctionBinding.from("list_is_sorted", List.class, (List l) -> isSorted(l)));
    b.add(CelFunctionBinding.from("list_sum", List.class, (List l) -> sum(l)));
    b.add(CelFunctionBinding.from("list_min", List.class, (List l) -> extreme(l, -1, "min")));
    b.add(CelFunctionBinding.from("list_max", List.class, (List l) -> extreme(l, 1, "max")));
    b.add(CelFunctionBinding.from("list_index_of", List.class, Object.class, (List l, Object x) -> indexOf(l, x,
        false)));
    b.add(CelFunctionBinding.from("list_last_index_of", List.class, Object.class, (List l, Object x) -> indexOf(l, x,
        true)));
    b.add(CelFunctionBinding.from("string_find", String.class, String.class, (String s, String re) -> {
      Matcher m = regex(re).matcher(s);
      return m.find() ? m.group() : "";
    }));
    b.add(CelFunctionBinding.from("string_find_all", String.class, String.class, (String s, String re) ->
        findAll(s, re, -1)));
    b.add(CelFunctionBinding.from("string_find_all_n", List.of(String.class, String.class, Long.class),
        args -> findAll((String) args[0], (String) args[1], (Long) args[2])));
    b.add(CelFunctionBinding.from("string_to_url", String.class, KubeCelLibrary::url));
    b.add(CelFunctionBinding.from("is_url_string", String.class, s -> parseUrl(s) != null));
    b.add(CelFunctionBinding.from("url_get_scheme", UrlValue.class, u -> nz(u.uri().getScheme())));
    b.add(CelFunctionBinding.from("url_get_host", UrlValue.class, u -> nz(u.uri().getRawAuthority()).replaceAll(
        "^[^@]*@", "")));
    b.add(CelFunctionBinding.from("url_get_hostname", UrlValue.class, u -> {
      String h = nz(u.uri().getHost());
      return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }));
    b.add(CelFunctionBinding.from("url_get_port", UrlValue.class, u -> u.uri().getPort() < 0 ? ""
        : Integer.toString(u.uri().getPort())));
    b.add(CelFunctionBinding.from("url_get_escaped_path", UrlValue.class, u -> nz(u.uri().getRawPath())));
    b.add(CelFunctionBinding.from("url_get_query", UrlValue.class, u -> query(u.uri().getRawQuery())));
    b.add(CelFunctionBinding.from("is_ip", String.class, s -> IpAddresses.parseIp(s) != null && !s.contains("/")));
    b.add(CelFunctionBinding.from("string_to_ip", String.class, KubeCelLibrary::ip));
    b.add(CelFunctionBinding.from("cidr_ip", CidrValue.class, c -> new IpValue(c.address())));
    b.add(CelFunctionBinding.from("ip_family", IpValue.class, ip -> ip.address() instanceof Inet4Address ? 4L : 6L));
    b.add(CelFunctionBinding.from("ip_is_unspecified", IpValue.class, ip -> ip.address().isAnyLocalAddress()));
    b.add(CelFunctionBinding.from("ip_is_loopback", IpValue.class, ip -> ip.address().isLoopbackAddress()));
    b.add(CelFunctionBinding.from("ip_is_link_local_multicast", IpValue.class, ip -> ip.address().isMCLinkLocal()));
    b.add(CelFunctionBinding.from("ip_is_link_local_unicast", IpValue.class, ip -> ip.address().isLinkLocalAddress()));
    b.add(CelFunctionBinding.from("ip_is_global_unicast", IpValue.class, ip -> isGlobalUnicast(ip.address())));
    b.add(CelFunctionBinding.from("is_cidr", String.class, s -> IpAddresses.parseCidr(s) != null));
    b.add(CelFunctionBinding.from("string_to_cidr", String.class, KubeCelLibrary::cidr));
    b.add(CelFunctionBinding.from("cidr_contains_ip_string", CidrValue.class, String.class, (CidrValue c, String s) ->
        contains(c, ip(s).address(), -1)));
    b.add(CelFunctionBinding.from("cidr_contains_ip_ip", CidrValue.class, IpValue.class, (CidrValue c, IpValue i) ->
        contains(c, i.address(), -1)));
    b.add(CelFunctionBinding.from("cidr_contains_cidr_string", CidrValue.class, String.class,
        (CidrValue c, String s) -> {
          CidrValue o = cidr(s);
          return contains(c, o.address(), o.prefix());
        }));
    b.add(CelFunctionBinding.from("cidr_contains_cidr", CidrValue.class, CidrValue.class,
        (CidrValue c, CidrValue o) -> contains(c, o.address(), o.prefix())));
    b.add(CelFunctionBinding.from("cidr_masked", CidrValue.class, c -> new CidrValue(mask(c.address(), c.prefix()),
        c.prefix())));
    b.add(CelFunctionBinding.from("cidr_prefix_length", CidrValue.class, c -> (long) c.prefix()));
    b.add(CelFunctionBinding.from("is_quantity", String.class, s -> Quantity.parse(s) != null));
    b.add(CelFunctionBinding.from("string_to_quantity", String.class, KubeCelLibrary::quantity));
    b.add(CelFunctionBinding.from("quantity_is_integer", Quantity.class, q -> q.isInteger()));
    b.add(CelFunctionBinding.from("quantity_as_integer", Quantity.class, KubeCelLibrary::asInteger));
    b.add(CelFunctionBinding.from("quantity_as_float", Quantity.class, q -> q.value().doubleValue()));
    b.add(CelFunctionBinding.from("quantity_sign", Quantity.class, q -> (long) q.value().signum()));
    b.add(CelFunctionBinding.from("quantity_add", Quantity.class, Quantity.class, (Quantity a, Quantity c) ->
        a.plus(c.value())));
    b.add(CelFunctionBinding.from("quantity_add_int", Quantity.class, Long.class, (Quantity a, Long c) ->
        a.plus(BigDecimal.valueOf(c))));
    b.add(CelFunctionBinding.from("quantity_sub", Quantity.class, Quantity.class, (Quantity a, Quantity c) ->
        a.plus(c.value().negate())));
    b.add(CelFunctionBinding.from("quantity_sub_int", Quantity.class, Long.class, (Quantity a, Long c) ->
        a.plus(BigDecimal.valueOf(-c))));
    b.add(CelFunctionBinding.from("quantity_compare_to", Quantity.class, Quantity.class, (Quantity a, Quantity c) ->
        (long) a.value().compareTo(c.value())));
    b.add(CelFunctionBinding.from("quantity_is_greater_than", Quantity.class, Quantity.class,
        (Quantity a, Quantity c) -> a.value().compareTo(c.value()) > 0));
    b.add(CelFunctionBinding.from("quantity_is_less_than", Quantity.class, Quantity.class,
        (Quantity a, Quantity c) -> a.value().compareTo(c.value()) < 0));
    return b;
  }

  private static CelFunctionDecl member(String name, String id, CelType result, CelType... args) {
    return CelFunctionDecl.newFunctionDeclaration(name, CelOverloadDecl.newMemberOverload(id, result, args));
  }

  private static CelFunctionDecl global(String name, String id, CelType result, CelType... args) {
    return CelFunctionDecl.newFunctionDeclaration(name, CelOverloadDecl.newGlobalOverload(id, result, args));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) throws CelEvaluationException {
    if (a instanceof Number x && b instanceof Number y) {
      return Double.compare(x.doubleValue(), y.doubleValue());
    }
    if (a instanceof Comparable x && b != null && a.getClass() == b.getClass()) {
      return x.compareTo(b);
    }
    throw new CelEvaluationException("no such overload");
  }

  private static boolean isSorted(List<?> l) throws CelEvaluationException {
    for (int i = 1; i < l.size(); i++) {
      if (compare(l.get(i - 1), l.get(i)) > 0) {
        return false;
      }
    }
    return true;
  }

  private static Object sum(List<?> l) throws CelEvaluationException {
    if (l.isEmpty()) {
      return 0L;
    }
    if (l.get(0) instanceof Long) {
      long s = 0;
      for (Object o : l) {
        if (!(o instanceof Long v)) {
          throw new CelEvaluationException("no such overload");
        }
        s = Math.addExact(s, v);
      }
      return s;
    }
    double s = 0;
    for (Object o : l) {
      if (!(o instanceof Double v)) {
        throw new CelEvaluationException("no such overload");
      }
      s += v;
    }
    return s;
  }

  private static Object extreme(List<?> l, int sign, String name) throws CelEvaluationException {
    if (l.isEmpty()) {
      throw new CelEvaluationException(name + " called on empty list");
    }
    Object best = l.get(0);
    for (Object o : l) {
      if (compare(o, best) * sign > 0) {
        best = o;
      }
    }
    return best;
  }

  private static long indexOf(List<?> l, Object x, boolean last) {
    long found = -1;
    for (int i = 0; i < l.size(); i++) {
      if (celEquals(l.get(i), x)) {
        found = i;
        if (!last) {
          return found;
        }
      }
    }
    return found;
  }

  private static boolean celEquals(Object a, Object b) {
    if (a instanceof Number x && b instanceof Number y) {
      return x.doubleValue() == y.doubleValue();
    }
    return a == null ? b == null : a.equals(b);
  }

  private static Pattern regex(String re) throws CelEvaluationException {
    try {
      return Pattern.compile(re);
    } catch (PatternSyntaxException e) {
      throw new CelEvaluationException("error parsing regexp: " + e.getMessage());
    }
  }

  private static List<String> findAll(String s, String re, long n) throws CelEvaluationException {
    List<String> out = new ArrayList<>();
    if (n == 0) {
      return out;
    }
    Matcher m = regex(re).matcher(s);
    while (m.find() && (n < 0 || out.size() < n)) {
      out.add(m.group());
    }
    return out;
  }

  private static String nz(String s) {
    return s == null ? "" : s;
  }

  /** {@code url.ParseRequestURI}: an absolute URI or an absolute path. */
  private static URI parseUrl(String s) {
    if (s.isEmpty() || !(s.startsWith("/") || s.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*"))) {
      return null;
    }
    try {
      return new URI(s);
    } catch (URISyntaxException e) {
      return null;
    }
  }

  private static UrlValue url(String s) throws CelEvaluationException {
    URI u = parseUrl(s);
    if (u == null) {
      throw new CelEvaluationException("URL parse error during conversion from string: parse \"" + s
          + "\": invalid URI for request");
    }
    return new UrlValue(u);
  }

  private static Map<String, List<String>> query(String raw) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String part : raw.split("[&]")) {
      if (part.isEmpty()) {
        continue;
      }
      String[] kv = part.split("=", 2);
      String k = URLDecoder.decode(kv[0], StandardCharsets.UTF_8);
      String v = kv.length > 1 ? URLDecoder.decode(kv[1], StandardCharsets.UTF_8) : "";
      out.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
    }
    return out;
  }

  private static IpValue ip(String s) throws CelEvaluationException {
    InetAddress a = IpAddresses.parseIp(s);
    if (a == null) {
      throw new CelEvaluationException("IP Address \"" + s + "\" parse error during conversion from string: "
          + "ParseAddr(\"" + s + "\"): unable to parse IP");
    }
    return new IpValue(a);
  }

  private static CidrValue cidr(String s) throws CelEvaluationException {
    Object[] c = IpAddresses.parseCidr(s);
    if (c == null) {
      throw new CelEvaluationException("network address parse error during conversion from string: "
          + "netip.ParsePrefix(\"" + s + "\"): invalid prefix");
    }
    return new CidrValue((InetAddress) c[0], (Integer) c[1]);
  }

  private static boolean contains(CidrValue c, InetAddress a, int otherPrefix) {
    byte[] net = c.address().getAddress();
    byte[] x = a.getAddress();
    if (net.length != x.length || otherPrefix >= 0 && otherPrefix < c.prefix()) {
      return false;
    }
    for (int bit = 0; bit < c.prefix(); bit++) {
      int m = 0x80 >> (bit % 8);
      if ((net[bit / 8] & m) != (x[bit / 8] & m)) {
        return false;
      }
    }
    return true;
  }

  private static InetAddress mask(InetAddress a, int prefix) {
    byte[] b = a.getAddress();
    for (int bit = prefix; bit < b.length * 8; bit++) {
      b[bit / 8] &= (byte) ~(0x80 >> (bit % 8));
    }
    try {
      return InetAddress.getByAddress(b);
    } catch (java.net.UnknownHostException e) {
      return a;
    }
  }

  private static boolean isGlobalUnicast(InetAddress a) {
    byte[] b = a.getAddress();
    boolean broadcast = b.length == 4 && (b[0] & b[1] & b[2] & b[3]) == -1;
    return !broadcast && !a.isAnyLocalAddress() && !a.isLoopbackAddress() && !a.isMulticastAddress()
        && !a.isLinkLocalAddress();
  }

  private static Quantity quantity(String s) throws CelEvaluationException {
    Quantity q = Quantity.parse(s);
    if (q == null) {
      throw new CelEvaluationException("quantities must match the regular expression "
          + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    }
    return q;
  }

  private static long asInteger(Quantity q) throws CelEvaluationException {
    try {
      return q.value().longValueExact();
    } catch (ArithmeticException e) {
      throw new CelEvaluationException("cannot convert value to integer");
    }
  }
}

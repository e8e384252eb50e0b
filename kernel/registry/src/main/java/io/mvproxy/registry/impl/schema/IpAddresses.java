package io.mvproxy.registry.impl.schema;

import com.google.common.net.InetAddresses;
import java.net.InetAddress;

/**
 * IP and CIDR parsing as {@code k8s.io/utils/net} {@code ParseIPSloppy} / {@code ParseCIDRSloppy} (Go 1.16
 * {@code net.ParseIP}: IPv4 octets may have leading zeros, no zones), without name resolution.
 */
public final class IpAddresses {
  private IpAddresses() {
  }

  /** @return the address, or null when {@code s} is not an IPv4 or IPv6 literal */
  public static InetAddress parseIp(String s) {
    if (s.isEmpty()) {
      return null;
    }
    if (s.indexOf(':') < 0) {
      byte[] b = ipv4(s);
      if (b == null) {
        return null;
      }
      try {
        return InetAddress.getByAddress(b);
      } catch (java.net.UnknownHostException e) {
        return null;
      }
    }
    if (s.contains("%")) {
      return null;
    }
    String v6 = s;
    int lastColon = s.lastIndexOf(':');
    String tail = s.substring(lastColon + 1);
    if (tail.contains(".")) {
      byte[] b = ipv4(tail);
      if (b == null) {
        return null;
      }
      v6 = s.substring(0, lastColon + 1) + (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "."
          + (b[3] & 0xff);
    }
    try {
      return InetAddresses.forString(v6);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * @return {address, prefix length} for {@code addr/len}, or null when not a CIDR
   */
  public static Object[] parseCidr(String s) {
    int slash = s.indexOf('/');
    if (slash < 0) {
      return null;
    }
    InetAddress ip = parseIp(s.substring(0, slash));
    String len = s.substring(slash + 1);
    if (ip == null || len.isEmpty() || len.length() > 3 || !len.chars().allMatch(Character::isDigit)
        || len.length() > 1 && len.charAt(0) == '0') {
      return null;
    }
    int bits = Integer.parseInt(len);
    int max = ip.getAddress().length * 8;
    if (s.substring(0, slash).indexOf(':') < 0) {
      max = 32;
    }
    if (bits > max) {
      return null;
    }
    return new Object[] {ip, bits};
  }

  private static byte[] ipv4(String s) {
    String[] parts = s.split("\\.", -1);
    if (parts.length != 4) {
      return null;
    }
    byte[] out = new byte[4];
    for (int i = 0; i < 4; i++) {
      String p = parts[i];
      if (p.isEmpty() || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
        return null;
      }
      int n = 0;
      for (char c : p.toCharArray()) {
        n = n * 10 + (c - '0');
        if (n > 255) {
          return null;
        }
      }
      out[i] = (byte) n;
    }
    return out;
  }
}

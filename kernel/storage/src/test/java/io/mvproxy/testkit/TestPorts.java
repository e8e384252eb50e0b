package io.mvproxy.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/** Free loopback ports for child processes of tests (shared through the mvproxy-storage test-jar). */
public final class TestPorts {
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private TestPorts() {
  }

  /**
   * A free port on 127.0.0.1 in 20000-32000, BELOW the kernel's ephemeral range (32768-60999 on Linux): a port from
   * that range can be taken by any outgoing connection between this check and the child's bind, which made
   * start-ups fail now and then. No port is handed out twice in one JVM.
   *
   * @return the port
   * @throws IOException when 2000 random tries found none
   */
  public static synchronized int belowEphemeral() throws IOException {
    for (int i = 0; i < 2000; i++) {
      int port = 20_000 + ThreadLocalRandom.current().nextInt(12_000);
      if (!HANDED_OUT.add(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
        s.setReuseAddress(true);
        return port;
      } catch (IOException busy) {
        // try another
      }
    }
    throw new IOException("no free port in 20000-32000");
  }
}

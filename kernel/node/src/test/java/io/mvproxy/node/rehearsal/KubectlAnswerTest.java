package io.mvproxy.node.rehearsal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link Kubectl#answer}: kubectl's exit code and stderr (as kubectl 1.32 prints them) classified as the HTTP
 * client's answers are, then counted by {@link Outcome}.
 */
@Tag("unit")
class KubectlAnswerTest {
  private static Kubectl.Answer answer(int exit, String stderr) {
    return Kubectl.answer(new Kubectl.Run(exit, "", stderr, false));
  }

  @Test
  void exitZeroAndAStoppedWatchWithoutErrorAre2xx() {
    assertEquals(200, answer(0, "").status());
    assertEquals(200, Kubectl.answer(new Kubectl.Run(-1, "widget.demo.mvproxy.io/steady-1\n", "", true)).status());
    // client-go's own warnings (klog) are not the command's failure
    assertEquals(200, Kubectl.answer(new Kubectl.Run(-1, "", "W1206 04:05:43.208279   11588 reflector.go:492] "
        + "k8s.io/client-go/tools/watch/informerwatcher.go:146: watch of *unstructured.Unstructured ended with: "
        + "storage is unavailable: storage: closed\n", true)).status());
    Kubectl.Answer t = answer(1, "W1206 04:05:43.208279   11588 reflector.go:492] watch ended\n"
        + "error: timed out waiting for the condition on namespaces/rk-4\n");
    assertEquals("kubectl: error: timed out waiting for the condition on namespaces/rk-4",
        t.body().getString("message"));
  }

  @Test
  void notFoundNamingAnObjectKeepsItsKindAndName() {
    Kubectl.Answer a = answer(1, "Error from server (NotFound): error when creating \"STDIN\": namespaces \"rk-7\" "
        + "not found\n");
    assertEquals(404, a.status());
    JsonObject d = a.body().getJsonObject("details");
    assertEquals("namespaces", d.getString("kind"));
    assertEquals("rk-7", d.getString("name"));
    assertEquals(Outcome.OBJECT_NOT_FOUND, Outcome.of(a.status(), a.body(), true));
  }

  @Test
  void theRoutes404AndKubectlsDiscoveryMissesAreFalseOrTrue404s() {
    for (String err : new String[] {"Error from server (NotFound): the server could not find the requested resource",
        "error: resource mapping not found for name: \"kubectl-steady\" namespace: \"rehearsal\" from \"STDIN\": no "
            + "matches for kind \"Widget\" in version \"demo.mvproxy.io/v2\"\nensure CRDs are installed first",
        "error: the server doesn't have a resource type \"gadgets\""}) {
      Kubectl.Answer a = answer(1, err);
      assertEquals(404, a.status(), err);
      assertEquals(Outcome.FALSE_404, Outcome.of(a.status(), a.body(), true), err);
      assertEquals(Outcome.NOT_SERVED_YET, Outcome.of(a.status(), a.body(), false), err);
    }
  }

  @Test
  void otherReasonsMapToTheirStatus() {
    assertEquals(503, answer(1, "Error from server (ServiceUnavailable): the server is currently unable to handle "
        + "the request").status());
    assertEquals(403, answer(1, "Error from server (Forbidden): error when creating \"STDIN\": widgets "
        + "\"content\" is forbidden: unable to create new content in namespace rk-3 because it is being "
        + "terminated").status());
    assertEquals(409, answer(1, "Error from server (AlreadyExists): namespaces \"rk-1\" already exists").status());
    Kubectl.Answer none = answer(1, "Unable to connect to the server: dial tcp 127.0.0.1:16443: connect: "
        + "connection refused");
    assertEquals(0, none.status());
    assertEquals(Outcome.NO_ANSWER, Outcome.of(none.status(), none.body(), true));
    // kubectl's own wording of a refused connection (no server answered: not a 500)
    assertEquals(0, answer(1, "The connection to the server 127.0.0.1:28236 was refused - did you specify the right "
        + "host or port?").status());
    Kubectl.Answer timeout = answer(1, "error: timed out waiting for the condition on namespaces/rk-4");
    assertEquals(504, timeout.status());
    assertEquals(Outcome.OTHER_ERROR, Outcome.of(timeout.status(), timeout.body(), true));
  }
}

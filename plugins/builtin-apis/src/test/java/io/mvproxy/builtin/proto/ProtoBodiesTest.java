package io.mvproxy.builtin.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Decoding protobuf bodies as kubectl 1.33 sends them: Go's generated {@code Marshal} (gogo, {@code generated.pb.go})
 * writes every non-pointer field, empty strings and zero numbers included, and a zero {@code metav1.Time} as an
 * empty message; kube-apiserver decodes those to Go zero values, which its JSON ({@code omitempty}) never shows.
 */
@Tag("unit")
class ProtoBodiesTest {

  /** Writes fields as one message. */
  interface Fields {
    void write(CodedOutputStream out) throws IOException;
  }

  static ByteString message(Fields f) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    f.write(out);
    out.flush();
    return ByteString.copyFrom(bytes.toByteArray());
  }

  /** ObjectMeta as Go writes it for a plain {@code kubectl create configmap c5}: every scalar, empty or not. */
  static ByteString plainMeta(String name) throws IOException {
    return message(o -> {
      o.writeString(1, name);
      o.writeString(2, "");
      o.writeString(3, "");
      o.writeString(4, "");
      o.writeString(5, "");
      o.writeString(6, "");
      o.writeInt64(7, 0);
      o.writeBytes(8, ByteString.EMPTY);  // a zero creationTimestamp
    });
  }

  static byte[] envelope(String apiVersion, String kind, ByteString raw) throws IOException {
    ByteString unknown = message(o -> {
      o.writeBytes(1, message(t -> {
        t.writeString(1, apiVersion);
        t.writeString(2, kind);
      }));
      o.writeBytes(2, raw);
      o.writeString(3, "");
      o.writeString(4, "");
    });
    return ByteString.copyFrom(new byte[] {'k', '8', 's', 0}).concat(unknown).toByteArray();
  }

  /** @return the JSON form mvproxy decodes a protobuf {@code raw} object of {@code apiVersion}/{@code kind} to */
  static JsonObject decode(String apiVersion, String kind, ByteString raw) throws IOException {
    return ProtoBodies.decode(envelope(apiVersion, kind, raw));
  }

  /** Asserts that {@code raw} decodes to exactly the JSON {@code expected}. */
  static void assertDecodes(String expected, String apiVersion, String kind, ByteString raw) throws IOException {
    assertEquals(new JsonObject(expected), decode(apiVersion, kind, raw));
  }

  @Test
  void goZeroValuesOfOmitemptyFieldsAreLeftOut() throws IOException {
    ByteString configMap = message(o -> {
      o.writeBytes(1, plainMeta("c5"));
      o.writeBytes(2, message(e -> {
        e.writeString(1, "k");
        e.writeString(2, "v");
      }));
    });
    JsonObject cm = decode("v1", "ConfigMap", configMap);
    assertEquals(new JsonObject("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c5\"},"
        + "\"data\":{\"k\":\"v\"}}"), cm);

    // a generateName create: no name; an explicit immutable=false (a *bool: kept), a Secret type "" (defaulted later)
    ByteString secret = message(o -> {
      o.writeBytes(1, message(m -> {
        m.writeString(1, "");
        m.writeString(2, "s-");
        m.writeInt64(7, 0);
      }));
      o.writeString(3, "");
      o.writeBool(5, false);
    });
    assertDecodes("{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"metadata\":{\"generateName\":\"s-\"},"
        + "\"immutable\":false}",
        "v1", "Secret", secret);

    // values that are set stay, zero or not where the field is a pointer (deletionGracePeriodSeconds)
    ByteString set = message(o -> o.writeBytes(1, message(m -> {
      m.writeString(1, "c6");
      m.writeInt64(7, 3);
      m.writeInt64(10, 0);
      m.writeBytes(8, message(t -> t.writeInt64(1, 1_765_000_000L)));
    })));
    assertDecodes("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c6\","
        + "\"generation\":3,\"deletionGracePeriodSeconds\":0,\"creationTimestamp\":\"2025-12-06T05:46:40Z\"}}",
        "v1", "ConfigMap", set);
  }

  /** RBAC subjects and Events: their omitempty strings and counts are left out when zero, the others kept. */
  @Test
  void subjectsAndEventsKeepOnlyWhatGoWouldShow() throws IOException {
    ByteString binding = message(o -> {
      o.writeBytes(1, plainMeta("rb"));
      o.writeBytes(2, message(sub -> {
        sub.writeString(1, "ServiceAccount");
        sub.writeString(2, "");
        sub.writeString(3, "sa1");
        sub.writeString(4, "p33");
      }));
      o.writeBytes(2, message(sub -> {
        sub.writeString(1, "User");
        sub.writeString(2, "rbac.authorization.k8s.io");
        sub.writeString(3, "bob");
        sub.writeString(4, "");
      }));
      o.writeBytes(3, message(ref -> {
        ref.writeString(1, "rbac.authorization.k8s.io");
        ref.writeString(2, "ClusterRole");
        ref.writeString(3, "view");
      }));
    });
    JsonObject rb = decode("rbac.authorization.k8s.io/v1", "RoleBinding", binding);
    assertEquals(new io.vertx.core.json.JsonArray("[{\"kind\":\"ServiceAccount\",\"name\":\"sa1\","
        + "\"namespace\":\"p33\"},{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"bob\"}]"),
        rb.getJsonArray("subjects"));

    // core v1: reportingComponent/reportingInstance have no omitempty (kept as ""), reason/message/type/action/count do
    ByteString event = message(o -> {
      o.writeBytes(1, plainMeta("e1"));
      o.writeString(3, "Started");
      o.writeString(4, "");
      o.writeBytes(5, message(src -> {
        src.writeString(1, "");
        src.writeString(2, "");
      }));
      o.writeInt32(8, 0);
      o.writeString(9, "");
      o.writeString(12, "");
      o.writeString(14, "");
      o.writeString(15, "");
    });
    assertDecodes("{\"kind\":\"Event\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"e1\"},"
        + "\"reason\":\"Started\",\"source\":{},\"reportingComponent\":\"\",\"reportingInstance\":\"\"}",
        "v1", "Event", event);
  }

  /** A DELETE's protobuf DeleteOptions (client-go's typed Delete; kubectl auth reconcile), in any group version. */
  @Test
  void deleteOptionsInTheClientsGroupVersion() throws IOException {
    ByteString opts = message(o -> {
      o.writeInt64(1, 0);
      o.writeBytes(2, message(p -> p.writeString(1, "u-1")));
      o.writeString(4, "Foreground");
      o.writeString(5, "All");
    });
    assertDecodes("{\"kind\":\"DeleteOptions\",\"apiVersion\":\"rbac.authorization.k8s.io/v1\","
        + "\"gracePeriodSeconds\":0,\"preconditions\":{\"uid\":\"u-1\"},\"propagationPolicy\":\"Foreground\","
        + "\"dryRun\":[\"All\"]}",
        "rbac.authorization.k8s.io/v1", "DeleteOptions", opts);
  }
}

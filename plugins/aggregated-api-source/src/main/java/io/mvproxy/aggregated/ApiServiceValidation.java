package io.mvproxy.aggregated;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * Validates an {@code apiregistration.k8s.io/v1 APIService} manifest as Kubernetes does
 * ({@code kube-aggregator/pkg/apis/apiregistration/validation/validation.go}, {@code ValidateAPIService}), with the
 * same field paths and messages, plus what mvproxy needs beyond it: {@code spec.service} is required (mvproxy has no
 * local APIServices), the core group cannot be aggregated, and {@code caBundle} must be base64 PEM certificates.
 * Stateless.
 */
public final class ApiServiceValidation {
  /** The APIService resource, for Status details. */
  public static final Gvr APISERVICES = new Gvr("apiregistration.k8s.io", "v1", "apiservices");
  /** Default {@code spec.service.port} (kube-aggregator {@code SetDefaults_ServiceReference}). */
  public static final int DEFAULT_PORT = 443;

  private static final Pattern DNS1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final String DNS1123_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
      + "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
      + "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  private static final String DNS1035_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or "
      + "'-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
      + "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

  private ApiServiceValidation() {
  }

  /**
   * Validates and parses a manifest.
   *
   * @param manifest the APIService as JSON
   * @return the validated spec
   * @throws StatusException 422 Invalid ({@code APIService.apiregistration.k8s.io "<name>" is invalid: ...}) with one
   *                         cause per error ({@code reason} FieldValueRequired / FieldValueInvalid, {@code field},
   *                         {@code message}) when anything is wrong
   */
  public static ApiServiceSpec parse(JsonObject manifest) {
    return parse(manifest, false);
  }

  /**
   * Validates and parses a manifest, as {@link #parse(JsonObject)}; with {@code allowLocal} an APIService without
   * {@code spec.service} (a local one, kube-aggregator's registration of a group the server itself serves) is valid
   * too, as upstream (then {@code caBundle} and {@code insecureSkipTLSVerify} must be unset).
   *
   * @param manifest   the APIService as JSON
   * @param allowLocal true to accept local APIServices (those written through the API; plugin manifests need a
   *                   service)
   * @return the validated spec; a local one has empty {@code serviceNamespace} and {@code serviceName} and port 0
   * @throws StatusException 422 Invalid with one cause per error, as {@link #parse(JsonObject)}
   */
  public static ApiServiceSpec parse(JsonObject manifest, boolean allowLocal) {
    JsonArray causes = new JsonArray();
    JsonObject meta = object(manifest, "metadata", causes);
    JsonObject spec = object(manifest, "spec", causes);
    String name = string(meta, "name", "metadata.name", causes);
    String group = string(spec, "group", "spec.group", causes);
    String version = string(spec, "version", "spec.version", causes);
    String requiredName = version + "." + group;

    if (name.isEmpty()) {
      causes.add(required("metadata.name", "name or generateName is required"));
    } else if (name.equals(".") || name.equals("..")) {
      causes.add(invalid("metadata.name", quote(name), "may not be '" + name + "'"));
    } else if (name.contains("/") || name.contains("%")) {
      causes.add(invalid("metadata.name", quote(name), "may not contain '" + (name.contains("/") ? "/" : "%") + "'"));
    } else if (!name.equals(requiredName)) {
      causes.add(invalid("metadata.name", quote(name),
          "must be `spec.version+\".\"+spec.group`: " + quote(requiredName)));
    }
    if (group.isEmpty() && !"v1".equals(version)) {
      causes.add(required("spec.group", "only v1 may have an empty group and it better be legacy kube"));
    } else if (group.isEmpty()) {
      causes.add(required("spec.group", "mvproxy does not aggregate the core group"));
    } else {
      if (group.length() > 253) {
        causes.add(invalid("spec.group", quote(group), "must be no more than 253 characters"));
      }
      if (!DNS1123_SUBDOMAIN.matcher(group).matches()) {
        causes.add(invalid("spec.group", quote(group), DNS1123_MSG));
      }
    }
    if (version.length() > 63) {
      causes.add(invalid("spec.version", quote(version), "must be no more than 63 characters"));
    }
    if (!DNS1035_LABEL.matcher(version).matches()) {
      causes.add(invalid("spec.version", quote(version), DNS1035_MSG));
    }
    long gpm = integer(spec, "groupPriorityMinimum", "spec.groupPriorityMinimum", 0, causes);
    if (gpm <= 0 || gpm > 20000) {
      causes.add(invalid("spec.groupPriorityMinimum", String.valueOf(gpm), "must be positive and less than 20000"));
    }
    long vp = integer(spec, "versionPriority", "spec.versionPriority", 0, causes);
    if (vp <= 0 || vp > 1000) {
      causes.add(invalid("spec.versionPriority", String.valueOf(vp), "must be positive and less than 1000"));
    }
    Object skipValue = spec.getValue("insecureSkipTLSVerify");
    if (skipValue != null && !(skipValue instanceof Boolean)) {
      causes.add(invalid("spec.insecureSkipTLSVerify", String.valueOf(skipValue), "must be a boolean"));
    }
    boolean skip = Boolean.TRUE.equals(skipValue);
    String caPem = caBundle(spec, causes);
    boolean hasCa = spec.getValue("caBundle") instanceof String s && !s.isEmpty();

    JsonObject service = null;
    if (spec.getValue("service") instanceof JsonObject svc) {
      service = svc;
    } else if (spec.getValue("service") != null) {
      causes.add(invalid("spec.service", String.valueOf(spec.getValue("service")), "must be an object"));
    } else {
      if (!allowLocal) {
        causes.add(required("spec.service", "mvproxy has no local APIServices: a service is required"));
      }
      if (hasCa) {
        causes.add(invalid("spec.caBundle", spec.getString("caBundle").length() + " bytes",
            "local APIServices may not have a caBundle"));
      }
      if (skip) {
        causes.add(invalid("spec.insecureSkipTLSVerify", "true", "local APIServices may not have insecureSkipTLSVerify"));
      }
    }
    String ns = "";
    String svcName = "";
    long port = DEFAULT_PORT;
    if (service != null) {
      ns = string(service, "namespace", "spec.service.namespace", causes);
      svcName = string(service, "name", "spec.service.name", causes);
      if (ns.isEmpty()) {
        causes.add(required("spec.service.namespace", ""));
      }
      if (svcName.isEmpty()) {
        causes.add(required("spec.service.name", ""));
      }
      port = integer(service, "port", "spec.service.port", DEFAULT_PORT, causes);
      if (port < 1 || port > 65535) {
        causes.add(invalid("spec.service.port", String.valueOf(port),
            "port is not valid: must be between 1 and 65535, inclusive"));
      }
      if (skip && hasCa) {
        causes.add(invalid("spec.insecureSkipTLSVerify", "true", "may not be true if caBundle is present"));
      }
    }
    if (!causes.isEmpty()) {
      throw StatusException.invalid(APISERVICES, "APIService", name, causes);
    }
    return new ApiServiceSpec(name, group, version, (int) gpm, (int) vp, ns, svcName, service == null ? 0 : (int) port,
        caPem, skip);
  }

  private static String caBundle(JsonObject spec, JsonArray causes) {
    Object v = spec.getValue("caBundle");
    if (v == null || "".equals(v)) {
      return null;
    }
    if (!(v instanceof String s)) {
      causes.add(invalid("spec.caBundle", String.valueOf(v), "must be a base64 string"));
      return null;
    }
    String pem;
    try {
      pem = new String(Base64.getDecoder().decode(s.replaceAll("\\s", "")), StandardCharsets.US_ASCII);
    } catch (IllegalArgumentException e) {
      causes.add(invalid("spec.caBundle", s.length() + " bytes", "must be base64: " + e.getMessage()));
      return null;
    }
    if (!pem.contains("-----BEGIN CERTIFICATE-----")) {
      causes.add(invalid("spec.caBundle", s.length() + " bytes", "must hold PEM CERTIFICATE blocks"));
      return null;
    }
    return pem;
  }

  private static JsonObject object(JsonObject parent, String key, JsonArray causes) {
    Object v = parent.getValue(key);
    if (v instanceof JsonObject o) {
      return o;
    }
    if (v != null) {
      causes.add(invalid(key, String.valueOf(v), "must be an object"));
    }
    return new JsonObject();
  }

  private static String string(JsonObject o, String key, String field, JsonArray causes) {
    Object v = o.getValue(key);
    if (v == null) {
      return "";
    }
    if (v instanceof String s) {
      return s;
    }
    causes.add(invalid(field, String.valueOf(v), "must be a string"));
    return "";
  }

  private static long integer(JsonObject o, String key, String field, long dflt, JsonArray causes) {
    Object v = o.getValue(key);
    if (v == null) {
      return dflt;
    }
    if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
      return n.longValue();
    }
    causes.add(invalid(field, String.valueOf(v), "must be an integer"));
    return dflt == 0 ? 1 : dflt;
  }

  private static String quote(String s) {
    return "\"" + s + "\"";
  }

  private static JsonObject required(String field, String detail) {
    return new JsonObject().put("reason", "FieldValueRequired")
        .put("message", detail.isEmpty() ? "Required value" : "Required value: " + detail).put("field", field);
  }

  private static JsonObject invalid(String field, String value, String detail) {
    return new JsonObject().put("reason", "FieldValueInvalid").put("message", "Invalid value: " + value + ": " + detail)
        .put("field", field);
  }
}

package io.mvproxy.registry.impl.conversion;

import io.mvproxy.registry.impl.admission.WebhookConfigurations;
import io.mvproxy.registry.impl.schema.FieldError;
import io.mvproxy.registry.impl.schema.GoValues;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A CRD's {@code spec.conversion} ({@code apiextensions.k8s.io/v1 CustomResourceConversion}), defaulted and validated
 * as apiextensions-apiserver's {@code pkg/apis/apiextensions/validation/validation.go}
 * {@code validateCustomResourceConversion} (field paths of the internal type, as upstream reports them:
 * {@code spec.conversion.webhookClientConfig}, {@code spec.conversion.conversionReviewVersions}).
 *
 * @param strategy       {@code None} (default) or {@code Webhook}
 * @param clientConfig   {@code webhook.clientConfig} ({@code url} or {@code service}, {@code caBundle}), or null
 * @param reviewVersions {@code webhook.conversionReviewVersions} in order of preference
 */
public record CrdConversion(String strategy, JsonObject clientConfig, List<String> reviewVersions) {
  /** The strategy that rewrites {@code apiVersion} only. */
  public static final String NONE = "None";
  /** The strategy that calls a conversion webhook. */
  public static final String WEBHOOK = "Webhook";
  /** ConversionReview versions this server speaks ({@code acceptedConversionReviewVersions}). */
  public static final List<String> ACCEPTED_REVIEW_VERSIONS = List.of("v1", "v1beta1");
  /** None: every version shares the stored form. */
  public static final CrdConversion NONE_CONVERSION = new CrdConversion(NONE, null, List.of());
  private static final Pattern DNS1035 = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");

  /** Copies the list. */
  public CrdConversion {
    reviewVersions = List.copyOf(reviewVersions);
  }

  /** @return true for {@code strategy: Webhook} */
  public boolean webhook() {
    return WEBHOOK.equals(strategy);
  }

  /**
   * @param manifest a CRD manifest (already validated by {@link #validate})
   * @return its conversion, {@link #NONE_CONVERSION} when absent
   */
  public static CrdConversion of(JsonObject manifest) {
    JsonObject spec = manifest.getJsonObject("spec", new JsonObject());
    if (!(spec.getValue("conversion") instanceof JsonObject c) || !WEBHOOK.equals(c.getString("strategy"))) {
      return NONE_CONVERSION;
    }
    JsonObject wh = c.getValue("webhook") instanceof JsonObject w ? w : new JsonObject();
    JsonObject cc = wh.getValue("clientConfig") instanceof JsonObject o ? o.copy() : new JsonObject();
    List<String> versions = new ArrayList<>();
    if (wh.getValue("conversionReviewVersions") instanceof JsonArray a) {
      a.forEach(v -> versions.add(String.valueOf(v)));
    }
    return new CrdConversion(WEBHOOK, cc, versions);
  }

  /**
   * kube's v1 defaults ({@code apiextensions/v1/defaults.go}): {@code spec.conversion} {@code {strategy: None}} when
   * absent, and a webhook {@code clientConfig.service.port} 443 when unset.
   *
   * @param spec a CRD's {@code spec}, changed in place
   * @return {@code spec}
   */
  public static JsonObject setDefaults(JsonObject spec) {
    if (!spec.containsKey("conversion")) {
      spec.put("conversion", new JsonObject().put("strategy", NONE));
    } else if (spec.getValue("conversion") instanceof JsonObject c && c.getValue("webhook") instanceof JsonObject w
        && w.getValue("clientConfig") instanceof JsonObject cc && cc.getValue("service") instanceof JsonObject svc
        && !svc.containsKey("port")) {
      svc.put("port", 443);
    }
    return spec;
  }

  /**
   * Validates {@code spec.conversion} of a v1 CRD spec: {@code strategy} {@code None} or {@code Webhook}; with Webhook
   * a {@code webhook.clientConfig} with exactly one of {@code url} (https, host, no user, fragment or query) and
   * {@code service} (name, namespace, port 1..65535, path starting with {@code /}), a {@code caBundle} holding PEM
   * certificates, and {@code conversionReviewVersions} (DNS-1035 labels, no duplicates) including {@code v1} or
   * {@code v1beta1}; with None no webhook; and Webhook only with {@code preserveUnknownFields} false.
   *
   * @param spec the CRD's {@code spec}
   * @param errs receives the field errors (422 Invalid causes)
   */
  public static void validate(JsonObject spec, List<FieldError> errs) {
    Object v = spec.getValue("conversion");
    if (v == null) {
      return;
    }
    String p = "spec.conversion";
    if (!(v instanceof JsonObject c)) {
      errs.add(FieldError.invalid(p, v, "must be an object"));
      return;
    }
    Object strategy = c.getValue("strategy");
    if (strategy == null || "".equals(strategy)) {
      errs.add(FieldError.required(p + ".strategy", ""));
    } else if (!NONE.equals(strategy) && !WEBHOOK.equals(strategy)) {
      errs.add(FieldError.notSupported(p + ".strategy", strategy, List.of(NONE, WEBHOOK)));
    }
    JsonObject wh = c.getValue("webhook") instanceof JsonObject w ? w : null;
    Object cc = wh == null ? null : wh.getValue("clientConfig");
    Object versions = wh == null ? null : wh.getValue("conversionReviewVersions");
    if (WEBHOOK.equals(strategy)) {
      if (!(cc instanceof JsonObject cco)) {
        errs.add(FieldError.required(p + ".webhookClientConfig", "required when strategy is set to Webhook"));
      } else {
        int before = errs.size();
        WebhookConfigurations.validateClientConfig(cco, p + ".webhookClientConfig", errs);
        if (errs.size() == before && cco.getValue("caBundle") instanceof String ca && !ca.isEmpty()) {
          String problem = caBundleProblem(ca);
          if (problem != null) {
            errs.add(FieldError.invalid(p + ".webhookClientConfig.caBundle", ca, problem));
          }
        }
      }
      reviewVersions(versions, p + ".conversionReviewVersions", errs);
      if (Boolean.TRUE.equals(spec.getValue("preserveUnknownFields"))) {
        errs.add(FieldError.invalid(p + ".strategy", strategy, "must be None if spec.preserveUnknownFields is true"));
      }
    } else {
      if (cc != null) {
        errs.add(FieldError.forbidden(p + ".webhookClientConfig", "should not be set when strategy is not set to "
            + "Webhook"));
      }
      if (versions instanceof JsonArray a && !a.isEmpty()) {
        errs.add(FieldError.forbidden(p + ".conversionReviewVersions", "should not be set when strategy is not set "
            + "to Webhook"));
      }
    }
  }

  /** {@code validateConversionReviewVersions} with a recognized version required (v1 CRDs). */
  private static void reviewVersions(Object v, String path, List<FieldError> errs) {
    if (!(v instanceof JsonArray versions) || versions.isEmpty()) {
      errs.add(FieldError.required(path, ""));
      return;
    }
    Set<String> seen = new HashSet<>();
    boolean accepted = false;
    for (int i = 0; i < versions.size(); i++) {
      String s = String.valueOf(versions.getValue(i));
      if (!seen.add(s)) {
        errs.add(FieldError.invalid(path + "[" + i + "]", s, "duplicate version"));
        continue;
      }
      if (s.length() > 63) {
        errs.add(FieldError.invalid(path + "[" + i + "]", s, "must be no more than 63 characters"));
      }
      if (!DNS1035.matcher(s).matches()) {
        errs.add(FieldError.invalid(path + "[" + i + "]", s, "a DNS-1035 label must consist of lower case "
            + "alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric "
            + "character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"));
      }
      accepted |= ACCEPTED_REVIEW_VERSIONS.contains(s);
    }
    if (!accepted) {
      StringBuilder go = new StringBuilder("[]string{");
      for (int i = 0; i < versions.size(); i++) {
        go.append(i == 0 ? "" : ", ").append(GoValues.quote(String.valueOf(versions.getValue(i))));
      }
      errs.add(FieldError.invalid(path, new GoValues.Raw(go.append("}").toString()),
          "must include at least one of v1, v1beta1"));
    }
  }

  /**
   * @param caBundle base64 of PEM certificates
   * @return null when it holds at least one certificate, else client-go's {@code cert.NewPoolFromBytes} error
   */
  static String caBundleProblem(String caBundle) {
    try {
      byte[] pem = Base64.getDecoder().decode(caBundle);
      if (!new String(pem, java.nio.charset.StandardCharsets.US_ASCII).contains("-----BEGIN CERTIFICATE-----")
          || CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem)).isEmpty()) {
        return "data does not contain any valid RSA or ECDSA certificates";
      }
      return null;
    } catch (Exception e) {
      return "data does not contain any valid RSA or ECDSA certificates";
    }
  }
}

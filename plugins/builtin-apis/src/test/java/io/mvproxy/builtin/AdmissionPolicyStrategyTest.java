package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdParser;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Table of validatingadmissionpolicies and validatingadmissionpolicybindings: kube's columns and cells
 * ({@code printValidatingAdmissionPolicy}, {@code printValidatingAdmissionPolicyBinding} in
 * {@code pkg/printers/internalversion/printers.go}), so {@code kubectl get validatingadmissionpolicies} prints
 * {@code NAME VALIDATIONS PARAMKIND AGE} and the bindings {@code NAME POLICYNAME PARAMREF AGE}.
 */
@Tag("unit")
class AdmissionPolicyStrategyTest {
  static List<String> columns(String plural) {
    CrdDefinition crd = CrdParser.parseBuiltIn(BuiltinKinds.manifest(plural));
    return crd.storageVersion().columns().stream().map(c -> c.name()).toList();
  }

  @Test
  void policyColumnsAndCells() {
    assertEquals(List.of("Validations", "ParamKind", "Age"),
        columns("validatingadmissionpolicies.admissionregistration.k8s.io"));
    AdmissionPolicyStrategy s = new AdmissionPolicyStrategy(false);
    JsonObject p = new JsonObject("""
        {"metadata":{"name":"p"},"spec":{"validations":[{"expression":"true"},{"expression":"false"}]}}""");
    assertEquals(2L, s.tableCell("Validations", p, null));
    assertEquals("<unset>", s.tableCell("ParamKind", p, null));
    p.getJsonObject("spec").put("paramKind", new JsonObject().put("apiVersion", "v1").put("kind", "ConfigMap"));
    assertEquals("v1/ConfigMap", s.tableCell("ParamKind", p, null));
    assertEquals("3m", s.tableCell("Age", p, "3m"));
  }

  @Test
  void bindingColumnsAndCells() {
    assertEquals(List.of("PolicyName", "ParamRef", "Age"),
        columns("validatingadmissionpolicybindings.admissionregistration.k8s.io"));
    AdmissionPolicyStrategy s = new AdmissionPolicyStrategy(true);
    JsonObject b = new JsonObject("""
        {"metadata":{"name":"b"},"spec":{"policyName":"p","validationActions":["Deny"]}}""");
    assertEquals("<unset>", s.tableCell("ParamRef", b, null));
    assertEquals("p", s.tableCell("PolicyName", b, "p"));
    b.getJsonObject("spec").put("paramRef", new JsonObject().put("name", "limits"));
    assertEquals("*/limits", s.tableCell("ParamRef", b, null));
    b.getJsonObject("spec").getJsonObject("paramRef").put("namespace", "ns1");
    assertEquals("ns1/limits", s.tableCell("ParamRef", b, null));
  }
}

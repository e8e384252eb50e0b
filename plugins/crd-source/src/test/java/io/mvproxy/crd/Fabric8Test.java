package io.mvproxy.crd;

import io.mvproxy.registry.impl.CrdSourceOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** The fabric8 Kubernetes client (generic resources, JDK HTTP client) against a node: CRUD, edit, SSA, informer. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class Fabric8Test {
  TestNode node;
  KubernetesClient client;
  MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> widgets;

  @BeforeAll
  void start() throws Exception {
    node = TestNode.withOwnMember(CrdSourceOptions.DEFAULTS);
    node.addAll(CrdRestTest.widgetManifests());
    Config cfg = new ConfigBuilder(Config.empty()).withMasterUrl(node.base()).withNamespace("fb")
        .withRequestTimeout(10_000).build();
    client = new KubernetesClientBuilder().withConfig(cfg).build();
    ResourceDefinitionContext rdc = new ResourceDefinitionContext.Builder().withGroup("example.com")
        .withVersion("v1").withPlural("widgets").withKind("Widget").withNamespaced(true).build();
    widgets = client.genericKubernetesResources(rdc);
  }

  @AfterAll
  void stop() throws Exception {
    if (client != null) {
      client.close();
    }
    node.close();
  }

  static GenericKubernetesResource widget(String name, int replicas) {
    return new GenericKubernetesResourceBuilder().withApiVersion("example.com/v1").withKind("Widget")
        .withNewMetadata().withName(name).endMetadata()
        .addToAdditionalProperties("spec", Map.of("replicas", replicas)).build();
  }

  @Test
  @Timeout(60)
  void crudEditApplyDelete() {
    GenericKubernetesResource created = widgets.inNamespace("fb").resource(widget("f1", 1)).create();
    assertNotNull(created.getMetadata().getUid());
    assertEquals(1L, created.getMetadata().getGeneration());
    GenericKubernetesResource got = widgets.inNamespace("fb").withName("f1").get();
    assertEquals(created.getMetadata().getResourceVersion(), got.getMetadata().getResourceVersion());
    assertNull(widgets.inNamespace("fb").withName("nope").get());
    assertTrue(widgets.inNamespace("fb").list().getItems().stream()
        .anyMatch(w -> "f1".equals(w.getMetadata().getName())));
    GenericKubernetesResource edited = widgets.inNamespace("fb").withName("f1")
        .edit(w -> new GenericKubernetesResourceBuilder(w).editMetadata().addToLabels("a", "b").endMetadata().build());
    assertEquals("b", edited.getMetadata().getLabels().get("a"));
    GenericKubernetesResource applied = widgets.inNamespace("fb").resource(widget("f2", 2)).fieldManager("fabric8")
        .forceConflicts().serverSideApply();
    assertEquals("f2", applied.getMetadata().getName());
    KubernetesClientException dup = assertThrows(KubernetesClientException.class,
        () -> widgets.inNamespace("fb").resource(widget("f2", 2)).create());
    assertEquals(409, dup.getCode());
    assertEquals(1, widgets.inNamespace("fb").withName("f1").delete().size());
    assertNull(widgets.inNamespace("fb").withName("f1").get());
  }

  @Test
  @Timeout(60)
  void informerSeesAddUpdateDelete() throws Exception {
    BlockingQueue<String> events = new LinkedBlockingQueue<>();
    SharedIndexInformer<GenericKubernetesResource> inf = widgets.inNamespace("inf").inform(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(GenericKubernetesResource obj) {
            events.add("add:" + obj.getMetadata().getName());
          }

          @Override
          public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
            if (!oldObj.getMetadata().getResourceVersion().equals(newObj.getMetadata().getResourceVersion())) {
              events.add("update:" + newObj.getMetadata().getName());
            }
          }

          @Override
          public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
            events.add("delete:" + obj.getMetadata().getName());
          }
        });
    try {
      widgets.inNamespace("inf").resource(widget("i1", 1)).create();
      assertEquals("add:i1", events.poll(10, TimeUnit.SECONDS));
      widgets.inNamespace("inf").withName("i1").edit(w -> new GenericKubernetesResourceBuilder(w).editMetadata()
          .addToLabels("x", "y").endMetadata().build());
      assertEquals("update:i1", events.poll(10, TimeUnit.SECONDS));
      widgets.inNamespace("inf").withName("i1").delete();
      assertEquals("delete:i1", events.poll(10, TimeUnit.SECONDS));
      assertEquals(0, inf.getStore().list().size());
    } finally {
      inf.close();
    }
  }
}

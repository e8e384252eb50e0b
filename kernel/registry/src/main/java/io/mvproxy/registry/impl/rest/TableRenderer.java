package io.mvproxy.registry.impl.rest;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.mvproxy.registry.impl.model.CrdVersion;
import io.mvproxy.registry.impl.model.PrinterColumn;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders objects as a {@code meta.k8s.io} Table from a version's {@code additionalPrinterColumns}
 * ({@code apiextensions-apiserver/pkg/registry/customresource/tableconvertor/tableconvertor.go}): a Name column,
 * then the printer columns (an Age column when there are none); {@code date} cells as ages.
 */
public final class TableRenderer {
  static final String NAME_DESCRIPTION = "Name must be unique within a namespace. Is required when creating "
      + "resources, although some resources may allow a client to request the generation of an appropriate name "
      + "automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be "
      + "updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
  static final String AGE_DESCRIPTION = "CreationTimestamp is a timestamp representing the server time when this "
      + "object was created. It is not guaranteed to be set in happens-before order across separate operations. "
      + "Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the "
      + "system. Read-only. Null for lists. More info: "
      + "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

  private final List<PrinterColumn> columns;
  private final List<JsonPath> paths = new ArrayList<>();
  private final ObjectStrategy strategy;

  /** @param version the CRD version whose printer columns to use */
  public TableRenderer(CrdVersion version) {
    this(version, ObjectStrategy.NONE);
  }

  /**
   * @param version  the CRD version whose printer columns to use
   * @param strategy computes cells JSONPaths cannot ({@link ObjectStrategy#tableCell})
   */
  public TableRenderer(CrdVersion version, ObjectStrategy strategy) {
    this.strategy = strategy;
    List<PrinterColumn> cols = version.columns();
    if (cols.isEmpty()) {
      cols = List.of(new PrinterColumn("Age", "date", "", AGE_DESCRIPTION, 0, ".metadata.creationTimestamp"));
    }
    this.columns = cols;
    for (PrinterColumn c : cols) {
      paths.add(JsonPaths.compile(c.jsonPath()));
    }
  }

  /**
   * @return the {@code columnDefinitions} array (Name first unless {@link ObjectStrategy#tableNameColumn} says
   *     otherwise; {@code priority} kept for {@code -o wide})
   */
  public JsonArray columnDefinitions() {
    JsonArray defs = new JsonArray();
    if (strategy.tableNameColumn()) {
      defs.add(new JsonObject().put("name", "Name").put("type", "string").put("format", "name")
          .put("description", NAME_DESCRIPTION).put("priority", 0));
    }
    for (PrinterColumn c : columns) {
      defs.add(new JsonObject().put("name", c.name()).put("type", c.type()).put("format", c.format())
          .put("description", c.description()).put("priority", c.priority()));
    }
    return defs;
  }

  /**
   * @param objects       objects as returned to the client (apiVersion already rewritten)
   * @param view          the Table view asked for
   * @param includeObject {@code None}, {@code Metadata} (default) or {@code Object}
   * @param listMeta      the table's {@code metadata} ({@code resourceVersion}, {@code continue})
   * @param withColumns   false to send {@code columnDefinitions: null} (watch events after the first: TableOptions.NoHeaders)
   * @return the Table
   */
  public JsonObject table(List<JsonObject> objects, MediaView view, String includeObject, JsonObject listMeta,
                          boolean withColumns) {
    Instant now = Instant.now();
    JsonArray rows = new JsonArray();
    for (JsonObject o : objects) {
      rows.add(row(o, view, includeObject, now));
    }
    return new JsonObject().put("kind", "Table").put("apiVersion", view.metaApiVersion()).put("metadata", listMeta)
        .put("columnDefinitions", withColumns ? columnDefinitions() : null).put("rows", rows);
  }

  private JsonObject row(JsonObject o, MediaView view, String includeObject, Instant now) {
    JsonObject meta = o.getJsonObject("metadata", new JsonObject());
    JsonArray cells = new JsonArray();
    if (strategy.tableNameColumn()) {
      cells.add(meta.getString("name", ""));
    }
    DocumentContext doc = JsonPaths.document(o);
    for (int i = 0; i < columns.size(); i++) {
      PrinterColumn c = columns.get(i);
      cells.add(strategy.tableCell(c.name(), o, cell(c.type(), JsonPaths.first(doc, paths.get(i)), now)));
    }
    JsonObject row = new JsonObject().put("cells", cells);
    String inc = includeObject == null || includeObject.isEmpty() ? "Metadata" : includeObject;
    if ("Object".equals(inc)) {
      row.put("object", o);
    } else if (!"None".equals(inc)) {
      row.put("object", partial(o, view.metaApiVersion()));
    }
    return row;
  }

  /** @return {@code {"kind":"PartialObjectMetadata","apiVersion":metaApiVersion,"metadata":...}} of {@code o} */
  public static JsonObject partial(JsonObject o, String metaApiVersion) {
    return new JsonObject().put("kind", "PartialObjectMetadata").put("apiVersion", metaApiVersion)
        .put("metadata", o.getJsonObject("metadata", new JsonObject()).copy());
  }

  private static Object cell(String type, Object v, Instant now) {
    if (v == null) {
      return null;
    }
    switch (type) {
      case "integer":
        return v instanceof Number n ? (Object) n.longValue() : null;
      case "number":
        return v instanceof Number ? v : null;
      case "boolean":
        return v instanceof Boolean ? v : null;
      case "date":
        return v instanceof String s ? Ages.since(s, now) : null;
      default:
        if (v instanceof JsonObject jo) {
          return jo.encode();
        } else if (v instanceof JsonArray ja) {
          return ja.encode();
        }
        return String.valueOf(v);
    }
  }
}

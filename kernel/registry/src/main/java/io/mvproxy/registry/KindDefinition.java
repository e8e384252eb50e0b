package io.mvproxy.registry;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What a code plugin declares about a kind it serves through {@link Registry#serve}: group, version, kind, plural,
 * scope, the OpenAPI v3 schema of its objects, printer columns and whether it has a {@code status} subresource. The
 * fields mean what they mean in a {@code CustomResourceDefinition} ({@code apiextensions.k8s.io/v1}, one version),
 * and {@link Registry#serve} checks them with the same rules kube-apiserver applies to a CRD (a 422
 * {@link io.mvproxy.api.StatusException} naming the {@code spec...} field that is wrong): the group is a DNS
 * subdomain with a dot, the plural and singular are lower-case DNS labels, the schema is structural and its CEL
 * rules compile. Immutable; build one with {@link #builder}.
 */
public final class KindDefinition {
  /**
   * One printer column of {@code kubectl get} (a CRD's {@code additionalPrinterColumns}). {@code Name} always comes
   * first; a kind without columns shows {@code Name} and {@code Age}, and a kind with columns shows only them, so it
   * lists {@code Age} itself ({@code date}, {@code .metadata.creationTimestamp}), as apiextensions-apiserver's
   * defaulting of a CRD's columns.
   *
   * @param name        the column header
   * @param type        the OpenAPI type: {@code string}, {@code integer}, {@code number}, {@code boolean} or
   *                    {@code date}
   * @param jsonPath    a simple JSONPath into the object, e.g. {@code .spec.timeZone}
   * @param description what the column shows ({@code ""} for none)
   * @param priority    0 for the default view, above 0 for {@code -o wide} only
   */
  public record Column(String name, String type, String jsonPath, String description, int priority) {
    /**
     * @throws NullPointerException when name, type or jsonPath is null
     */
    public Column {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(jsonPath, "jsonPath");
      description = description == null ? "" : description;
    }
  }

  private final String group;
  private final String version;
  private final String kind;
  private final String plural;
  private final String singular;
  private final boolean namespaced;
  private final List<String> shortNames;
  private final List<String> categories;
  private final JsonObject schema;
  private final List<Column> columns;
  private final boolean statusSubresource;

  private KindDefinition(Builder b) {
    this.group = b.group;
    this.version = b.version;
    this.kind = b.kind;
    this.plural = b.plural;
    this.singular = b.singular != null ? b.singular : b.kind.toLowerCase(Locale.ROOT);
    this.namespaced = b.namespaced;
    this.shortNames = List.copyOf(b.shortNames);
    this.categories = List.copyOf(b.categories);
    this.schema = b.schema.copy();
    this.columns = List.copyOf(b.columns);
    this.statusSubresource = b.statusSubresource;
  }

  /**
   * Starts a definition: a namespaced kind without status subresource, columns, short names or categories.
   *
   * @param group   the API group, a DNS subdomain with at least one dot, e.g. {@code time.example.com}
   * @param version the version, e.g. {@code v1}
   * @param kind    the kind, e.g. {@code Alarm}
   * @param plural  the resource name, e.g. {@code alarms}
   * @return the builder
   */
  public static Builder builder(String group, String version, String kind, String plural) {
    return new Builder(group, version, kind, plural);
  }

  /** @return the API group */
  public String group() {
    return group;
  }

  /** @return the version */
  public String version() {
    return version;
  }

  /** @return the kind */
  public String kind() {
    return kind;
  }

  /** @return the resource (plural) name */
  public String plural() {
    return plural;
  }

  /** @return the singular name (the kind lower-cased unless set) */
  public String singular() {
    return singular;
  }

  /** @return true for a namespaced kind, false for a cluster-scoped one */
  public boolean namespaced() {
    return namespaced;
  }

  /** @return {@code <plural>.<group>}, the name of the kind's resource */
  public String name() {
    return plural + "." + group;
  }

  /**
   * The definition in the shape the registry reads it: a {@code apiextensions.k8s.io/v1}
   * {@code CustomResourceDefinition} with one served, storage version (it is not stored or published as a CRD).
   *
   * @return a new JSON object
   */
  public JsonObject toCustomResourceDefinition() {
    JsonObject names = new JsonObject().put("plural", plural).put("singular", singular).put("kind", kind)
        .put("listKind", kind + "List");
    if (!shortNames.isEmpty()) {
      names.put("shortNames", new JsonArray(new ArrayList<>(shortNames)));
    }
    if (!categories.isEmpty()) {
      names.put("categories", new JsonArray(new ArrayList<>(categories)));
    }
    JsonObject v = new JsonObject().put("name", version).put("served", true).put("storage", true)
        .put("schema", new JsonObject().put("openAPIV3Schema", schema.copy()));
    if (statusSubresource) {
      v.put("subresources", new JsonObject().put("status", new JsonObject()));
    }
    if (!columns.isEmpty()) {
      JsonArray cols = new JsonArray();
      for (Column c : columns) {
        JsonObject col = new JsonObject().put("name", c.name()).put("type", c.type()).put("jsonPath", c.jsonPath());
        if (!c.description().isEmpty()) {
          col.put("description", c.description());
        }
        if (c.priority() != 0) {
          col.put("priority", c.priority());
        }
        cols.add(col);
      }
      v.put("additionalPrinterColumns", cols);
    }
    return new JsonObject().put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "CustomResourceDefinition")
        .put("metadata", new JsonObject().put("name", name()))
        .put("spec", new JsonObject().put("group", group).put("scope", namespaced ? "Namespaced" : "Cluster")
            .put("names", names).put("versions", new JsonArray().add(v)));
  }

  /** Builds a {@link KindDefinition}; not thread-safe. */
  public static final class Builder {
    private final String group;
    private final String version;
    private final String kind;
    private final String plural;
    private String singular;
    private boolean namespaced = true;
    private final List<String> shortNames = new ArrayList<>();
    private final List<String> categories = new ArrayList<>();
    private JsonObject schema;
    private final List<Column> columns = new ArrayList<>();
    private boolean statusSubresource;

    private Builder(String group, String version, String kind, String plural) {
      this.group = Objects.requireNonNull(group, "group");
      this.version = Objects.requireNonNull(version, "version");
      this.kind = Objects.requireNonNull(kind, "kind");
      this.plural = Objects.requireNonNull(plural, "plural");
    }

    /** @param singular the singular name (default: the kind lower-cased) @return this */
    public Builder singular(String singular) {
      this.singular = singular;
      return this;
    }

    /** @param namespaced true (the default) for a namespaced kind, false for a cluster-scoped one @return this */
    public Builder namespaced(boolean namespaced) {
      this.namespaced = namespaced;
      return this;
    }

    /** @param names short names for kubectl ({@code kubectl get alm}) @return this */
    public Builder shortNames(String... names) {
      shortNames.addAll(List.of(names));
      return this;
    }

    /** @param names categories for kubectl ({@code kubectl get all}) @return this */
    public Builder categories(String... names) {
      categories.addAll(List.of(names));
      return this;
    }

    /**
     * @param openApiV3Schema the objects' structural OpenAPI v3 schema (a CRD version's
     *                        {@code schema.openAPIV3Schema}: {@code type: object} at the root, {@code default},
     *                        {@code x-kubernetes-validations} allowed); copied
     * @return this
     */
    public Builder schema(JsonObject openApiV3Schema) {
      this.schema = Objects.requireNonNull(openApiV3Schema, "openApiV3Schema").copy();
      return this;
    }

    /** Enables the {@code status} subresource: the main resource ignores {@code status}, {@code /status} only changes it. @return this */
    public Builder statusSubresource() {
      this.statusSubresource = true;
      return this;
    }

    /**
     * Adds a printer column in the default view.
     *
     * @param name     the header
     * @param type     the OpenAPI type ({@code string}, {@code integer}, {@code number}, {@code boolean},
     *                 {@code date})
     * @param jsonPath the JSONPath of the cell, e.g. {@code .status.state}
     * @return this
     */
    public Builder column(String name, String type, String jsonPath) {
      return column(new Column(name, type, jsonPath, "", 0));
    }

    /** @param column a printer column, in order @return this */
    public Builder column(Column column) {
      columns.add(Objects.requireNonNull(column, "column"));
      return this;
    }

    /**
     * @return the definition (checked when served, by {@link Registry#serve})
     * @throws IllegalStateException when no schema was set
     */
    public KindDefinition build() {
      if (schema == null) {
        throw new IllegalStateException("KindDefinition " + plural + "." + group + ": no schema");
      }
      return new KindDefinition(this);
    }
  }
}

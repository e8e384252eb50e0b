package io.mvproxy.registry.impl.model;

/**
 * One {@code additionalPrinterColumns} entry of a CRD version (apiextensions v1 {@code CustomResourceColumnDefinition}).
 *
 * @param name        column header
 * @param type        OpenAPI type: {@code string}, {@code integer}, {@code number}, {@code boolean}, {@code date}
 * @param format      OpenAPI format, {@code ""} when none
 * @param description column description, {@code ""} when none
 * @param priority    0 for the default view, &gt; 0 only for {@code -o wide}
 * @param jsonPath    Kubernetes JSONPath evaluated against the object, e.g. {@code .spec.replicas}
 */
public record PrinterColumn(String name, String type, String format, String description, int priority,
                            String jsonPath) {
}

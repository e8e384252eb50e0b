package io.mvproxy.registry.impl.schema;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelOptions;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import dev.cel.extensions.CelStringExtensions;
import dev.cel.parser.CelStandardMacro;

/**
 * The one CEL environment CRD validation rules compile in, built with Google's {@code dev.cel:cel}: variables
 * {@code self} and {@code oldSelf} (dynamically typed), the standard macros, optional types ({@code optionalOldSelf},
 * {@code ?.}), the strings extension at kube-apiserver's version 2 (charAt, indexOf, lastIndexOf, lowerAscii,
 * upperAscii, replace, split, substring, trim, join, quote), sets, {@code cel.bind}, and the Kubernetes libraries of
 * {@link KubeCelLibrary} (apiserver {@code pkg/cel/library}: lists, regex, url, ip, cidr, quantity). Shared and
 * thread-safe.
 */
public final class CelEnvironment {
  /** Options: optional syntax, heterogeneous numeric comparisons (as cel-go), RE2 {@code matches}. */
  public static final CelOptions OPTIONS = CelOptions.current().enableOptionalSyntax(true)
      .enableHeterogeneousNumericComparisons(true).build();
  /** The environment. */
  public static final Cel CEL = build();

  private CelEnvironment() {
  }

  private static Cel build() {
    CelStringExtensions strings = CelExtensions.strings(CelStringExtensions.Function.CHAR_AT,
        CelStringExtensions.Function.INDEX_OF, CelStringExtensions.Function.JOIN,
        CelStringExtensions.Function.LAST_INDEX_OF, CelStringExtensions.Function.LOWER_ASCII,
        CelStringExtensions.Function.QUOTE, CelStringExtensions.Function.REPLACE, CelStringExtensions.Function.SPLIT,
        CelStringExtensions.Function.SUBSTRING, CelStringExtensions.Function.TRIM,
        CelStringExtensions.Function.UPPER_ASCII);
    return CelFactory.standardCelBuilder()
        .setOptions(OPTIONS)
        .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
        .addVar(CelRules.SELF, SimpleType.DYN)
        .addVar(CelRules.OLD_SELF, SimpleType.DYN)
        .addCompilerLibraries(strings, CelExtensions.optional(), CelExtensions.sets(OPTIONS), CelExtensions.bindings())
        .addRuntimeLibraries(strings, CelExtensions.optional(), CelExtensions.sets(OPTIONS))
        .addFunctionDeclarations(KubeCelLibrary.declarations())
        .addFunctionBindings(KubeCelLibrary.bindings())
        .build();
  }
}

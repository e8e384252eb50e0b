#!/usr/bin/env bash
# Validation cost benchmark (issue 11): objects/s for the largest CRD and the CEL-heaviest CRD, printed as medians.
# Usage: bench/schema-validation.sh [path/to/shared/testdata]   (run from the repository root; honours MAVEN_OPTS)
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q ${MVN_REPO:+-Dmaven.repo.local=$MVN_REPO} -pl plugins/crd-source -am install -DskipTests
mvn -B -q ${MVN_REPO:+-Dmaven.repo.local=$MVN_REPO} -pl plugins/crd-source dependency:build-classpath \
  -Dmdep.includeScope=runtime -Dmdep.outputFile=target-bench.cp >/dev/null
CP="$(cat plugins/crd-source/target-bench.cp):plugins/crd-source/target/classes"
rm -f plugins/crd-source/target-bench.cp
exec java -Xmx1g -cp "$CP" bench/SchemaValidationBench.java "${1:-../shared/testdata}"

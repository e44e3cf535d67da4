#!/usr/bin/env bash
# Print the Java classpath (colon-separated jar paths) for IBM's Informix JDBC
# driver, fetching it from Maven Central through `mvn` when the local Maven
# repository does not have it yet (fresh CI machines start with an empty ~/.m2).
#
# The driver's pom declares one runtime dependency, org.mongodb:bson; it is only
# touched for BSON columns, but we put it on the classpath so that the driver
# runs exactly as its pom intends.
#
# Environment:
#   IFX_JDBC_VERSION   driver version (default 15.0.1.0)
#   MAVEN_REPO_LOCAL   local Maven repository (default ~/.m2/repository)
#
# Exit status: 0 and the classpath on stdout; non-zero with a reason on stderr.
set -euo pipefail

version="${IFX_JDBC_VERSION:-15.0.1.0}"
bson_version="3.8.0"
repo="${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}"

driver_jar="$repo/com/ibm/informix/jdbc/$version/jdbc-$version.jar"
bson_jar="$repo/org/mongodb/bson/$bson_version/bson-$bson_version.jar"

if [[ ! -f "$driver_jar" || ! -f "$bson_jar" ]]; then
    if ! command -v mvn >/dev/null 2>&1; then
        echo "jdbc-classpath: $driver_jar missing and mvn is not installed" >&2
        exit 2
    fi
    # dependency:get resolves transitively, so this also brings the bson jar.
    # Maven's own output goes to stderr: stdout carries only the classpath.
    mvn -q -B "-Dmaven.repo.local=$repo" dependency:get \
        "-Dartifact=com.ibm.informix:jdbc:$version" >&2 || {
        echo "jdbc-classpath: mvn dependency:get com.ibm.informix:jdbc:$version failed" >&2
        exit 3
    }
fi

for jar in "$driver_jar" "$bson_jar"; do
    if [[ ! -f "$jar" ]]; then
        echo "jdbc-classpath: $jar still missing after mvn dependency:get" >&2
        exit 4
    fi
done

echo "$driver_jar:$bson_jar"

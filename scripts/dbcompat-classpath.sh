#!/usr/bin/env bash
# Print the Java classpath (colon-separated jar paths) that IBM's database
# compatibility test runner (tests/compat/ibm_dbcompat) needs besides IBM's
# Informix JDBC driver: gson, slf4j-api and logback, the libraries its gradle
# build declared. Jars missing from the local Maven repository are fetched
# from Maven Central with `mvn dependency:get`, as scripts/jdbc-classpath.sh
# does for the driver (fresh CI machines start with an empty ~/.m2).
#
# Versions are pinned: the gradle build asked for gson 2.+, slf4j-api 1.7.5 and
# logback 1.+; logback 1.2.x is the last line that binds to slf4j 1.7.
#
# The driver's own classpath is printed after these jars, so that the output is
# everything the runner needs.
#
# Environment:
#   MAVEN_REPO_LOCAL   local Maven repository (default ~/.m2/repository)
#   (and those of scripts/jdbc-classpath.sh)
#
# Exit status: 0 and the classpath on stdout; non-zero with a reason on stderr
# (2: mvn is needed and not installed, as jdbc-classpath.sh reports it).
set -euo pipefail

repo="${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}"
# Parameter expansion, not dirname: the script also runs with an empty PATH.
here="."
[[ "${BASH_SOURCE[0]}" == */* ]] && here="${BASH_SOURCE[0]%/*}"

artifacts=(
    "com.google.code.gson:gson:2.10.1"
    "org.slf4j:slf4j-api:1.7.36"
    "ch.qos.logback:logback-core:1.2.13"
    "ch.qos.logback:logback-classic:1.2.13"
)

jar_path() {
    local group="${1%%:*}" rest="${1#*:}"
    local artifact="${rest%%:*}" version="${rest#*:}"
    echo "$repo/${group//.//}/$artifact/$version/$artifact-$version.jar"
}

classpath=""
for coords in "${artifacts[@]}"; do
    jar="$(jar_path "$coords")"
    if [[ ! -f "$jar" ]]; then
        if ! command -v mvn >/dev/null 2>&1; then
            echo "dbcompat-classpath: $jar missing and mvn is not installed" >&2
            exit 2
        fi
        # Maven's own output goes to stderr: stdout carries only the classpath.
        mvn -q -B "-Dmaven.repo.local=$repo" dependency:get "-Dtransitive=false" \
            "-Dartifact=$coords" >&2 || {
            echo "dbcompat-classpath: mvn dependency:get $coords failed" >&2
            exit 3
        }
        if [[ ! -f "$jar" ]]; then
            echo "dbcompat-classpath: $jar still missing after mvn dependency:get" >&2
            exit 4
        fi
    fi
    classpath="$classpath${classpath:+:}$jar"
done

driver="$(bash "$here/jdbc-classpath.sh")"
echo "$classpath:$driver"

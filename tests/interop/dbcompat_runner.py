"""Build and run IBM's database compatibility test runner (tests/compat/ibm_dbcompat).

IBM published these operation files with a results file showing every one
passing through its JDBC driver against a real Informix; running the same
runner, unchanged but for what its README lists, against our server makes
IBM's suite one of the emulator's judges. This module finds the tools, gets
the jars through scripts/dbcompat-classpath.sh, compiles the runner once into
a cache directory keyed by its inputs, and runs one operation file per JVM so
that each file's outcome stands alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .jdbc_runner import JdbcUnavailable, Target, require_tool

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "tests" / "compat" / "ibm_dbcompat"
SOURCES = SUITE / "src"
RESOURCES = SUITE / "resources"
IBM_RESULTS = SUITE / "results" / "results_java_ifxjdbc.json"
BUILD_DIR = SUITE / "build"
CLASSPATH_SCRIPT = REPO / "scripts" / "dbcompat-classpath.sh"
MAIN_CLASS = "com.ibm.database.compatibility.OperationReaderRunner"
# Where the runner writes, relative to its working directory (OperationReaderRunner.main, logback.xml).
RESULT_FILE = Path("results") / "results_java_ifxjdbc.json"
DEBUG_LOG = Path("results") / "results.debug.log"
MISSING_MVN_STATUS = 2  # dbcompat-classpath.sh: a jar is missing and mvn is not installed


class SuiteBroken(Exception):
    """The runner could not be built or gave no verdict: a defect of the harness, never a skip."""


def operation_files() -> list[Path]:
    """Every operation file IBM ships, in name order."""
    return sorted(RESOURCES.glob("*.json"))


def ibm_verdicts() -> dict[str, bool]:
    """Operation file name -> whether it passed against the real Informix in IBM's run."""
    verdicts = {}
    for line in IBM_RESULTS.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            verdicts[record["test"]] = bool(record["result"])
    return verdicts


def classpath(timeout: float = 900) -> str:
    """gson, slf4j, logback and IBM's JDBC jars; JdbcUnavailable only when mvn is needed and absent."""
    bash = require_tool("bash", "runs scripts/dbcompat-classpath.sh")
    try:
        proc = subprocess.run([bash, str(CLASSPATH_SCRIPT)], capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise SuiteBroken(f"scripts/dbcompat-classpath.sh timed out after {timeout}s") from exc
    if proc.returncode == MISSING_MVN_STATUS:
        raise JdbcUnavailable(proc.stderr.strip().splitlines()[-1])
    if proc.returncode != 0 or not proc.stdout.strip():
        raise SuiteBroken(f"scripts/dbcompat-classpath.sh failed ({proc.returncode}):\n{proc.stderr}")
    return proc.stdout.strip()


def _inputs_digest(sources: list[Path], jars: str) -> str:
    digest = hashlib.sha256(jars.encode())
    for path in sources:
        digest.update(str(path.relative_to(SOURCES)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def compile_runner(javac: str, jars: str, build_root: Path = BUILD_DIR) -> Path:
    """Compile the runner unless an up-to-date build exists; return its classes directory.

    logback.xml is copied beside the classes so that logback finds it on the
    classpath as the original build packaged it.
    """
    sources = sorted(SOURCES.rglob("*.java"))
    classes = build_root / _inputs_digest([*sources, SOURCES / "logback.xml"], jars)
    if (classes / "logback.xml").is_file():
        return classes
    staging = build_root / f"{classes.name}.tmp{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    proc = subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-cp", jars, "-d", str(staging),
                           *map(str, sources)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise SuiteBroken(f"javac failed:\n{proc.stdout}{proc.stderr}")
    shutil.copy(SOURCES / "logback.xml", staging / "logback.xml")
    try:  # renamed last: a concurrent or interrupted run never sees half a build
        staging.rename(classes)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
    for old in build_root.iterdir():
        if old != classes and old.is_dir() and ".tmp" not in old.name:
            shutil.rmtree(old, ignore_errors=True)
    return classes


@dataclass(frozen=True)
class Verdict:
    """The runner's result record for one operation file, and its logs for failure messages."""

    test: str
    passed: bool
    detail: str | None
    errors: str

    def explain(self) -> str:
        return f"{self.test}: {self.detail}\n--- runner errors ---\n{self.errors}"


@dataclass(frozen=True)
class Runner:
    """The compiled runner, ready to run an operation file against a target."""

    java: str
    jars: str
    classes: Path

    def run(self, target: Target, operation_file: Path, workdir: Path, timeout: float = 300) -> Verdict:
        """Run one file in a fresh JVM, in `workdir`, where the runner writes its results."""
        workdir.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k != "VCAP_SERVICES"}
        # DatabaseCredential reads these; IBM's URL carried no other properties,
        # INFORMIXSERVER names the server as every client of ours does.
        env.update(HOST=target.host, PORT=str(target.port), DATABASE=target.database,
                   USER=target.user, PASSWORD=target.password,
                   CONN_PROPERTIES=f"INFORMIXSERVER={target.server}")
        command = [self.java, "-Duser.timezone=UTC", "-cp", f"{self.classes}{os.pathsep}{self.jars}",
                   MAIN_CLASS, str(operation_file)]
        try:
            proc = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True,
                                  timeout=timeout, check=False)
        except subprocess.TimeoutExpired as exc:
            raise SuiteBroken(f"{operation_file.name} did not finish in {timeout}s") from exc
        results = workdir / RESULT_FILE
        records = results.read_text(encoding="utf-8").splitlines() if results.is_file() else []
        if len(records) != 1:
            raise SuiteBroken(f"{operation_file.name}: expected one result record, got {records!r}\n"
                              f"--- stdout ---\n{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}")
        record = json.loads(records[0])
        return Verdict(record["test"], bool(record["result"]), record.get("detail"),
                       _error_lines(workdir / DEBUG_LOG))


def _error_lines(log: Path, limit: int = 40) -> str:
    """The runner's ERROR lines and what follows them (stack heads), enough to diagnose."""
    if not log.is_file():
        return "(no debug log)"
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    picked = [line for i, line in enumerate(lines)
              if line.startswith("ERROR") or (i and lines[i - 1].startswith("ERROR") and line.startswith("java."))]
    return "\n".join(picked[:limit]) or "(no ERROR lines)"


def build_runner() -> Runner:
    """Everything needed before the first file; JdbcUnavailable says which tool is missing."""
    java = require_tool("java", "a Java 11+ runtime runs IBM's JDBC driver")
    javac = require_tool("javac", "a JDK compiles IBM's compatibility test runner")
    jars = classpath()
    return Runner(java=java, jars=jars, classes=compile_runner(javac, jars))

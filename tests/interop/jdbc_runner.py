"""Compile and run the Java JDBC interop client (tests/interop/java/JdbcInterop.java).

The point of the JDBC suite is to let IBM's own driver judge our server, so the
Java side stays a thin, dependency-free program; this module finds the tools,
obtains the driver jar through scripts/jdbc-classpath.sh, compiles the program
once (cached by a hash of its inputs) and turns its line output into tuples.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Mapping
from typing import Protocol

REPO = Path(__file__).resolve().parents[2]
JAVA_DIR = Path(__file__).resolve().parent / "java"
SOURCE = JAVA_DIR / "JdbcInterop.java"
BUILD_DIR = JAVA_DIR / "build"
CLASSPATH_SCRIPT = REPO / "scripts" / "jdbc-classpath.sh"
MAIN_CLASS = "JdbcInterop"

# Set to e.g. "PROTOCOLTRACE=2;PROTOCOLTRACEFILE=/tmp/jdbc.trace" to make the
# driver log every message it exchanges; appended to the JDBC URL as is.
URL_EXTRA_ENV = "IFX_JDBC_URL_EXTRA"

NULL = None  # how SQL NULL appears in parsed records
_NULL_TOKEN = "\\N"
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[tnr\\])")
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}


class JdbcUnavailable(Exception):
    """The JDBC client cannot run here; the message says what is missing."""


class Target(Protocol):
    """Connection settings of the server under test (the `ifx_target` fixture)."""

    host: str
    port: int
    user: str
    password: str
    database: str
    server: str


def unescape(field: str) -> str | None:
    """Invert the Java side's field escaping; the NULL token becomes None."""
    if field == _NULL_TOKEN:
        return NULL

    def replace(match: re.Match[str]) -> str:
        code = match.group(1)
        return chr(int(code[1:], 16)) if code[0] == "u" else _SIMPLE_ESCAPES[code]

    return _ESCAPE.sub(replace, field)


def parse_output(text: str) -> list[tuple[str | None, ...]]:
    """One tuple per output line, fields unescaped."""
    return [tuple(unescape(f) for f in line.split("\t")) for line in text.splitlines() if line]


def require_tool(name: str, purpose: str) -> str:
    """Path of an executable, or JdbcUnavailable naming the missing one and why it matters."""
    path = shutil.which(name)
    if path is None:
        raise JdbcUnavailable(f"`{name}` is not on PATH ({purpose})")
    return path


def jdbc_classpath(timeout: float = 600, env: Mapping[str, str] | None = None) -> str:
    """Driver classpath from scripts/jdbc-classpath.sh, which may download it with mvn."""
    bash = require_tool("bash", "needed to run scripts/jdbc-classpath.sh")
    try:
        proc = subprocess.run(
            [bash, str(CLASSPATH_SCRIPT)], capture_output=True, text=True, timeout=timeout, check=False, env=env
        )
    except subprocess.TimeoutExpired as exc:
        raise JdbcUnavailable(f"scripts/jdbc-classpath.sh timed out after {timeout}s") from exc
    if proc.returncode != 0 or not proc.stdout.strip():
        reason = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        raise JdbcUnavailable(f"IBM Informix JDBC jar could not be obtained: {reason[0]}")
    return proc.stdout.strip()


def _inputs_digest(source: Path, classpath: str) -> str:
    digest = hashlib.sha256(source.read_bytes())
    digest.update(classpath.encode())
    return digest.hexdigest()[:16]


def compile_client(javac: str, classpath: str, build_root: Path = BUILD_DIR, source: Path = SOURCE) -> Path:
    """Compile the client unless an up-to-date build exists; return the classes dir.

    A compile error raises RuntimeError: that is a defect of the suite, not a
    reason to skip it.
    """
    classes = build_root / _inputs_digest(source, classpath)
    if (classes / f"{MAIN_CLASS}.class").is_file():
        _prune_stale_builds(build_root, keep=classes)
        return classes
    staging = build_root / f"{classes.name}.tmp{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    proc = subprocess.run(
        [javac, "-encoding", "UTF-8", "-cp", classpath, "-d", str(staging), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise RuntimeError(f"javac failed:\n{proc.stdout}{proc.stderr}")
    # Rename last so that a concurrent or interrupted run never sees half a build.
    try:
        staging.rename(classes)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
    _prune_stale_builds(build_root, keep=classes)
    return classes


def _prune_stale_builds(build_root: Path, keep: Path) -> None:
    """Each source edit gets a fresh digest directory; drop the finished older ones."""
    for old in build_root.iterdir():
        if old != keep and old.is_dir() and ".tmp" not in old.name:
            shutil.rmtree(old, ignore_errors=True)


@dataclass(frozen=True)
class RunResult:
    """What one scenario printed, parsed, plus the raw streams for failure messages."""

    scenario: str
    returncode: int
    stdout: str
    stderr: str

    @property
    def records(self) -> list[tuple[str | None, ...]]:
        return parse_output(self.stdout)

    def facts(self) -> dict[str | None, str | None]:
        """Two-field records as a dict (key -> value); later keys win."""
        return {r[0]: r[1] for r in self.records if len(r) == 2}

    def check(self) -> RunResult:
        """Fail loudly, with the Java stack trace, unless the scenario ran to the end."""
        if self.returncode != 0:
            raise AssertionError(
                f"JDBC scenario {self.scenario!r} exited with {self.returncode}\n"
                f"--- stdout ---\n{self.stdout}\n--- stderr ---\n{self.stderr}"
            )
        return self


@dataclass(frozen=True)
class JdbcClient:
    """A compiled JdbcInterop ready to run against any Target."""

    java: str
    classpath: str
    classes: Path

    def run(self, target: Target, scenario: str, *args: str, timeout: float = 240, **overrides: str) -> RunResult:
        """Run one scenario; `overrides` replace connection settings (e.g. password)."""
        settings = {
            "host": target.host,
            "port": str(target.port),
            "database": target.database,
            "user": target.user,
            "password": target.password,
            "server": target.server,
        }
        unknown = set(overrides) - set(settings)
        if unknown:
            raise TypeError(f"unknown connection settings: {sorted(unknown)}")
        settings.update(overrides)
        command = [
            self.java,
            # UTC: Timestamp/Date conversions in the driver go through the
            # default Calendar; a zone with DST or LMT offsets would bend them.
            "-Duser.timezone=UTC",
            f"-Dinterop.urlExtra={os.environ.get(URL_EXTRA_ENV, '')}",
            "-cp",
            f"{self.classes}{os.pathsep}{self.classpath}",
            MAIN_CLASS,
            *settings.values(),
            scenario,
            *args,
        ]
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired as exc:
            raise AssertionError(
                f"JDBC scenario {scenario!r} did not finish in {timeout}s\n"
                f"--- stdout so far ---\n{exc.stdout!r}\n--- stderr so far ---\n{exc.stderr!r}"
            ) from exc
        return RunResult(scenario, proc.returncode, proc.stdout, proc.stderr)


def build_client() -> JdbcClient:
    """Everything needed before the first scenario; JdbcUnavailable says why not."""
    java = require_tool("java", "a Java 11+ runtime runs IBM's JDBC driver")
    javac = require_tool("javac", "a JDK compiles the JDBC interop client")
    classpath = jdbc_classpath()
    return JdbcClient(java=java, classpath=classpath, classes=compile_client(javac, classpath))

"""Chooses the server every test runs against.

1. ``IFX_HOST`` (with ``IFX_PORT``, ``IFX_USER``, ``IFX_PASSWORD``,
   ``IFX_DATABASE``, ``IFX_SERVER``) names a real Informix server.
2. Otherwise, when a Docker engine answers and ``IFX_USE_DOCKER`` is not
   ``0``, testcontainers starts IBM's Informix Developer Edition image.
3. Otherwise the embedded emulator runs in-process.

A misconfiguration stops the run with one clear sentence instead of a stack
trace in every test.
"""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

# SQLAlchemy's compliance suite is its own pytest session (its plugin owns the
# run); tests/test_sqla_suite.py runs it in a child process.
collect_ignore = ["sqla"]
# emu / proxy / direct for the fault-injection modules (a module defining its
# own fixture of one of these names keeps its own).
pytest_plugins = ["faults.fixtures"]


INFORMIX_IMAGE = "icr.io/informix/informix-developer-database:latest"


@dataclass(frozen=True)
class Target:
    host: str
    port: int
    user: str
    password: str
    database: str
    server: str
    kind: str  # "real", "docker" or "emulator"


def _env_target() -> Target | None:
    host = os.environ.get("IFX_HOST")
    if not host:
        return None
    port_text = os.environ.get("IFX_PORT", "9088")
    if not port_text.isdigit():
        raise pytest.UsageError(f"IFX_PORT must be a port number, not {port_text!r}")
    target = Target(host, int(port_text), os.environ.get("IFX_USER", "informix"),
                    os.environ.get("IFX_PASSWORD", "in4mix"),
                    os.environ.get("IFX_DATABASE", "testdb"),
                    os.environ.get("IFX_SERVER", "informix"), "real")
    try:
        socket.create_connection((target.host, target.port), timeout=5).close()
    except OSError as exc:
        raise pytest.UsageError(
            f"IFX_HOST={target.host} IFX_PORT={target.port}: cannot connect ({exc}); "
            "unset IFX_HOST to use the embedded emulator") from None
    return target


def _docker_available() -> bool:
    if os.environ.get("IFX_USE_DOCKER", "1") == "0":
        return False
    try:
        import docker  # type: ignore[import-not-found]
        docker.from_env(timeout=3).ping()
        return True
    except Exception:
        return False


def _docker_target() -> Iterator[Target]:
    try:
        from testcontainers.core.container import DockerContainer
        from testcontainers.core.waiting_utils import wait_for_logs
    except ImportError:
        raise pytest.UsageError("a Docker engine answers but testcontainers is not "
                                "installed: pip install -e '.[test]'") from None
    container = (DockerContainer(INFORMIX_IMAGE).with_env("LICENSE", "accept")
                 .with_exposed_ports(9088))
    with container:
        wait_for_logs(container, "Maximum server connections", timeout=600)
        target = Target(container.get_container_host_ip(),
                        int(container.get_exposed_port(9088)), "informix", "in4mix",
                        "testdb", "informix", "docker")
        _create_test_database(target)
        yield target


def _create_test_database(target: Target) -> None:
    """The image starts with system databases only; tests need a logged one."""
    import informix_stream
    with informix_stream.connect(host=target.host, port=target.port, user=target.user,
                                 password=target.password, server=target.server,
                                 autocommit=True) as conn:
        conn.cursor().execute(f"CREATE DATABASE {target.database} WITH LOG")


@pytest.fixture(scope="session")
def ifx_target() -> Iterator[Target]:
    target = _env_target()
    if target is not None:
        yield target
        return
    if _docker_available():
        yield from _docker_target()
        return
    from informix_stream.emulator import EmulatorServer
    with EmulatorServer(databases=("testdb", "otherdb")) as server:
        yield Target(server.host, server.port, "informix", "in4mix", "testdb",
                     "informix", "emulator")


def pytest_configure(config: pytest.Config) -> None:
    """Load the package's own pytest plugin when running from a source tree
    that is not pip-installed (installed, its entry point loads it); and
    let SIGINT raise KeyboardInterrupt.  The interrupt tests play a user's
    Ctrl-C, here and in the emulator processes they start; a shell without
    job control starts background commands with SIGINT ignored, Python then
    keeps it ignored and its children inherit that: a suite launched so
    failed every Ctrl-C test, for no fault of the code."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if not config.pluginmanager.has_plugin("informix_stream"):
        from informix_stream.emulator import pytest_plugin
        config.pluginmanager.register(pytest_plugin, "informix_stream")


# Descriptors into emulator directories the whole run may leave open.  A
# stopped emulator closes every SQLite connection it opened (none is left
# after a clean run); before that was so, one run of the suite held over a
# thousand.  The count comes from /proc (tests/emulator_fds.py), and
# test_emulator_stop.py checks that it sees a running emulator's files.
MAX_EMULATOR_FDS = 64


@pytest.hookimpl(trylast=True)       # after the runner has torn every fixture down
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    import sys

    import emulator_fds
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if not emulator_fds.available():
        if sys.platform.startswith("linux"):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            _report(reporter, "cannot count emulator descriptors: /proc/self/fd is missing")
        return
    left = emulator_fds.descriptors()
    if len(left) > MAX_EMULATOR_FDS:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        dirs = sorted({os.path.dirname(t) for t in left})
        _report(reporter, f"{len(left)} descriptors into emulator directories are still open "
                f"at the end of the run (limit {MAX_EMULATOR_FDS}), in {len(dirs)} "
                f"directories, e.g. {left[:3]}: a stopped emulator leaked its SQLite files")
    elif reporter is not None and left:
        reporter.write_line(f"emulator descriptors open at the end of the run: {len(left)}")


def _report(reporter, text: str) -> None:
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_line(f"ERROR: {text}", red=True, bold=True)
    else:
        print(f"ERROR: {text}")

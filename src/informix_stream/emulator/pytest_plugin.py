"""Pytest fixtures for users' own tests, registered by the package (entry point pytest11).

Fixtures (user informix, password in4mix):

``informix_emulator`` (session)
    The running server: ``.host``, ``.port``; database ``testdb`` is shared
    by the whole session, as before.
``informix_emulator_db`` (function)
    A fresh database for this test alone (an ``EmulatorDatabase``: ``.name``,
    ``.host``, ``.port``, ``.url``, ``.connect()``), holding the session's
    schema and nothing a previous test wrote; dropped after the test.
``informix_emulator_url`` (function)
    The same fresh database as a connection string,
    ``informix://informix:in4mix@127.0.0.1:PORT/NAME``, for code that takes
    a URL (``informix_stream.connect(url)``).
``informix_emulator_schema`` (session)
    What is loaded, once per session, into the template each fresh database
    is cloned from: the ``--informix-schema PATH`` options and the
    ``informix_emulator_schema`` ini lines (paths relative to the ini file).
    Override it in a conftest.py to return your own list of SQL files or
    callables taking an open connection.

This module is loaded into every pytest run of a project that installs the
package, so it imports neither the emulator nor SQLite: the harness module
is imported when a test first asks for one of these fixtures.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .harness import EmulatorDatabase, Harness
    from .server import EmulatorServer

_INI = "informix_emulator_schema"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("informix_emulator", "Informix emulator fixtures (informix_stream)")
    group.addoption("--informix-schema", action="append", default=[], metavar="PATH",
                    dest="informix_schema",
                    help="SQL file loaded once per session into every fresh "
                         "informix_emulator_db (may be repeated)")
    parser.addini(_INI, type="linelist", default=[],
                  help="SQL files loaded once per session into every fresh "
                       "informix_emulator_db (paths relative to the ini file)")


@pytest.fixture(scope="session")
def informix_emulator_schema(pytestconfig: pytest.Config) -> list[Any]:
    """SQL files (or callables given a connection) for the template database."""
    base = pytestconfig.inipath.parent if pytestconfig.inipath else pytestconfig.rootpath
    from_ini = [os.path.join(base, line) for line in pytestconfig.getini(_INI)]
    return from_ini + list(pytestconfig.getoption("informix_schema"))


@pytest.fixture(scope="session")
def informix_emulator() -> Iterator[EmulatorServer]:
    """A server for the whole session, with the shared database ``testdb``."""
    from .server import EmulatorServer
    with EmulatorServer(databases=("testdb",)) as server:
        yield server


@pytest.fixture(scope="session")
def _informix_emulator_harness(informix_emulator: EmulatorServer,
                               informix_emulator_schema: list[Any]) -> Harness:
    from .harness import Harness, SchemaError
    harness = Harness(informix_emulator)
    try:
        harness.load_template(informix_emulator_schema)
    except (SchemaError, OSError) as exc:
        pytest.fail(f"informix_emulator_schema could not be loaded: {exc}", pytrace=False)
    return harness


@pytest.fixture
def informix_emulator_db(_informix_emulator_harness: Harness) -> Iterator[EmulatorDatabase]:
    """A database of this test's own, with the session's schema in it."""
    db = _informix_emulator_harness.fresh()
    yield db
    _informix_emulator_harness.discard(db)


@pytest.fixture
def informix_emulator_url(informix_emulator_db: EmulatorDatabase) -> str:
    """``informix://informix:in4mix@host:port/name`` of this test's fresh database."""
    return informix_emulator_db.url

"""Pytest fixture for users' own tests: ``informix_emulator`` yields a running server.

Installed as a pytest plugin by the package, so any project that depends on
informix_stream can write ``def test_x(informix_emulator): ...`` and connect
to ``informix_emulator.host``/``.port`` with user informix, password in4mix,
database testdb.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .server import EmulatorServer


@pytest.fixture(scope="session")
def informix_emulator() -> Iterator[EmulatorServer]:
    with EmulatorServer(databases=("testdb",)) as server:
        yield server

"""Fixtures shared by the fault-injection test modules: one tracked
emulator per module, a fault proxy in front of it per test, and a direct
connection that checks what reached the server without the proxy.

Import them into a test module by name (pytest finds fixtures in the
module's namespace)."""

from __future__ import annotations

import pytest

from faults.emu import TrackedEmulator, connect
from faults.proxy import FaultProxy


@pytest.fixture(scope="module")
def emu():
    mp = pytest.MonkeyPatch()
    try:
        with TrackedEmulator(mp) as e:
            yield e
    finally:
        mp.undo()


@pytest.fixture
def proxy(emu):
    with FaultProxy((emu.host, emu.port)) as p:
        yield p


@pytest.fixture
def direct(emu):
    """The checking connection: never through the proxy."""
    c = connect(emu, autocommit=True)
    yield c
    c.close()

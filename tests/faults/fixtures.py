"""Fixtures shared by test modules (tests/conftest.py loads this file as a
plugin; a module defining its own fixture of one of these names keeps its
own):

* ``server``: one plain emulator per module, serving the test database;
* ``hostile``: a scripted server that lies when told to (faults.hostile),
  one per test;
* for the fault-injection modules: ``emu``, one tracked emulator per
  module, ``proxy``, a fault proxy in front of it per test, and ``direct``,
  a connection that checks what reached the server without the proxy;
* ``intr``: a Ctrl-C the fault proxy can land on a byte (its SIGINT
  handler installed for the test);
* ``loop``: a fresh asyncio event loop per test, closed after it."""

from __future__ import annotations

import asyncio

import pytest

from faults.emu import DATABASE, TrackedEmulator, connect
from faults.hostile import HostileServer
from faults.proxy import FaultProxy, Interrupter
from informix_stream.emulator import EmulatorServer


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases=(DATABASE,)) as srv:
        yield srv


@pytest.fixture
def hostile():
    with HostileServer() as h:
        yield h


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


@pytest.fixture
def intr():
    with Interrupter() as i:
        yield i


@pytest.fixture
def loop():
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()

"""A process holding over 1,024 open files: select() refuses descriptors
numbered 1024 or more, so the driver's I/O and the emulator's sessions wait
on sockets with poll() (sockready.py).  Before, every statement failed with
"filedescriptor out of range in select()" once a suite or a server had that
many files open."""

from __future__ import annotations

import os
import resource

import pytest

from faults.emu import connect
from informix_stream.emulator import EmulatorServer

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def high_fds():
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1200:
        pytest.skip(f"the open-file limit here ({soft}) is below 1,200")
    fds = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    yield
    for fd in fds:
        os.close(fd)


def test_statements_and_a_pipelined_load_past_descriptor_1024(high_fds):
    with EmulatorServer(databases=("testdb",)) as srv, connect(srv) as conn:
        assert conn._io.sock.fileno() >= 1024
        cur = conn.cursor()
        cur.execute("CREATE TEMP TABLE fds (id INTEGER, note VARCHAR(40))")
        rows = [(i, f"row {i}") for i in range(5000)]
        cur.executemany("INSERT INTO fds VALUES (?, ?)", rows, insert_cursor=False)
        cur.execute("SELECT id, note FROM fds ORDER BY id")
        assert cur.fetchall() == rows

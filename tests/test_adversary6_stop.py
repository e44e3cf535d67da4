"""Adversary round 6: the emulator's bounded stop() (emulator/server.py)
under what test_emulator_stop.py does not put in front of it: clients
loading by pipelined executemany, by the insert cursor and by load_arrow
in autocommit mode, one loading inside a transaction, one half way
through its login, one that connected and never spoke, one holding a
WITH HOLD cursor mid-read.

A stop is never a commit: after it, the data directory opened again holds
for each autocommit load a prefix of its rows (every chunk whole or
absent) and nothing of the transaction's unless its commit() returned;
stop() returns in bounded time, no descriptor into the directory is left,
and nothing is printed to stderr as a traceback.
"""

from __future__ import annotations

import socket
import struct
import threading
import time

import pytest

import emulator_fds
import informix_stream as ifx
from informix_stream.emulator import EmulatorServer
from informix_stream.emulator.server import CUT_GRACE

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.skipif(not emulator_fds.available(),
                                 reason="needs /proc/self/fd to count descriptors")]

ROWS = 20_000
CHUNK = 512
_LOADS = {"ta": {}, "tb": {"insert_cursor": True}, "tc": {}, "td": {}}


def _connect(srv: EmulatorServer, **kw) -> ifx.Connection:
    kw.setdefault("read_timeout", 30)
    return ifx.connect(host=srv.host, port=srv.port, password="in4mix", database="testdb",
                       connect_timeout=10, **kw)


class Load(threading.Thread):
    """One table's load on its own connection; signals after its first
    chunk is acknowledged; keeps its outcome."""

    def __init__(self, srv: EmulatorServer, table: str) -> None:
        super().__init__(daemon=True)
        self.table = table
        self.autocommit = table != "tc"
        self.conn = _connect(srv, autocommit=self.autocommit)
        self.first_chunk = threading.Event()
        self.outcome: object = None

    def _progress(self, rows: int, sent: int, elapsed: float) -> None:
        self.first_chunk.set()
        time.sleep(0.02)          # a load of 40 chunks lasts past the stop
    def run(self) -> None:
        rows = [(i, f"r{i}") for i in range(ROWS)]
        cur = self.conn.cursor()
        try:
            if self.table == "td":
                import pyarrow as pa
                data = pa.table({"n": [r[0] for r in rows], "s": [r[1] for r in rows]})
                cur.load_arrow("td", data, chunk_size=CHUNK, progress=self._progress)
            else:
                cur.executemany(f"INSERT INTO {self.table} VALUES (?, ?)", rows,
                                chunk_size=CHUNK, progress=self._progress,
                                **_LOADS[self.table])
            if not self.autocommit:
                self.conn.commit()
            self.outcome = "ok"
        except ifx.Error as exc:
            self.outcome = exc
        finally:
            self.first_chunk.set()
            try:
                self.conn.close()
            except ifx.Error:
                pass


def _half_login(srv: EmulatorServer) -> socket.socket:
    """A client that sent the start of a login PDU and stalls."""
    sock = socket.create_connection((srv.host, srv.port), timeout=5)
    sock.sendall(struct.pack("!H", 400) + b"\x01\x3c\x00\x00")
    return sock


def _table_rows(srv: EmulatorServer, table: str) -> list[int]:
    with _connect(srv) as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT n FROM {table}")
        return sorted(r[0] for r in cur.fetchall())


def _start(data: str) -> tuple[EmulatorServer, list]:
    srv = EmulatorServer(databases=("testdb",), data_dir=data).start()
    with _connect(srv, autocommit=True) as conn:
        cur = conn.cursor()
        for table in [*_LOADS, "held"]:
            cur.execute(f"CREATE TABLE {table} (n INTEGER, s VARCHAR(20))")
        cur.executemany("INSERT INTO held VALUES (?, ?)", [(i, "h") for i in range(3000)])
    holder = _connect(srv, fetch_buffer_size=256)
    held = holder.cursor(hold=True)
    held.execute("SELECT n FROM held")
    assert held.fetchone() is not None
    silent = socket.create_connection((srv.host, srv.port), timeout=5)
    return srv, [holder, held, silent, _half_login(srv)]


@pytest.mark.parametrize("after_chunks", [1, 8])
def test_a_stop_under_every_kind_of_load_keeps_committed_prefixes(tmp_path, capfd,
                                                                  after_chunks):
    data = str(tmp_path / "data")
    srv, keep = _start(data)
    loads = [Load(srv, table) for table in _LOADS]
    for load in loads:
        load.start()
    for load in loads:
        assert load.first_chunk.wait(30)
    time.sleep(0.05 * after_chunks)
    started = time.monotonic()
    srv.stop(timeout=2.0)
    took = time.monotonic() - started
    assert took < 2.0 + CUT_GRACE + 3.0, took
    for load in loads:
        load.join(30)
        assert not load.is_alive()
    # the stop landed mid-load (else this test proves nothing)
    assert any(load.outcome != "ok" for load in loads), [load.outcome for load in loads]
    keep[0].close()
    for sock in keep[2:]:
        sock.close()
    assert emulator_fds.settled(data) == []
    again = EmulatorServer(databases=("testdb",), data_dir=data).start()
    try:
        for load in loads:
            present = _table_rows(again, load.table)
            assert present == list(range(len(present))), f"{load.table}: not a prefix"
            if load.outcome == "ok":
                assert len(present) == ROWS, load.table
            elif not load.autocommit:
                assert present == [], "a stop committed an open transaction"
            else:
                assert len(present) % CHUNK == 0, f"{load.table}: a chunk split"
        assert len(_table_rows(again, "held")) == 3000
    finally:
        again.stop()
    err = capfd.readouterr().err
    assert "Traceback" not in err, err


_COMMIT = b"\x00\x13\x00\x0c"            # SQ_CMMTWORK (19), SQ_EOT


def _rows_after_restart(data: str, table: str) -> list[int]:
    again = EmulatorServer(databases=("testdb",), data_dir=data).start()
    try:
        return _table_rows(again, table)
    finally:
        again.stop()


class _StopAtCommit:
    """An ``on_request`` hook stopping the server (from a thread of its own,
    as stop() joins session threads) when its ``nth`` COMMIT arrives; the
    request is then never run.  Give it the server once started."""

    def __init__(self, nth: int) -> None:
        self.nth, self.commits = nth, 0
        self.server: EmulatorServer | None = None
        self.thread: threading.Thread | None = None

    def __call__(self, raw: bytes) -> None:
        if raw != _COMMIT:
            return
        self.commits += 1
        if self.commits == self.nth:
            self.thread = threading.Thread(target=self.server.stop, kwargs={"timeout": 2.0},
                                           daemon=True)
            self.thread.start()
            assert self.server._stopping.wait(5)

    def started(self, data: str) -> EmulatorServer:
        """An emulator on the data directory ``data`` with this hook."""
        self.server = EmulatorServer(databases=("testdb",), data_dir=data,
                                     on_request=self).start()
        return self.server


@pytest.mark.parametrize("options", [{}, {"insert_cursor": True}, {"batch_errors": True}],
                         ids=["bind", "insert-cursor", "batch-errors"])
def test_a_commit_refused_by_a_stop_is_not_counted_in_rowcount(tmp_path, options):
    """The stop lands exactly on the third chunk's COMMIT: the server runs
    no request once stopping, so that chunk is rolled back, and rowcount
    must say two chunks landed, not three."""
    stopper = _StopAtCommit(3)
    data = str(tmp_path / "data")
    srv = stopper.started(data)
    with _connect(srv, autocommit=True) as conn:
        conn.cursor().execute("CREATE TABLE ta (n INTEGER, s VARCHAR(20))")
    conn = _connect(srv, autocommit=True)
    cur = conn.cursor()
    with pytest.raises(ifx.OperationalError) as caught:
        cur.executemany("INSERT INTO ta VALUES (?, ?)", [(i, "r") for i in range(ROWS)],
                        chunk_size=CHUNK, **options)
    stopper.thread.join(30)
    conn.close()
    present = _rows_after_restart(data, "ta")
    assert present == list(range(2 * CHUNK))          # the third chunk rolled back
    assert cur.rowcount == len(present)
    # the COMMIT got no answer: the driver cannot know, and says which rows
    assert caught.value.commit_in_doubt == (2 * CHUNK, 3 * CHUNK)
    assert f"rows {2 * CHUNK}..{3 * CHUNK - 1} of this call" in str(caught.value)


def test_an_asyncio_load_whose_commit_gets_no_answer_says_which_rows_are_in_doubt(tmp_path):
    """The asyncio layer runs the same plan: the third chunk's COMMIT is cut
    by the stop, rowcount keeps the two chunks known committed, and the
    error names the third chunk's rows as in doubt."""
    import asyncio
    stopper = _StopAtCommit(3)
    data = str(tmp_path / "data")
    srv = stopper.started(data)
    with _connect(srv, autocommit=True) as conn:
        conn.cursor().execute("CREATE TABLE tb (n INTEGER, s VARCHAR(20))")

    async def load():
        conn = await ifx.connect_async(host=srv.host, port=srv.port, password="in4mix",
                                       database="testdb", connect_timeout=10,
                                       read_timeout=30, autocommit=True)
        cur = conn.cursor()
        try:
            with pytest.raises(ifx.OperationalError) as caught:
                await cur.executemany("INSERT INTO tb VALUES (?, ?)",
                                      [(i, "r") for i in range(ROWS)], chunk_size=CHUNK)
            return cur.rowcount, caught.value
        finally:
            await conn.close()

    rowcount, error = asyncio.run(asyncio.wait_for(load(), 60))
    stopper.thread.join(30)
    present = _rows_after_restart(data, "tb")
    assert present == list(range(2 * CHUNK))
    assert rowcount == len(present)
    assert error.commit_in_doubt == (2 * CHUNK, 3 * CHUNK)

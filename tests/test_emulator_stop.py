"""A stopped emulator lets go of everything it opened, in bounded time.

Every SQLite connection closed (no descriptor into its directory stays in
this process), the in-memory directory removed, also when clients are
still connected, mid-transaction, mid-fetch, blocked in a lock wait or
running a long query; and what a stop leaves behind is exactly what was
committed (checked on a data directory the next server opens again).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import emulator_fds
import informix_stream as ifx
from informix_stream.emulator import EmulatorServer
from informix_stream.emulator.server import CUT_GRACE

pytestmark = pytest.mark.skipif(not emulator_fds.available(),
                                reason="needs /proc/self/fd to count descriptors")

SRC = str(Path(__file__).resolve().parent.parent / "src")
# stop()'s own bound plus room for a loaded machine.
SLACK = 3.0


def _connect(srv: EmulatorServer, **kw) -> ifx.Connection:
    kw.setdefault("read_timeout", 30)
    return ifx.connect(host=srv.host, port=srv.port, password="in4mix", database="testdb",
                       connect_timeout=10, **kw)


class Busy(threading.Thread):
    """Runs ``sql`` on its own connection; keeps the outcome."""

    def __init__(self, conn: ifx.Connection, *sql: str) -> None:
        super().__init__(daemon=True)
        self.conn, self.sql = conn, sql
        self.outcome: object = None
        self.ran = threading.Event()

    def run(self) -> None:
        cur = self.conn.cursor()
        try:
            for sql in self.sql[:-1]:
                cur.execute(sql)
            self.ran.set()
            cur.execute(self.sql[-1])
            self.outcome = "ok"
        except ifx.Error as exc:
            self.outcome = exc


def _busy_server(srv: EmulatorServer) -> list:
    """Clients in every state stop() must cope with; what keeps them alive."""
    setup = _connect(srv, autocommit=True)
    cur = setup.cursor()
    cur.execute("CREATE TABLE kept (n INTEGER UNIQUE)")
    cur.execute("CREATE TABLE big (n INTEGER)")
    cur.execute("CREATE TABLE locked (n INTEGER)")
    cur.executemany("INSERT INTO big VALUES (?)", [(i,) for i in range(2000)])
    cur.execute("INSERT INTO kept VALUES (1)")                   # committed
    with pytest.raises(ifx.IntegrityError):
        # a failed statement's SQLite cursor once kept its connection open
        # after close(), and with it the database's descriptors
        cur.execute("INSERT INTO kept VALUES (1)")
    idle = _connect(srv)
    in_tx = _connect(srv)                                        # holds the write lock
    in_tx.cursor().execute("INSERT INTO kept VALUES (2)")        # never committed
    mid_fetch = _connect(srv, autocommit=True, fetch_buffer_size=256)
    fetching = mid_fetch.cursor()
    fetching.execute("SELECT n FROM big")
    assert fetching.fetchone() is not None
    locker = _connect(srv)
    locker.cursor().execute("LOCK TABLE locked IN EXCLUSIVE MODE")
    waiters = [
        # SQLite's write lock, held by in_tx: a wait inside SQLite
        Busy(_connect(srv, autocommit=True), "SET LOCK MODE TO WAIT",
             "INSERT INTO kept VALUES (3)"),
        # another session's LOCK TABLE: the emulator's own wait
        Busy(_connect(srv, autocommit=True), "SET LOCK MODE TO WAIT",
             "SELECT COUNT(*) FROM locked"),
        # a query that would run for minutes
        Busy(_connect(srv, autocommit=True), "SET LOCK MODE TO NOT WAIT",
             "SELECT COUNT(*) FROM big a, big b, big c"),
    ]
    for w in waiters:
        w.start()
    for w in waiters:
        assert w.ran.wait(10)
    time.sleep(0.3)                     # each is now inside its statement
    assert all(w.is_alive() for w in waiters)
    return [setup, idle, in_tx, mid_fetch, fetching, locker, *waiters]


def _stop_in_bounded_time(srv: EmulatorServer, timeout: float) -> None:
    started = time.monotonic()
    srv.stop(timeout=timeout)
    took = time.monotonic() - started
    assert took < timeout + CUT_GRACE + SLACK, took


def _finish(keep: list) -> list[Busy]:
    waiters = [k for k in keep if isinstance(k, Busy)]
    for w in waiters:
        w.join(30)
        assert not w.is_alive()
    for k in keep:
        if isinstance(k, ifx.Connection):
            k.close()
    return waiters


def test_the_count_sees_a_running_emulator():
    """The descriptor count is not vacuous: it sees a live server's files."""
    srv = EmulatorServer(databases=("testdb",)).start()
    directory = srv.engine._tempdir
    try:
        assert directory and os.path.isdir(directory)
        with _connect(srv) as conn:
            conn.cursor().execute("SELECT COUNT(*) FROM systables")
            assert any(t.endswith("testdb.db") for t in emulator_fds.descriptors(directory))
            assert emulator_fds.descriptors(directory) == [
                t for t in emulator_fds.descriptors() if t.startswith(directory)]
    finally:
        srv.stop()
    assert emulator_fds.settled(directory) == []
    assert not os.path.exists(directory)


@pytest.mark.timeout(120)
def test_stopped_servers_with_busy_clients_leave_no_descriptor_or_directory():
    directories = []
    for _ in range(3):
        srv = EmulatorServer(databases=("testdb",)).start()
        directories.append(srv.engine._tempdir)
        keep = _busy_server(srv)
        assert emulator_fds.descriptors(directories[-1])
        _stop_in_bounded_time(srv, timeout=2.0)
        for w in _finish(keep):
            assert w.outcome is not None
        assert emulator_fds.settled(directories[-1]) == []
        assert not os.path.exists(directories[-1])


@pytest.mark.timeout(120)
def test_a_stop_keeps_exactly_the_committed_rows(tmp_path):
    data = str(tmp_path / "data")
    srv = EmulatorServer(databases=("testdb",), data_dir=data).start()
    keep = _busy_server(srv)
    _stop_in_bounded_time(srv, timeout=2.0)
    waiters = _finish(keep)
    assert emulator_fds.settled(data) == []
    again = EmulatorServer(databases=("testdb",), data_dir=data).start()
    try:
        with _connect(again) as conn:
            cur = conn.cursor()
            cur.execute("SELECT n FROM kept ORDER BY n")
            rows = [r[0] for r in cur.fetchall()]
    finally:
        again.stop()
    assert 1 in rows and 2 not in rows
    # the waiter went on once in_tx rolled back: present if it was told so
    if waiters[0].outcome == "ok":
        assert 3 in rows
    assert rows.count(3) <= 1
    assert emulator_fds.settled(data) == []


@pytest.mark.timeout(60)
def test_a_session_busy_past_the_cut_closes_the_databases_when_it_ends(tmp_path):
    """A server thread held in a callback outlives stop(): the databases are
    not closed under it, and it closes them when it ends, without running
    the request it was holding."""
    hold, held, release = threading.Event(), threading.Event(), threading.Event()

    def on_request(raw: bytes) -> None:
        if hold.is_set():
            held.set()
            release.wait(20)

    data = str(tmp_path / "data")
    srv = EmulatorServer(databases=("testdb",), data_dir=data, on_request=on_request).start()
    conn = _connect(srv, autocommit=True, read_timeout=20)
    conn.cursor().execute("CREATE TABLE t (n INTEGER)")
    hold.set()
    writer = Busy(conn, "INSERT INTO t VALUES (1)")
    writer.start()
    assert held.wait(10)
    _stop_in_bounded_time(srv, timeout=0.5)
    writer.join(30)
    assert isinstance(writer.outcome, ifx.OperationalError)     # its socket was cut
    assert srv._workers and emulator_fds.descriptors(data)     # not closed under it
    release.set()
    assert emulator_fds.settled(data) == []
    assert not srv._workers
    conn.close()
    again = EmulatorServer(databases=("testdb",), data_dir=data).start()
    try:
        with _connect(again) as check:
            cur = check.cursor()
            cur.execute("SELECT COUNT(*) FROM t")
            assert cur.fetchone()[0] == 0          # the held request never ran
    finally:
        again.stop()


@pytest.mark.timeout(60)
def test_an_in_memory_server_removes_its_directory_even_with_a_session_busy():
    hold, held, release = threading.Event(), threading.Event(), threading.Event()

    def on_request(raw: bytes) -> None:
        if hold.is_set():
            held.set()
            release.wait(20)

    srv = EmulatorServer(databases=("testdb",), on_request=on_request).start()
    directory = srv.engine._tempdir
    client = Busy(_connect(srv, read_timeout=20), "SELECT COUNT(*) FROM systables")
    hold.set()
    client.start()
    try:
        assert held.wait(10)
        _stop_in_bounded_time(srv, timeout=0.5)
        assert srv._workers and emulator_fds.descriptors(directory)
        assert not os.path.exists(directory)      # unreachable already
    finally:
        release.set()
    assert emulator_fds.settled(directory) == []
    client.join(30)
    client.conn.close()


@pytest.mark.timeout(60)
def test_the_emulator_process_removes_its_directory_on_sigterm():
    proc = subprocess.Popen([sys.executable, "-m", "informix_stream.emulator", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": SRC})
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on "), line
        port = int(line.rsplit(":", 1)[1])
        conn = ifx.connect(host="127.0.0.1", port=port, password="in4mix",
                           database="testdb", connect_timeout=10, read_timeout=30)
        conn.cursor().execute("CREATE TABLE t (n INTEGER)")       # left in a transaction
        targets = [os.readlink(f"/proc/{proc.pid}/fd/{fd}")
                   for fd in os.listdir(f"/proc/{proc.pid}/fd")]
        directories = {os.path.dirname(t) for t in targets if emulator_fds.MARK in t}
        assert len(directories) == 1, targets
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert "Traceback" not in proc.stderr.read()
        conn.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert not os.path.exists(directories.pop())

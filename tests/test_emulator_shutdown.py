"""The emulator keeps exactly the committed rows through SIGTERM, Ctrl-C,
stop() and SIGKILL under load (issue 9 item 8), and the soak test: clients
inserting numbered batches while the server is stopped and killed at random.

Every batch is 10 rows in one transaction.  A batch whose commit returned is
*acknowledged* and must be present exactly once, whole; a batch whose commit
raised may be present or absent, but whole; a batch never committed (the
client was mid-transaction when the server went) must be absent.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import informix_stream as ifx

SRC = str(Path(__file__).resolve().parents[1] / "src")
BATCH = 10


class Server:
    """``python -m informix_stream.emulator`` on a data directory."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.proc: subprocess.Popen | None = None
        self.port = 0

    def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": SRC}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "informix_stream.emulator", "--port", "0", "--data-dir",
             str(self.data_dir), "--database", "testdb"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()
        assert line.startswith("listening on "), (line, self.proc.stderr.read())
        self.port = int(line.rsplit(":", 1)[1])

    def connect(self, **kw) -> ifx.Connection:
        return ifx.connect(host="127.0.0.1", port=self.port, password="in4mix",
                           database="testdb", connect_timeout=5, read_timeout=20, **kw)

    def end(self, how: str) -> tuple[int, float, str]:
        """Stop the process by ``how``; (exit code, seconds it took, stderr)."""
        sig = {"SIGTERM": signal.SIGTERM, "SIGINT": signal.SIGINT,
               "SIGKILL": signal.SIGKILL}[how]
        started = time.monotonic()
        self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return -999, time.monotonic() - started, "hung"
        return code, time.monotonic() - started, self.proc.stderr.read()


class Client(threading.Thread):
    """Inserts numbered batches, each committed; records what was acknowledged."""

    def __init__(self, server: Server, number: int, table: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.server, self.number, self.table, self.stop = server, number, table, stop
        self.acked: set[int] = set()
        self.unsure: set[int] = set()      # the commit raised: present or absent, whole
        self.never: set[int] = set()       # rows sent, no commit sent: must be absent
        self.seq = number * 1_000_000

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                conn = self.server.connect()
            except ifx.Error:
                time.sleep(0.05)
                continue
            try:
                self._batches(conn)
            except ifx.Error:
                pass
            finally:
                conn.close()

    def _batches(self, conn: ifx.Connection) -> None:
        cur = conn.cursor()
        while not self.stop.is_set():
            self.seq += 1
            batch = self.seq
            self.never.add(batch)
            cur.executemany(f"INSERT INTO {self.table} VALUES (?, ?)",
                            [(batch, i) for i in range(BATCH)])
            if random.random() < 0.2:
                time.sleep(0.02)           # sometimes caught mid-transaction
            self.never.discard(batch)
            self.unsure.add(batch)
            conn.commit()
            self.unsure.discard(batch)
            self.acked.add(batch)


def check(server: Server, table: str, clients: list[Client]) -> dict[str, int]:
    with server.connect() as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT batch, COUNT(*) FROM {table} GROUP BY batch")
        present = dict(cur.fetchall())
    acked = set().union(*(c.acked for c in clients))
    unsure = set().union(*(c.unsure for c in clients))
    never = set().union(*(c.never for c in clients))
    missing = acked - present.keys()
    assert not missing, f"{len(missing)} acknowledged batches lost, e.g. {sorted(missing)[:5]}"
    partial = {b: n for b, n in present.items() if n != BATCH}
    assert not partial, f"batches not whole: {dict(list(partial.items())[:5])}"
    leaked = never & present.keys()
    assert not leaked, f"{len(leaked)} uncommitted batches are durable, e.g. {sorted(leaked)[:5]}"
    strangers = present.keys() - acked - unsure
    assert not strangers, f"batches nobody committed: {sorted(strangers)[:5]}"
    return {"acknowledged": len(acked), "present": len(present),
            "rows_checked": sum(present.values()), "unsure": len(unsure)}


def soak(tmp_path: Path, clients: int, rounds: list[str], run_for: float) -> dict:
    server = Server(tmp_path / "data")
    server.start()
    table = "soak"
    with server.connect() as conn:
        conn.cursor().execute(f"CREATE TABLE {table} (batch INTEGER, item INTEGER)")
    stop = threading.Event()
    workers = [Client(server, n + 1, table, stop) for n in range(clients)]
    for w in workers:
        w.start()
    figures = {"clients": clients, "kills": 0, "stops": 0}
    try:
        for how in rounds:
            time.sleep(run_for)
            code, took, err = server.end(how)
            if how == "SIGKILL":
                figures["kills"] += 1
            else:
                figures["stops"] += 1
                assert code == 0, (how, code, err[-2000:])
                assert took < 10, (how, took)
                assert "Segmentation" not in err and "Traceback" not in err, err[-2000:]
            server.start()
    finally:
        stop.set()
        for w in workers:
            w.join(30)
    figures.update(check(server, table, workers))
    code, _, err = server.end("SIGTERM")
    assert code == 0, err[-2000:]
    return figures


@pytest.mark.timeout(180)
@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "SIGKILL"])
def test_stop_under_load_keeps_exactly_the_committed_rows(tmp_path, how):
    figures = soak(tmp_path, 16, [how], run_for=1.5)
    assert figures["acknowledged"] > 16, figures


@pytest.mark.timeout(120)
def test_stop_in_process_under_load(tmp_path):
    from informix_stream.emulator import EmulatorServer
    srv = EmulatorServer(databases=("testdb",), data_dir=str(tmp_path / "d")).start()
    server = Server(tmp_path)
    server.port = srv.port
    with server.connect() as conn:
        conn.cursor().execute("CREATE TABLE soak (batch INTEGER, item INTEGER)")
    stop = threading.Event()
    workers = [Client(server, n + 1, "soak", stop) for n in range(16)]
    for w in workers:
        w.start()
    time.sleep(1.5)
    started = time.monotonic()
    srv.stop()
    assert time.monotonic() - started < 8
    stop.set()
    for w in workers:
        w.join(30)
    again = EmulatorServer(databases=("testdb",), data_dir=str(tmp_path / "d")).start()
    server.port = again.port
    try:
        check(server, "soak", workers)
    finally:
        again.stop()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_soak_32_clients_random_stops_and_kills(tmp_path):
    rng = random.Random(20261123)
    rounds = [rng.choice(["SIGTERM", "SIGKILL", "SIGINT"]) for _ in range(10)]
    figures = soak(tmp_path, 32, rounds, run_for=3.0)
    print("soak figures:", figures)
    assert figures["kills"] + figures["stops"] == 10

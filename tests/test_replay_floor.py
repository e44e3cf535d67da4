"""The benchmark's replay server (bench/throughput/replay.py) answers only the
conversation it recorded: the same client gets the same rows, a client that
asks for anything else is cut off instead of timed against wrong answers."""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path

import pytest

import informix_stream
from informix_stream.emulator import EmulatorServer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "throughput"))
import replay  # noqa: E402


def _rows(host: str, port: int, sql: str) -> list:
    with informix_stream.connect(host=host, port=port, user="informix", password="in4mix",
                                 database="testdb", read_timeout=10) as conn:
        cur = conn.cursor(fetch_buffer_size=512)
        cur.execute(sql)
        return cur.fetchall()


@pytest.fixture(scope="module")
def recorded():
    with EmulatorServer(databases=("testdb",)) as srv:
        with informix_stream.connect(host=srv.host, port=srv.port, user="informix",
                                     password="in4mix", database="testdb") as conn:
            cur = conn.cursor()
            cur.execute("CREATE TABLE replayed (id INTEGER, name VARCHAR(20))")
            cur.executemany("INSERT INTO replayed VALUES (?, ?)",
                            [(i, f"n{i}") for i in range(300)])
        got: list = []
        recording = replay.record(
            lambda h, p: got.extend(_rows(h, p, "SELECT * FROM replayed ORDER BY id")),
            srv.host, srv.port)
    assert got == [(i, f"n{i}") for i in range(300)]
    return recording


@pytest.fixture
def server(recorded):
    listener = socket.create_server(("127.0.0.1", 0))
    outcome: list = []

    def serve() -> None:
        conn, _ = listener.accept()
        try:
            replay.serve_one(conn, recorded)
            outcome.append("ok")
        except replay.Mismatch as exc:
            outcome.append(exc)
        finally:
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[:2], outcome, thread
    thread.join(10)
    listener.close()
    assert not thread.is_alive()


def test_recording_has_a_reply_per_request(recorded):
    assert len(recorded) > 4            # login, protocols..., prepare, open, fetches, exit
    assert all(req and reply for req, reply in recorded)


def test_replay_gives_the_recorded_rows(server):
    (host, port), outcome, thread = server
    assert _rows(host, port, "SELECT * FROM replayed ORDER BY id") == [
        (i, f"n{i}") for i in range(300)]
    thread.join(10)
    assert outcome == ["ok"]


def test_another_query_is_refused_not_answered(server):
    (host, port), outcome, thread = server
    with pytest.raises(informix_stream.OperationalError):
        _rows(host, port, "SELECT * FROM replayed ORDER BY id DESC")
    thread.join(10)
    assert len(outcome) == 1 and isinstance(outcome[0], replay.Mismatch)

"""Issue 9 item 2: ``threadsafety = 2`` is honest.

Many threads share one connection, each with its own cursor: streams with
a tiny fetch buffer (so read-ahead NFETCHes of different cursors interleave
on the wire), executemany pipelines, and single statements run at the same
time.  Every thread must get exactly its own rows, every repetition.
"""

from __future__ import annotations

import threading
import uuid

import pytest

import informix_stream as ifx
from faults.emu import connect, rows

THREADS = 8
REPEATS = 50


def test_module_says_connections_may_be_shared():
    assert ifx.threadsafety == 2


def run_threads(targets) -> list[BaseException]:
    """Start all targets together; return what they raised."""
    errors: list[BaseException] = []
    start = threading.Barrier(len(targets))

    def wrap(fn):
        def body():
            try:
                start.wait(10)
                fn()
            except BaseException as exc:  # noqa: BLE001 - reported by the test
                errors.append(exc)
        return body

    threads = [threading.Thread(target=wrap(fn), daemon=True) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
        assert not t.is_alive(), "a thread sharing the connection hung"
    return errors


MIXED = ("emulator (issue 11, not the driver): with streams open on the same session, "
         "an autocommit executemany returns rowcount 40 yet a COUNT(*) right after, on "
         "the same connection, sees none of its rows -- outside a transaction every "
         "SELECT of a session reads on one SQLite reader connection, whose snapshot is "
         "pinned by the open stream (engine.Session._reading_connection); see "
         "test_silent_loss.py::test_session_sees_its_own_commit_while_a_stream_is_open")


@pytest.mark.timeout(280)
@pytest.mark.parametrize("loaders", [False, True], ids=["streams-only", "streams-and-executemany"])
def test_threads_streaming_and_loading_on_one_connection_get_their_own_rows(emu, loaders):
    direct = connect(emu, autocommit=True)
    tag = uuid.uuid4().hex[:6]
    tables = [f"th{tag}_{k}" for k in range(THREADS)]
    loads = [f"ld{tag}_{k}" for k in range(THREADS)]
    cur = direct.cursor()
    for t in loads:
        cur.execute(f"CREATE TABLE {t} (id INTEGER, owner INTEGER, name VARCHAR(24))")
    for k, t in enumerate(tables):
        cur.execute(f"CREATE TABLE {t} (id INTEGER, owner INTEGER, name VARCHAR(24))")
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?)",
                        [(i, k, f"t{k}-row{i}") for i in range(120 + 10 * k)])
    shared = connect(emu, autocommit=True)

    def streamer(k: int, rep: int):
        want = [(i, k, f"t{k}-row{i}") for i in range(120 + 10 * k)]

        def body():
            c = shared.cursor(fetch_buffer_size=48 + 8 * k)
            c.execute(f"SELECT id, owner, name FROM {tables[k]} WHERE id >= ? ORDER BY id",
                      (0,))
            got = [row for row in c]
            assert got == want, f"thread {k} rep {rep}: {len(got)} rows, first wrong " \
                f"{next((g for g, w in zip(got, want) if g != w), None)}"
            c.close()
        return body

    def loader(k: int, rep: int):
        def body():
            c = shared.cursor()
            batch = [(10_000 + rep * 100 + i, k, f"load{k}-{rep}-{i}") for i in range(40)]
            c.executemany(f"INSERT INTO {loads[k]} VALUES (?, ?, ?)", batch, chunk_size=7)
            assert c.rowcount == 40
            c.execute(f"SELECT COUNT(*), MIN(owner), MAX(owner) FROM {loads[k]} "
                      "WHERE id >= ? AND id < ?", (10_000 + rep * 100, 10_000 + rep * 100 + 100))
            assert c.fetchall() == [(40, k, k)], f"loader {k} rep {rep}"
            c.execute(f"DELETE FROM {loads[k]} WHERE id >= ?", (10_000,))
            assert c.rowcount == 40
        return body

    for rep in range(REPEATS):
        targets = [streamer(k, rep) for k in range(THREADS)]
        if loaders:
            targets += [loader(k, rep) for k in range(0, THREADS, 3)]
        errors = run_threads(targets)
        assert not errors, f"repetition {rep}: {errors[0]!r}"
    assert not shared.closed
    for k, t in enumerate(tables):
        assert rows(direct, f"SELECT COUNT(*), MIN(owner), MAX(owner) FROM {t}") == \
            [(120 + 10 * k, k, k)]
        assert rows(direct, f"SELECT COUNT(*) FROM {loads[k]}") == [(0,)]
    shared.close()
    direct.close()


@pytest.mark.timeout(120)
def test_threads_alternating_fetchone_on_their_cursors(emu):
    """The finest interleaving: one row per call, 16 cursors, 16 threads."""
    direct = connect(emu, autocommit=True)
    t = f"alt_{uuid.uuid4().hex[:8]}"
    cur = direct.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER)")
    cur.executemany(f"INSERT INTO {t} VALUES (?)", [(i,) for i in range(400)])
    shared = connect(emu, autocommit=True)

    def one(k: int):
        def body():
            c = shared.cursor(fetch_buffer_size=16)
            c.execute(f"SELECT id FROM {t} WHERE MOD(id, 16) = ? ORDER BY id", (k,))
            got = []
            while (row := c.fetchone()) is not None:
                got.append(row[0])
            assert got == list(range(k, 400, 16)), k
        return body

    for _ in range(10):
        assert not run_threads([one(k) for k in range(16)])
    shared.close()
    direct.close()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("delay", [0.0, 0.002, 0.02])
def test_close_from_another_thread_while_streaming(emu, delay):
    """The streaming thread ends with InterfaceError/OperationalError after a
    correct prefix of its rows -- never wrong rows, never a hang."""
    import time
    direct = connect(emu, autocommit=True)
    t = f"cl_{uuid.uuid4().hex[:8]}"
    direct.cursor().execute(f"CREATE TABLE {t} (id INTEGER)")
    direct.cursor().executemany(f"INSERT INTO {t} VALUES (?)", [(i,) for i in range(20000)])
    for _ in range(5):
        shared = connect(emu, autocommit=True, read_timeout=10)
        got: list[int] = []
        outcome: list = []

        def stream():
            try:
                c = shared.cursor(fetch_buffer_size=64)
                c.execute(f"SELECT id FROM {t} ORDER BY id")
                for (i,) in c:
                    got.append(i)
                outcome.append("done")
            except (ifx.InterfaceError, ifx.OperationalError) as exc:
                outcome.append(exc)

        th = threading.Thread(target=stream, daemon=True)
        th.start()
        time.sleep(delay)
        shared.close()
        th.join(15)
        assert not th.is_alive(), "the streaming thread hung after close()"
        assert outcome, "the streaming thread raised something other than a PEP 249 error"
        assert got == list(range(len(got)))
        assert outcome[0] == "done" and len(got) == 20000 or outcome[0] != "done"
    direct.close()

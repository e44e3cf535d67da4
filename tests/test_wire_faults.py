"""Issue 9: the wire breaking at every byte of a recorded exchange.

The fault proxy drops both sockets (RST), truncates (FIN), stalls past the
read timeout, or slips foreign bytes into the reply, at a sample of the
byte offsets of an INSERT + COMMIT and of a streaming SELECT.  Every call
either succeeds with the right result or raises OperationalError /
InterfaceError within bounded time, with ``conn.closed`` True; a row whose
transaction was cut before COMMIT was sent is never there afterwards, and
nothing but PEP 249 exceptions reaches the caller.
"""

from __future__ import annotations

import itertools
import time
import uuid

import pytest

import informix_stream as ifx
from faults.emu import connect, rows
from faults.proxy import (C2S, DROP, INJECT, S2C, STALL, TRUNCATE, Fault,
                          sweep)

SAMPLE = 16
STALL_SAMPLE = 4           # each stalled offset costs a read timeout
SIGNALLED = (ifx.OperationalError, ifx.InterfaceError)
_values = itertools.count(1)
pytestmark = pytest.mark.timeout(240)


def fault_for(action: str, direction: str, offset: int) -> Fault:
    if action == STALL:
        return Fault(direction, offset, STALL, seconds=1.2)
    if action == INJECT:
        return Fault(direction, offset, INJECT, data=b"\x00\x0f" + b"\x00" * 14 + b"\x00\x0c")
    return Fault(direction, offset, action)


def measure(proxy, op) -> tuple[int, int]:
    before = proxy.counts()
    op()
    time.sleep(0.15)
    after = proxy.counts()
    return after[0] - before[0], after[1] - before[1]


@pytest.mark.parametrize("action", [DROP, TRUNCATE, STALL])
def test_insert_and_commit_cut_at_any_byte(emu, proxy, direct, action):
    t = f"wf_{uuid.uuid4().hex[:8]}"
    direct.cursor().execute(f"CREATE TABLE {t} (id INTEGER)")
    stage: list[str] = []

    def op(conn, v):
        def run():
            stage.clear()
            stage.append("insert")
            conn.cursor().execute(f"INSERT INTO {t} VALUES (?)", (v,))
            stage.append("commit")
            conn.commit()
            stage.append("done")
        return run

    probe = connect(proxy, autocommit=False)
    c2s, s2c = measure(proxy, op(probe, 0))
    probe.close()
    for direction, length in ((C2S, c2s), (S2C, s2c)):
        for offset in sweep(length, STALL_SAMPLE if action == STALL else SAMPLE):
            v = next(_values)
            conn = connect(proxy, autocommit=False, read_timeout=0.5)
            proxy.arm(fault_for(action, direction, offset))
            start = time.monotonic()
            try:
                op(conn, v)()
                failed = False
            except SIGNALLED:
                failed = True
            finally:
                proxy.disarm()
            assert time.monotonic() - start < 5, (direction, offset)
            landed = rows(direct, f"SELECT COUNT(*) FROM {t} WHERE id = ?", (v,))[0][0]
            if not failed:
                assert landed == 1 and stage[-1] == "done"
            else:
                assert conn.closed, (direction, offset)
                with pytest.raises(SIGNALLED):
                    conn.cursor().execute(f"INSERT INTO {t} VALUES (?)", (-v,))
                if stage[-1] == "insert":               # COMMIT never sent
                    assert landed == 0, (direction, offset)
                else:
                    assert landed in (0, 1)             # in doubt, and the caller was told
            conn.close()
            time.sleep(0.05 if action != STALL else 0)
    assert rows(direct, f"SELECT COUNT(*) FROM {t} WHERE id < 0") == [(0,)]


@pytest.mark.parametrize("action", [DROP, TRUNCATE, STALL, INJECT])
def test_stream_cut_at_any_byte_never_gives_wrong_rows(emu, proxy, direct, action):
    t = f"ws_{uuid.uuid4().hex[:8]}"
    cur = direct.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER, name VARCHAR(12))")
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(i, f"v{i}") for i in range(200)])
    want = [(i, f"v{i}") for i in range(200)]

    def op(conn, got):
        def run():
            c = conn.cursor(fetch_buffer_size=256)
            c.execute(f"SELECT id, name FROM {t} ORDER BY id")
            for row in c:
                got.append(row)
        return run

    probe = connect(proxy, autocommit=True)
    _, s2c = measure(proxy, op(probe, []))
    probe.close()
    for offset in sweep(s2c, STALL_SAMPLE if action == STALL else SAMPLE):
        conn = connect(proxy, autocommit=True, read_timeout=0.5)
        got: list = []
        proxy.arm(fault_for(action, S2C, offset))
        start = time.monotonic()
        try:
            op(conn, got)()
            failed = False
        except SIGNALLED:
            failed = True
        except ifx.Error:
            # Injected whole messages may pass for a reply of another shape
            # (test_hostile_replies pins down what that must raise).
            assert action == INJECT
            failed = None
        finally:
            proxy.disarm()
        assert time.monotonic() - start < 6, offset
        if action != INJECT:
            # (Foreign bytes that form whole messages -- the injected SQ_DONE --
            # cannot be told from the server's own without TLS: for them only
            # bounded time and PEP 249 errors are asserted.)
            assert got == want[:len(got)], offset
            assert failed or got == want, offset
        if failed:
            assert conn.closed, offset
        conn.close()

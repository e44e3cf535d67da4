"""Ctrl-C in the middle of an exchange: the connection is marked broken and
says so; it never hands the interrupted statement's reply to the next one.
(The byte-by-byte fault suite lives in tests/faults; this is the plain case.)"""

from __future__ import annotations

import signal
import threading
import time

import pytest

import informix_stream as ifx
from test_driver import connect, private, unique  # noqa: F401 - private is a fixture


def ctrl_c_soon(delay: float) -> threading.Timer:
    """A real SIGINT to the main thread: a blocked recv() is interrupted."""
    timer = threading.Timer(delay, signal.pthread_kill,
                            args=(threading.main_thread().ident, signal.SIGINT))
    timer.start()
    return timer


def test_ctrl_c_while_waiting_for_a_reply_breaks_the_connection(private):
    c = connect(private, autocommit=True)
    a, b = unique("ka"), unique("kb")
    cur = c.cursor()
    cur.execute(f"CREATE TABLE {a} (id INTEGER)")
    cur.execute(f"CREATE TABLE {b} (id INTEGER)")
    private.rec.hold()                           # the server stops answering
    timer = ctrl_c_soon(0.3)
    try:
        with pytest.raises(KeyboardInterrupt):
            cur.execute(f"INSERT INTO {a} VALUES (1)")
    finally:
        timer.cancel()
        private.rec.release()
    assert c.closed
    with pytest.raises(ifx.OperationalError, match="interrupted"):
        cur.execute(f"INSERT INTO {b} VALUES (2)")
    with pytest.raises(ifx.OperationalError, match="interrupted"):
        c.cursor()
    c.close()
    time.sleep(0.2)
    fresh = connect(private, autocommit=True)
    fc = fresh.cursor()
    fc.execute(f"SELECT COUNT(*) FROM {b}")
    assert fc.fetchone() == (0,)                 # nothing ran as the next statement
    fresh.close()


def test_ctrl_c_in_the_loop_body_keeps_the_connection(private):
    c = connect(private, autocommit=True, fetch_buffer_size=128)
    t = unique("kl")
    cur = c.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER)")
    cur.executemany(f"INSERT INTO {t} VALUES (?)", [(i,) for i in range(500)])
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    with pytest.raises(KeyboardInterrupt):
        for (i,) in cur:
            if i == 100:
                raise KeyboardInterrupt
    assert not c.closed
    other = c.cursor()
    other.execute(f"SELECT COUNT(*) FROM {t} WHERE id < ?", (7,))
    assert other.fetchone() == (7,)
    assert cur.fetchone() == (101,)              # the stream itself goes on
    c.close()


def test_ctrl_c_while_waiting_for_a_read_ahead_reply_never_loses_rows(private):
    """The wait was for a fetch an earlier call sent ahead: cutting it must
    break the connection, not leave a stream that quietly skips a batch."""
    c = connect(private, autocommit=True, fetch_buffer_size=64)
    t = unique("kr")
    cur = c.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER)")
    cur.executemany(f"INSERT INTO {t} VALUES (?)", [(i,) for i in range(400)])
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    got = [cur.fetchone() for _ in range(40)]        # read-ahead is now in flight
    private.rec.settle()
    private.rec.hold()
    timer = ctrl_c_soon(0.3)
    try:
        with pytest.raises(KeyboardInterrupt):
            while True:
                got.append(cur.fetchone())
    finally:
        timer.cancel()
        private.rec.release()
    assert got == [(i,) for i in range(len(got))]
    assert c.closed
    with pytest.raises(ifx.OperationalError, match="interrupted"):
        cur.fetchone()
    c.close()

"""Adversary: a fetch reply whose SQ_DONE comes before its rows.

A fetch's reply is ``TUPLE* [DONE COST] EOT`` (docs/protocol.md §6;
informix-driver's ``_read_fetch_response`` reads the same order), and a
reply with SQ_DONE ends the result.  Found here: a reply that put an
SQ_DONE -- alone, or after a stray SQ_DESCRIBE of another statement --
in front of its rows was taken whole: its rows were given as the last
ones and the rest of the result silently dropped (44 of 300 rows, no
error, the connection kept), on the tuple and the Arrow paths alike.
Rows after SQ_DONE are now a protocol error that closes the connection.
"""

from __future__ import annotations

import time

import pytest

from faults.hostile import done, is_later_fetch
from informix_stream.messages import Command
from test_hostile_replies import (SIGNALLED, arrow_ready, arrow_select, drv, fails_fast,  # noqa: F401
                                  hostile, select)

pytestmark = pytest.mark.timeout(60)


def _describe_of_another_statement(h, conn) -> bytes:
    """The DESCRIBE + DONE + COST of a 4-column SELECT, as the server sent it."""
    captured: list[bytes] = []

    def keep(messages, reply):
        if any(isinstance(m, Command) for m in messages) and not captured:
            captured.append(reply)
    h.tamper = keep
    cur = conn.cursor()
    cur.execute("SELECT id, id, id, id FROM a WHERE id < 0")
    cur.fetchall()
    return captured[0][:-2]                  # without its EOT


def _front(piece: bytes):
    state: list = []

    def tamper(messages, reply):
        if state or not is_later_fetch(messages):
            return None
        state.append(1)
        return [piece + reply]
    return tamper


@pytest.mark.parametrize("what", ["done", "describe-and-done"])
@pytest.mark.parametrize("path", ["tuples", "arrow"])
def test_rows_after_done_are_refused(hostile, what, path):
    conn = arrow_ready(hostile, "variable")
    piece = done(0) if what == "done" else _describe_of_another_statement(hostile, conn)
    hostile.tamper = _front(piece)
    read = arrow_select(conn) if path == "arrow" else _tuples(conn)
    fails_fast(hostile, conn, read)


def _tuples(conn):
    def op():
        cur = conn.cursor(fetch_buffer_size=256)
        cur.execute("SELECT * FROM a ORDER BY id")
        try:
            return cur.fetchall()
        except SIGNALLED:
            time.sleep(0.3)      # the read-ahead NFETCH that left before the failure
            raise
    return op


def test_a_real_result_still_reads_whole(hostile):
    conn = arrow_ready(hostile, "variable")
    assert len(select(conn, "SELECT * FROM a ORDER BY id")()) == 300

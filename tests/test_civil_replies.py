"""A server that sends an impossible DATETIME or DATE mid-reply (issue 9,
"nothing silently wrong", against issue 13's column path for them).

The block decoder builds DATETIME values from their pickle states, which
their constructors do not check (codec/civilblock.py), so a cell such as
February 30th or hour 24 must still reach the caller of a streaming cursor
as the DataError the reference converter words for it, the rows of earlier
replies delivered, its reply's rows withheld as for any reply with a bad
row, and the connection alive; never as a value.  A scripted server
(faults.hostile) answers a later fetch with such a reply.
"""

from __future__ import annotations

import datetime as dt
import struct

import pytest

import informix_stream as ifx
from faults.emu import DATABASE, PASSWORD, SERVER, USER
from faults.hostile import HostileServer, done, eot, is_later_fetch, tuple_msg
from informix_stream.codec.rowdecode_ref import reference_decoder
from informix_stream.codec.scalars import EPOCH_ORDINAL
from informix_stream.codecs import make_row_encoder, parse_type

pytestmark = pytest.mark.timeout(60)
_TYPES = [parse_type("integer"), parse_type("datetime year to second"), parse_type("date")]
_FIRST = dt.datetime(2020, 1, 1, 8)


def _row(i: int) -> tuple:
    return i, _FIRST + dt.timedelta(hours=5 * i), dt.date(1999, 1, 1) + dt.timedelta(days=i)


def _image(row: tuple) -> bytes:
    return make_row_encoder(_TYPES)(row)


def _bent(image: bytes, at: int, value: bytes) -> bytes:
    return image[:at] + value + image[at + len(value):]


# (offset in the row image, bytes): DATETIME at 4..11 (head, century, year,
# month, day, hour, minute, second), DATE at 12..15
_BENT = {
    "february-30": (7, bytes((2, 30))),
    "hour-24": (9, bytes((24,))),
    "second-60": (11, bytes((60,))),
    "year-0": (5, bytes((0, 0))),
    "pair-over-99": (6, bytes((100,))),
    "feb-29-1900": (5, bytes((19, 0, 2, 29))),
    "date-ordinal-0": (12, struct.pack("!i", -EPOCH_ORDINAL)),
    "date-past-9999": (12, struct.pack("!i", 3652060 - EPOCH_ORDINAL)),
}


@pytest.fixture
def server():
    with HostileServer() as h:
        yield h


def _connect(h: HostileServer) -> ifx.Connection:
    return ifx.connect(host=h.host, port=h.port, user=USER, password=PASSWORD,
                       database=DATABASE, server=SERVER, autocommit=True,
                       connect_timeout=10, read_timeout=10)


@pytest.mark.parametrize("case", list(_BENT))
def test_streaming_cursor_gets_the_reference_error_and_the_rows_before(server, case):
    conn = _connect(server)
    cur = conn.cursor()
    cur.execute("CREATE TABLE c (id INTEGER, ts DATETIME YEAR TO SECOND, d DATE)")
    cur.executemany("INSERT INTO c VALUES (?, ?, ?)", [_row(i) for i in range(300)])
    at, value = _BENT[case]
    bad = _bent(_image(_row(140)), at, value)
    good = [_image(_row(i)) for i in range(100, 240)]
    reply = b"".join(tuple_msg(len(m), m) for m in good[:40]) + tuple_msg(len(bad), bad) \
        + b"".join(tuple_msg(len(m), m) for m in good[41:]) + done(140) + eot()
    server.tamper = lambda messages, real: [reply] if is_later_fetch(messages) else None
    try:
        reference_decoder(_TYPES)(bad)
        raise AssertionError("the bent row decodes")
    except ifx.DataError as exc:
        wanted = str(exc)
    cur = conn.cursor(fetch_buffer_size=2048)
    cur.execute("SELECT * FROM c ORDER BY id")
    got = []
    with pytest.raises(ifx.DataError) as info:
        while len(got) < 400:
            row = cur.fetchone()
            if row is None:
                break
            got.append(row)
    assert str(info.value) == wanted
    # the real replies' rows; a reply holding a bad row raises as a whole
    # (core/statement.raise_for), so none of the tampered one's
    assert got == [_row(i) for i in range(len(got))] and 0 < len(got) < 300
    server.tamper = None
    assert not conn.closed
    check = conn.cursor()
    check.execute("SELECT COUNT(*) FROM c")
    assert check.fetchone() == (300,)
    conn.close()

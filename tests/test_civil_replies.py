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
from faults.bent_rows import bent, read_until_error, reference_error, serve_in_later_fetch
from faults.emu import connect
from informix_stream.codec.scalars import EPOCH_ORDINAL
from informix_stream.codecs import make_row_encoder, parse_type

pytestmark = pytest.mark.timeout(60)
_TYPES = [parse_type("integer"), parse_type("datetime year to second"), parse_type("date")]
_FIRST = dt.datetime(2020, 1, 1, 8)


def _row(i: int) -> tuple:
    return i, _FIRST + dt.timedelta(hours=5 * i), dt.date(1999, 1, 1) + dt.timedelta(days=i)


def _image(row: tuple) -> bytes:
    return make_row_encoder(_TYPES)(row)


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


@pytest.mark.parametrize("case", list(_BENT))
def test_streaming_cursor_gets_the_reference_error_and_the_rows_before(hostile, case):
    conn = connect(hostile, autocommit=True, connect_timeout=10, read_timeout=10)
    cur = conn.cursor()
    cur.execute("CREATE TABLE c (id INTEGER, ts DATETIME YEAR TO SECOND, d DATE)")
    cur.executemany("INSERT INTO c VALUES (?, ?, ?)", [_row(i) for i in range(300)])
    at, value = _BENT[case]
    images = [_image(_row(i)) for i in range(100, 240)]
    images[40] = bent(images[40], at, value)           # row 140
    wanted = reference_error(_TYPES, images[40])
    serve_in_later_fetch(hostile, images)
    cur = conn.cursor(fetch_buffer_size=2048)
    cur.execute("SELECT * FROM c ORDER BY id")
    got, error = read_until_error(cur, 400)
    assert isinstance(error, ifx.DataError) and str(error) == wanted
    # the real replies' rows; a reply holding a bad row raises as a whole
    # (core/statement.raise_for), so none of the tampered one's
    assert got == [_row(i) for i in range(len(got))] and 0 < len(got) < 300
    hostile.tamper = None
    assert not conn.closed
    check = conn.cursor()
    check.execute("SELECT COUNT(*) FROM c")
    assert check.fetchone() == (300,)
    conn.close()

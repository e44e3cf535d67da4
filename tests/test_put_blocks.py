"""Several SQ_PUT blocks in one request, and an interrupt during FLUSH.

The emulator inserts the consecutive PUT blocks of a request as one SQLite
batch (insert_cursor.put_run); when a block does not go in whole, the batch
is undone and the blocks go one by one, so the replies and the rows in the
table are exactly those of blocks sent one at a time: every block before
the failing one in whole (an SQ_DONE each), the failing one's rows before
its failing row (SQ_PUTERR's count), nothing after (IBM SQL Syntax, FLUSH,
"Error Checking FLUSH Statements"; docs/protocol.md).
"""

from __future__ import annotations

import struct
import uuid
from decimal import Decimal

import pytest

from faults.emu import connect, rows
from faults.proxy import Interrupter, FaultProxy
from informix_stream import codecs
from informix_stream.codec.rowencode import make_row_encoder
from informix_stream.codec.typeinfo import parse_type
from informix_stream.emulator.engine import Engine
from informix_stream.emulator.session import Session
from informix_stream.framing import Writer
from informix_stream.messages import Reply, Tag, parse_reply, parse_request

TYPES = ["INTEGER", "VARCHAR(20)", "DECIMAL(8,2)"]


class Wire:
    """An in-process session spoken to in request bytes."""

    def __init__(self) -> None:
        self.engine = Engine(["testdb"])
        self.session = Session(self.engine, version="test")
        self.send(Writer().short(Tag.DBOPEN).short_string(b"testdb").short(0))

    def send(self, w: Writer | bytes) -> Reply:
        data = (w if isinstance(w, bytes) else w.getvalue()) + b"\x00\x0c"
        messages, _ = parse_request(data, 0, codecs.read_param)
        reply = Reply()
        end, done = parse_reply(self.session.handle(messages), 0, reply)
        assert done
        return reply

    def sql(self, text: str) -> Reply:
        return self.send(Writer().short(Tag.COMMAND).short(0).int(len(text))
                         .padded(text.encode()).short(Tag.EXECUTE).short(Tag.RELEASE))

    def ids(self) -> list[int]:
        db = self.session.db
        return [r[0] for r in db._conn.execute("SELECT id FROM t ORDER BY rowid")]


@pytest.fixture
def wire():
    w = Wire()
    w.sql("CREATE TABLE t (id INTEGER UNIQUE, name VARCHAR(20), amount DECIMAL(8,2))")
    sql = b"INSERT INTO t VALUES (?, ?, ?)"
    w.send(Writer().short(Tag.PREPARE).short(0).int(len(sql)).padded(sql)
           .short(Tag.NDESCRIBE).short(Tag.WANTDONE))
    w.send(Writer().short(Tag.BEGIN))
    yield w
    w.engine.close()


_ENCODE = make_row_encoder([parse_type(t) for t in TYPES])


def put_request(blocks: list[list[bytes]]) -> bytes:
    """OPEN and one SQ_PUT per block (each block's images of one length)."""
    out = (Writer().short(Tag.ID).short(0).short(Tag.CURNAME).short_string(b"c")
           .short(Tag.OPEN).getvalue())
    for images in blocks:
        width = len(images[0])
        assert all(len(i) == width for i in images)
        pad = b"\x00" * (width & 1)
        out += struct.pack("!hih", Tag.PUT, width, len(images)) + pad.join(images) + pad
    return out


def image(i: int, name: str = "nnnn", amount=None) -> bytes:
    from decimal import Decimal
    return _ENCODE((i, name, Decimal(amount if amount is not None else i) / 100))


def test_blocks_of_one_request_go_in_together(wire):
    blocks = [[image(i) for i in range(k, k + 3)] for k in (0, 3, 6)]
    reply = wire.send(put_request(blocks))
    assert reply.error is None and reply.done_rows == 9
    assert wire.ids() == list(range(9))


def test_a_duplicate_in_the_second_block_keeps_the_first_and_its_prefix(wire):
    blocks = [[image(0), image(1)], [image(2), image(0), image(3)], [image(4)]]
    reply = wire.send(put_request(blocks))
    assert reply.error is not None and reply.error.sqlcode in (-239, -268)
    assert reply.done_rows == 2 and reply.put_inserted == 1
    assert wire.ids() == [0, 1, 2]


def with_amount(i: int, cell: bytes) -> bytes:
    """Row ``i`` with its DECIMAL(8,2) cell replaced by ``cell`` (zero-padded)."""
    head = image(i)[:9]                   # INTEGER, then VARCHAR 'nnnn'
    return head + cell.ljust(len(image(i)) - 9, b"\x00")


def test_a_value_the_column_refuses_in_the_second_block(wire):
    # 10**7 (exponent 4, pair 10) does not fit DECIMAL(8,2): the reference's -1226
    too_big = with_amount(2, bytes([0xC4, 10]))
    blocks = [[image(0)], [image(1), too_big, image(3)], [image(4)]]
    reply = wire.send(put_request(blocks))
    assert reply.error is not None and reply.error.sqlcode == -1226
    assert reply.done_rows == 1 and reply.put_inserted == 1
    assert wire.ids() == [0, 1]


def test_an_image_that_is_no_row_fails_its_block_whole(wire):
    bad = bytearray(image(2))
    bad[4] = 20                            # a VARCHAR length past the row's end
    blocks = [[image(0)], [image(1), bytes(bad)], [image(4)]]
    reply = wire.send(put_request(blocks))
    assert reply.error is not None and reply.error.sqlcode == -1260
    assert reply.done_rows == 1
    assert wire.ids() == [0]


def test_rows_the_fast_path_declines_still_go_in_exactly(wire):
    # 1.50 with a leading zero pair (exponent 2: 00 01 50) is not the
    # encoder's form: the reference path reads it, the row goes in
    odd = with_amount(1, bytes([0xC2, 0, 1, 50]))
    reply = wire.send(put_request([[image(0)], [odd]]))
    assert reply.error is None and reply.done_rows == 2
    got = wire.session.db._conn.execute("SELECT amount, _ifx_row FROM t ORDER BY id").fetchall()
    assert [r[0] for r in got] == [0.0, 1.5]
    assert got[1][1].endswith(bytes([0xC1, 1, 50]) + bytes(len(odd) - 12))


# ---------------------------------------------------------------------------
# An interrupt during FLUSH (issue 14, "Bad input")
# ---------------------------------------------------------------------------

@pytest.mark.timeout(240)
@pytest.mark.parametrize("source", ["tuples", "arrow"])
@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
def test_ctrl_c_during_flush_leaves_a_prefix_or_nothing(emu, autocommit, source):
    """Ctrl-C at sampled bytes of an insert-cursor load whose requests hold
    several PUT blocks (rows of different lengths): told nothing, what is in
    the table is a prefix without gaps or twins (autocommit) or nothing (a
    transaction, rolled back); a connection still open works.  From Arrow
    the requests are cut from the batch's image buffer (arrow/put_requests.py)."""
    from faults.sweeps import interrupted, sweep_offsets
    direct = connect(emu, autocommit=True)
    t = f"putc_{uuid.uuid4().hex[:8]}"
    direct.cursor().execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, run INTEGER, "
                            "name VARCHAR(20), amount DECIMAL(8,2))")
    n = 150

    def load(conn, run):
        data = [(run * 1000 + i, run, "x" * (i % 7), None if i % 5 == 0 else i / 4)
                for i in range(n)]
        rows = [(a, b, c, None if d is None else Decimal(str(d))) for a, b, c, d in data]
        if source == "arrow":
            pa = pytest.importorskip("pyarrow", reason="Arrow ingest needs the arrow extra")
            a, b, c, d = zip(*rows)
            rows = pa.table({"id": pa.array(a, pa.int32()), "run": pa.array(b, pa.int32()),
                             "name": pa.array(c), "amount": pa.array(d, pa.decimal128(8, 2))})
        return lambda: conn.cursor().executemany(
            f"INSERT INTO {t} VALUES (?, ?, ?, ?)", rows, chunk_size=50, insert_cursor=True)

    with FaultProxy((emu.host, emu.port)) as proxy, Interrupter() as intr:
        probe = connect(proxy, autocommit=True)
        offsets = sweep_offsets(proxy, load(probe, 0), 16)
        probe.close()
        hits = 0
        for run, (direction, offset) in enumerate(offsets, start=1):
            conn = connect(proxy, autocommit=autocommit)
            try:
                cut = interrupted(proxy, intr, direction, offset, load(conn, run))
                hits += cut
                if not autocommit and not conn.closed:
                    conn.rollback()
                landed = [r[0] - run * 1000 for r in
                          rows(direct, f"SELECT id FROM {t} WHERE run = ? ORDER BY id", (run,))]
                if not autocommit:
                    assert landed == [], (direction, offset)
                elif not cut:
                    assert landed == list(range(n)), (direction, offset)
                else:
                    assert landed == list(range(len(landed))), (direction, offset, landed[:5])
                if not conn.closed:
                    conn.cursor().execute(f"INSERT INTO {t} VALUES (?, ?, 'z', 1)", (-run, run))
                    if not autocommit:
                        conn.commit()
                    assert rows(direct, f"SELECT COUNT(*) FROM {t} WHERE id = ?",
                                (-run,)) == [(1,)]
            finally:
                conn.close()
    direct.close()
    assert hits >= len(offsets) // 2, (hits, len(offsets))   # the interrupts did land

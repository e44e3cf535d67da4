"""Issue 9 item 3: hostile or buggy replies fail fast.

A scripted server (``faults.hostile.HostileServer``) answers the driver's
login and statements like the emulator, then replaces one reply with
crafted bytes.  Whatever it sends, the call raises OperationalError or
InterfaceError within a few seconds and bounded memory, ``conn.closed`` is
True, later calls are refused, and no further request reaches the server.
"""

from __future__ import annotations

import asyncio
import struct
import time
import tracemalloc

import pytest

import informix_stream as ifx
from both_drivers import AsyncDriver, SyncDriver
from faults.emu import DATABASE, PASSWORD, SERVER, USER
from faults.hostile import (CLOSE, SILENCE, HostileServer, done, eot, is_fetch, is_later_fetch,
                            tuple_msg)
from informix_stream.messages import Command, Tag

SIGNALLED = (ifx.OperationalError, ifx.InterfaceError)
pytestmark = pytest.mark.timeout(60)


@pytest.fixture(params=["sync", "async"])
def drv(request):
    """The blocking and the asyncio driver, through one face (both_drivers.py)."""
    d = SyncDriver() if request.param == "sync" else AsyncDriver()
    yield d
    d.close()


class _Target:
    user, password, database, server = USER, PASSWORD, DATABASE, SERVER

    def __init__(self, h: HostileServer) -> None:
        self.host, self.port = h.host, h.port


@pytest.fixture
def hostile(drv):
    with HostileServer() as h:
        h.drv = drv
        yield h


def connect(h: HostileServer, **kw):
    kw.setdefault("connect_timeout", 10)
    return h.drv.connect(_Target(h), **kw)


def ready(h: HostileServer, **kw):
    """A connection with table t (id INTEGER, name VARCHAR(10)) of 3 rows."""
    kw.setdefault("read_timeout", 10)
    conn = connect(h, autocommit=True, **kw)
    cur = conn.cursor()
    cur.execute("CREATE TABLE t (id INTEGER, name VARCHAR(10))")
    cur.executemany("INSERT INTO t VALUES (?, ?)", [(1, "a"), (2, "bb"), (3, "ccc")])
    cur.execute("SELECT id, name FROM t ORDER BY id")        # the untampered answer
    assert cur.fetchall() == [(1, "a"), (2, "bb"), (3, "ccc")]
    return conn


def on_fetch(script):
    """Replace the reply to the next request that fetches rows."""
    def tamper(messages, reply):
        return script if is_fetch(messages) else None
    return tamper


def fails_fast(h: HostileServer, conn: ifx.Connection, op, limit: float = 5.0) -> Exception:
    start = time.monotonic()
    with pytest.raises(SIGNALLED) as info:
        op()
    elapsed = time.monotonic() - start
    assert elapsed < limit, f"took {elapsed:.1f} s to give up"
    assert conn.closed
    seen = len(h.requests)
    with pytest.raises(SIGNALLED):
        conn.cursor().execute("SELECT id FROM t")
    time.sleep(0.1)
    assert len(h.requests) == seen, "a statement was sent on a broken connection"
    return info.value


def select(conn, sql: str = "SELECT id FROM t ORDER BY id"):
    def op():
        cur = conn.cursor()
        cur.execute(sql)
        return cur.fetchall()
    return op


INT = struct.Struct("!i")


@pytest.mark.parametrize("script", [
    [tuple_msg(-8, b"") + done(1) + eot()],
    [tuple_msg(-1, INT.pack(1)) + done(1) + eot()],
    [tuple_msg(0x7FFFFFF0, INT.pack(1)), SILENCE],
    [tuple_msg(0x40000000, INT.pack(1) * 16), SILENCE],
], ids=["negative", "minus-one", "absurd-then-silent", "one-GiB-then-silent"])
def test_absurd_tuple_size(hostile, script):
    conn = ready(hostile)
    hostile.tamper = on_fetch(script)
    fails_fast(hostile, conn, select(conn))


@pytest.mark.parametrize("size, payload", [
    (6, INT.pack(7) + b"xx"),            # the decoder would stop 2 bytes short
    (8, INT.pack(7) * 2),
    (2, b"\x00\x07"),                    # ... or read 2 bytes into the next message
    (0, b""),
], ids=["two-extra", "four-extra", "two-short", "empty"])
def test_row_that_does_not_fill_its_tuple_exactly(hostile, size, payload):
    conn = ready(hostile)
    hostile.tamper = on_fetch([tuple_msg(size, payload) + tuple_msg(4, INT.pack(8))
                               + done(2) + eot()])
    fails_fast(hostile, conn, select(conn))


@pytest.mark.parametrize("payload", [
    INT.pack(1) + b"\xc8abc",            # VARCHAR says 200 bytes, the tuple has 3
    INT.pack(1) + b"\x04ab",             # 4 said, 2 there
    INT.pack(1) + b"\x00abc",            # 0 said, 3 left over
], ids=["varchar-past-end", "varchar-short", "varchar-leaves-bytes"])
def test_length_prefix_inside_a_row_past_its_tuple(hostile, payload):
    conn = ready(hostile)
    hostile.tamper = on_fetch([tuple_msg(len(payload), payload) + done(1) + eot()])
    fails_fast(hostile, conn, select(conn, "SELECT id, name FROM t ORDER BY id"))


def _err(declared: int, text: bytes) -> bytes:
    return struct.pack("!hhhih", Tag.ERR, -201, 0, 0, declared) + text


@pytest.mark.parametrize("ending", [[CLOSE], [SILENCE]], ids=["then-close", "then-silent"])
def test_length_prefix_past_the_end_of_a_message(hostile, ending):
    conn = ready(hostile, read_timeout=2)
    hostile.tamper = on_fetch([_err(3000, b"near text") + eot(), *ending])
    fails_fast(hostile, conn, select(conn), limit=5.0)


def test_message_over_max_message_size_fails_at_its_header(hostile):
    conn = ready(hostile, max_message_size=4096, read_timeout=2.5)
    hostile.tamper = on_fetch([_err(30000, b"x" * 64), SILENCE])
    fails_fast(hostile, conn, select(conn), limit=2.0)


def test_tuple_over_max_message_size_is_refused_in_bounded_memory(hostile):
    size = 48 * 1024 * 1024
    chunk = b"\x00" * (1024 * 1024)
    conn = ready(hostile, max_message_size=1024 * 1024, read_timeout=30)
    hostile.tamper = on_fetch([tuple_msg(size, b"")] + [chunk] * 48 + [eot(), SILENCE])
    tracemalloc.start()
    try:
        fails_fast(hostile, conn, select(conn), limit=5.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, f"peak {peak / 2**20:.1f} MiB while refusing a 48 MiB tuple"


@pytest.mark.parametrize("junk", [
    b"\x7f\x7f" + b"\x00" * 14 + eot(),
    b"\x00\x00" + eot(),
    b"\xff\xff\xff\xff" + eot(),
    struct.pack("!h", Tag.BIND) + b"\x00\x01" + eot(),
], ids=["0x7f7f", "zero", "minus-one", "request-tag"])
def test_unknown_message_tag(hostile, junk):
    conn = ready(hostile)
    hostile.tamper = on_fetch([junk])
    fails_fast(hostile, conn, select(conn))


NO_DESCRIBE = ("issue 9: hostile replies (driver core): a PREPARE reply without its "
               "DESCRIBE raises ProgrammingError('server prepared the statement without "
               "describing it') and keeps the connection; a reply the server cannot have "
               "sent is a protocol error: OperationalError, connection closed")


def _prepares(messages) -> bool:
    return any(isinstance(m, Command) for m in messages)


@pytest.mark.parametrize("reply", [done(0) + eot(), eot()], ids=["done-only", "empty"])
def test_prepare_reply_without_its_describe(hostile, reply):
    conn = ready(hostile)
    hostile.tamper = lambda messages, real: [reply] if _prepares(messages) else None
    fails_fast(hostile, conn, select(conn))


def _marker(messages) -> bool:
    return any(isinstance(m, Command) and b"marker" in m.sql for m in messages)


ASYNC_IDLE_STRAY = (
    "issue 9/10: hostile replies (asyncio layer): AsyncIO.check_idle looks only at the "
    "StreamReader's buffer, so stray bytes still in the socket (the event loop has not "
    "run since they came) are read as the next PREPARE's reply: the DELETE then runs on "
    "the server under the stray statement id, deletes a row and reports rowcount 0")


@pytest.mark.parametrize("loop_between", ["idle", "running"])
def test_stray_reply_between_statements_is_never_read_as_the_next_one(request, hostile,
                                                                      loop_between):
    """The server sends a complete, plausible reply when nothing is owed: the
    next call must refuse instead of taking it for its own answer.  For the
    asyncio driver the stray bytes arrive either while its event loop is idle
    (still in the socket at the next call) or while it runs (already read)."""
    is_async = hostile.drv.name == "async"
    if loop_between == "running" and not is_async:
        pytest.skip("only the asyncio driver has an event loop to keep running")
    conn = ready(hostile)
    captured: dict = {}

    def tamper(messages, reply):
        if _marker(messages):
            captured["prepare"] = reply          # DESCRIBE of the INSERT + DONE
            return None
        if Tag.EXECUTE in messages and "prepare" in captured:
            return [reply, 0.5, captured.pop("prepare")]
        return None

    hostile.tamper = tamper
    cur = conn.cursor()
    cur.execute("INSERT INTO t VALUES (?, 'marker')", (10,))
    if loop_between == "running":
        hostile.drv.run(asyncio.sleep(1.2))       # the loop reads the stray bytes
    else:
        time.sleep(1.2)                           # the stray bytes are in by now
    hostile.tamper = None
    fails_fast(hostile, conn, lambda: cur.execute("DELETE FROM t WHERE id = ?", (1,)))


def test_bytes_after_the_last_reply_break_the_connection(hostile):
    conn = ready(hostile)

    def tamper(messages, reply):
        return [reply + done(5) + eot()] if is_fetch(messages) else None

    hostile.tamper = tamper
    cur = conn.cursor()
    try:
        cur.execute("SELECT id FROM t ORDER BY id")
        got = cur.fetchall()
    except SIGNALLED:
        assert conn.closed
        return
    # If the call itself did not notice, the next one must: never a new request.
    assert got == [(1,), (2,), (3,)]
    hostile.tamper = None
    fails_fast(hostile, conn, lambda: conn.cursor().execute("DELETE FROM t"))


def test_read_ahead_replies_in_flight_are_not_stray(hostile):
    """The other side of the rule: replies the driver asked for ahead of time
    arrive while no call is running, and must be taken as its own."""
    conn = connect(hostile, autocommit=True, read_timeout=10)
    cur = conn.cursor()
    cur.execute("CREATE TABLE big (id INTEGER)")
    cur.executemany("INSERT INTO big VALUES (?)", [(i,) for i in range(500)])
    cur = conn.cursor(fetch_buffer_size=64)
    cur.execute("SELECT id FROM big ORDER BY id")
    got = []
    for row in cur:
        got.append(row[0])
        if row[0] % 50 == 0:
            time.sleep(0.02)                    # read-ahead replies land meanwhile
    assert got == list(range(500))
    assert not conn.closed
    conn.close()


def test_endless_rows_for_one_fetch_are_refused_in_bounded_memory(hostile):
    """A fetch asks for a buffer of rows; a server that keeps sending valid
    tuples past it (and never ends the reply) is cut off, not buffered."""
    conn = ready(hostile, max_message_size=64 * 1024, read_timeout=30)
    burst = tuple_msg(4, INT.pack(5)) * 2000
    hostile.tamper = on_fetch([burst] * 400 + [SILENCE])
    tracemalloc.start()
    try:
        fails_fast(hostile, conn, lambda: conn.cursor(fetch_buffer_size=64).execute(
            "SELECT id FROM t"), limit=10.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024, f"peak {peak / 2**20:.1f} MiB"


@pytest.mark.parametrize("reply", [
    [b"\xff\xff", SILENCE],                                  # a PDU length it never sends
    [b"\x00\x10\x02\x3c" + b"\x00" * 12, CLOSE],             # a short, meaningless PDU
    [b"\x00\x04\x99\x99", CLOSE],                             # an SL type that is not a reply
    [CLOSE],                                                # hang up on the login
], ids=["length-then-silent", "garbage", "bad-type", "hang-up"])
def test_hostile_login_reply(drv, reply):
    with HostileServer(login_reply=reply) as h:
        h.drv = drv
        start = time.monotonic()
        with pytest.raises(SIGNALLED):
            connect(h, connect_timeout=2)
        assert time.monotonic() - start < 5


@pytest.mark.parametrize("limit, fits", [(16 * 1024, False), (64 * 1024, True)])
def test_a_real_row_over_max_message_size(drv, limit, fits):
    """Not only hostile servers: an honest 20,000-byte value over the cap is
    refused (and the connection closed), under it read whole."""
    with HostileServer() as h:
        h.drv = drv
        setup = connect(h, autocommit=True, read_timeout=10)
        cur = setup.cursor()
        cur.execute("CREATE TABLE big (id INTEGER, v LVARCHAR(30000))")
        cur.execute("INSERT INTO big VALUES (?, ?)", (1, "x" * 20000))
        conn = connect(h, autocommit=True, read_timeout=10, max_message_size=limit)
        if fits:
            assert select(conn, "SELECT id, v FROM big")() == [(1, "x" * 20000)]
        else:
            fails_fast(h, conn, select(conn, "SELECT id, v FROM big"))
        setup.close()


# -- generated replies ---------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECES = st.one_of(
    st.binary(max_size=24),
    st.builds(lambda size, body: tuple_msg(size, body),
              st.integers(-2**31, 2**31 - 1), st.binary(max_size=12)),
    st.builds(lambda size, body: tuple_msg(size, body), st.integers(0, 16),
              st.binary(max_size=16)),
    st.just(done(1)), st.just(eot()),
    st.builds(_err, st.integers(-2, 32767), st.binary(max_size=8)),
)


@pytest.fixture(scope="module")
def fuzz_server():
    with HostileServer() as h:
        h.drv = SyncDriver()
        conn = connect(h, autocommit=True, read_timeout=5)
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (id INTEGER, name VARCHAR(10))")
        cur.execute("INSERT INTO t VALUES (1, 'a')")
        conn.close()
        yield h


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(pieces=st.lists(_PIECES, max_size=6))
def test_generated_fetch_replies_end_in_rows_or_a_pep249_error(fuzz_server, pieces):
    """Whatever bytes answer the fetch (then the server hangs up): the call
    returns within bounded time, and anything it raises is a PEP 249 error;
    a failure that is not the server's own SQ_ERR leaves the connection closed."""
    h = fuzz_server
    conn = connect(h, autocommit=True, read_timeout=2)
    h.tamper = on_fetch([b"".join(pieces), CLOSE])
    start = time.monotonic()
    try:
        select(conn, "SELECT id, name FROM t")()
    except ifx.Error as exc:
        if not conn.closed:
            assert isinstance(exc, ifx.DatabaseError) and getattr(exc, "sqlcode", None), exc
    finally:
        h.tamper = None
        conn.close()
    assert time.monotonic() - start < 4


# -- Arrow fetches ---------------------------------------------------------------------
# Once a cursor reads Arrow, its fetch replies are cut by the bulk path
# (arrow/bulk.py), a run of tuples at a time.  The same hostile replies must
# fail the same way there: the table has enough rows that the tampered reply
# is a later fetch, read by that path, not the OPEN's first one.

ARROW_SHAPES = {
    "fixed": ("id INTEGER, d DATE", lambda i: INT.pack(i) + INT.pack(40000 + i)),
    "variable": ("id INTEGER, name VARCHAR(10)", lambda i: INT.pack(i) + b"\x03abc"),
}


def arrow_ready(h: HostileServer, shape: str, **kw):
    pytest.importorskip("pyarrow", reason="the arrow extra (numpy, pyarrow) is not installed")
    kw.setdefault("read_timeout", 10)
    conn = connect(h, autocommit=True, **kw)
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE a ({ARROW_SHAPES[shape][0]})")
    second = "?" if shape == "fixed" else "'abc'"
    cur.executemany(f"INSERT INTO a VALUES (?, {second})",
                    [(i, 40000 + i) if shape == "fixed" else (i,) for i in range(300)])
    return conn


def on_later_fetch(script):
    def tamper(messages, reply):
        return script if is_later_fetch(messages) else None
    return tamper


def arrow_select(conn):
    def op():
        cur = conn.cursor(fetch_buffer_size=256)
        cur.execute("SELECT * FROM a ORDER BY id")
        try:
            return cur.fetch_arrow_table(batch_rows=1000)
        except SIGNALLED:
            # The read-ahead NFETCH left with the tampered one, before the
            # failure: let it reach the server before fails_fast counts.
            time.sleep(0.3)
            raise
    return op


def good_rows(shape: str, first: int, n: int) -> bytes:
    image = ARROW_SHAPES[shape][1]
    return b"".join(tuple_msg(len(image(i)), image(i)) for i in range(first, first + n))


@pytest.mark.parametrize("shape", list(ARROW_SHAPES))
@pytest.mark.parametrize("bad", [
    lambda img: tuple_msg(-8, b""),                          # negative size
    lambda img: tuple_msg(0x7FFFFFF0, img),                  # absurd size
    lambda img: tuple_msg(len(img) + 2, img + b"xx"),        # two bytes too many
    lambda img: tuple_msg(len(img) - 2, img[:-2]),           # two bytes short
    lambda img: b"\x7f\x7f" + b"\x00" * 14,                  # unknown tag in the run
], ids=["negative", "absurd", "two-extra", "two-short", "unknown-tag"])
def test_arrow_fetch_with_a_tuple_that_does_not_frame(hostile, shape, bad):
    conn = arrow_ready(hostile, shape)
    image = ARROW_SHAPES[shape][1](900)
    hostile.tamper = on_later_fetch([good_rows(shape, 100, 5) + bad(image)
                                     + good_rows(shape, 106, 3) + done(9) + eot(), SILENCE])
    fails_fast(hostile, conn, arrow_select(conn))


def test_arrow_fetch_varchar_past_its_tuple(hostile):
    conn = arrow_ready(hostile, "variable")
    wrong = INT.pack(7) + b"\xc8abc"                         # 200 said, 3 there
    hostile.tamper = on_later_fetch([good_rows("variable", 100, 4) + tuple_msg(len(wrong), wrong)
                                     + done(5) + eot()])
    fails_fast(hostile, conn, arrow_select(conn))


def test_arrow_fetch_tuple_over_max_message_size(hostile):
    conn = arrow_ready(hostile, "fixed", max_message_size=4096, read_timeout=3)
    hostile.tamper = on_later_fetch([good_rows("fixed", 100, 3) + tuple_msg(8192, b"\x00" * 64),
                                     SILENCE])
    fails_fast(hostile, conn, arrow_select(conn), limit=3.0)


def test_arrow_fetch_endless_rows_are_refused_in_bounded_memory(hostile):
    conn = arrow_ready(hostile, "fixed", max_message_size=64 * 1024, read_timeout=30)
    hostile.tamper = on_later_fetch([good_rows("fixed", 0, 2000)] * 200 + [SILENCE])
    tracemalloc.start()
    try:
        fails_fast(hostile, conn, arrow_select(conn), limit=10.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024, f"peak {peak / 2**20:.1f} MiB"


def test_arrow_fetch_with_a_bad_value_is_a_data_error_and_the_connection_lives(hostile):
    """(The variable shape's case is in test_arrow_cursor.py.)"""
    shape = "fixed"
    conn = arrow_ready(hostile, shape)
    bad = INT.pack(104) + INT.pack(0x7FFFFFFF)              # day 2**31-1: no DATE
    hostile.tamper = on_later_fetch([good_rows(shape, 100, 4) + tuple_msg(len(bad), bad)
                                     + good_rows(shape, 105, 3) + done(8) + eot()])
    with pytest.raises(ifx.DataError, match=r"column 2 \(d"):
        arrow_select(conn)()
    assert not conn.closed
    hostile.tamper = None
    cur = conn.cursor()
    cur.execute("SELECT COUNT(*) FROM a")
    assert cur.fetchone() == (300,)

"""The emulator's fast BIND+EXECUTE ingest against its per-row path.

The same pipelined requests ``SQ_ID, SQ_BIND, SQ_EXECUTE`` -- rows of every
type bind_rows reads, NULLs, boundary values, values a column refuses or
cuts, duplicate keys, NULL into NOT NULL -- go to two fresh emulator
sessions: one through the socket layer's burst parser (bind_rows' reader,
batches of clean rows), one request at a time through parse_request and
Session.handle (the reference: what a client that waits for each reply
gets).  The replies must be byte for byte the same (so the same sqlcode,
ISAM code and message for the same row, the same row counts and SERIAL
values), and so must the stored tables, row images included, in a logged
database (autocommit, and a transaction then rolled back or committed), an
unlogged one and an ANSI one.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from informix_stream.codec.params import encode_param
from informix_stream.core import requests as rq
from informix_stream.emulator import bind_rows
from informix_stream.emulator.engine import Engine
from informix_stream.emulator.server import EmulatorServer, _param_reader
from informix_stream.emulator.session import Session
from informix_stream.framing import Writer
from informix_stream.messages import Tag, parse_request

EOT = b"\x00\x0c"
TABLES = {
    "sales": ("CREATE TABLE t (id INTEGER NOT NULL, sku VARCHAR(8), amount DECIMAL(6,2), "
              "sold DATETIME YEAR TO SECOND, day DATE, note VARCHAR(64), "
              "small SMALLINT, big BIGINT, ratio FLOAT, money MONEY(8,2))",
              "CREATE UNIQUE INDEX t_id ON t(id)"),
    "serial": ("CREATE TABLE t (id SERIAL, sku VARCHAR(8))", None),
}
MODES = {"logged": "WITH LOG", "unlogged": "", "ansi": "WITH LOG MODE ANSI"}


def command(sql: str) -> bytes:
    data = sql.encode()
    return (Writer().short(Tag.COMMAND).short(0).int(len(data)).padded(data)
            .short(Tag.EXECUTE).short(Tag.RELEASE).getvalue() + EOT)


def prepare(sql: str) -> bytes:
    data = sql.encode()
    return (Writer().short(Tag.PREPARE).short(0).int(len(data)).padded(data)
            .short(Tag.NDESCRIBE).short(Tag.WANTDONE).getvalue() + EOT)


def fast_answer(session: Session, data: bytes) -> bytes:
    """``data`` (whole requests) as the socket layer answers a burst."""
    buf, pos, out = bytearray(data), 0, b""
    while pos < len(buf):               # a burst holds at most MAX_BURST requests
        burst: list = []
        pos = EmulatorServer._parse_burst(SimpleNamespace(on_request=None), None, buf, pos,
                                          session, burst)
        assert burst
        out += session.handle_many(burst)
    return out


def slow_answer(session: Session, data: bytes) -> bytes:
    """``data`` parsed and answered one request at a time, no fast reader."""
    out, pos = b"", 0
    while pos < len(data):
        messages, pos = parse_request(data, pos, _param_reader(session))
        out += session.handle(messages)
    return out


def open_session(engine: Engine, mode: str, table: str) -> Session:
    session = Session(engine, version="test")
    session.handle_many([])
    for sql in (f"CREATE DATABASE db {MODES[mode]}".strip(), *filter(None, TABLES[table])):
        reply = slow_answer(session, command(sql))
        assert reply[:2] != b"\x00\x0d", (sql, reply)
    if mode == "ansi":          # the implicit transaction holding the DDL
        slow_answer(session, rq.COMMIT + EOT)
    slow_answer(session, prepare("INSERT INTO t VALUES (" + ", ".join(
        "?" * (10 if table == "sales" else 2)) + ")"))
    return session


def contents(session: Session) -> list:
    return session.db._conn.execute("SELECT * FROM t ORDER BY rowid").fetchall()


def insert(row) -> bytes:
    return rq.statement_id(0) + rq.bind([encode_param(v) for v in row]) + rq.EXECUTE + EOT


def sales_values():
    text = st.text(st.characters(min_codepoint=32, max_codepoint=0xFF), max_size=10)
    return st.tuples(
        st.one_of(st.integers(0, 40), st.none()),                       # duplicates, NULL
        st.one_of(st.none(), text),                                     # may be cut / refused
        st.one_of(st.none(), st.decimals(-10000, 10000, places=3, allow_nan=False)),
        st.one_of(st.none(), st.datetimes(dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31)),
                  st.datetimes().map(lambda d: d.replace(microsecond=0))),
        st.one_of(st.none(), st.dates()),
        st.one_of(st.none(), st.text(max_size=3), st.just("n" * 64)),
        st.one_of(st.none(), st.integers(-(2 ** 15) - 1, 2 ** 15)),
        st.one_of(st.none(), st.integers(-(2 ** 63), 2 ** 63 - 1)),
        st.one_of(st.none(), st.floats()),
        st.one_of(st.none(), st.decimals(-(10 ** 6), 10 ** 6, places=2, allow_nan=False)),
    )


def clean_sales_row(i: int) -> tuple:
    return (i, f"s{i}", Decimal(i % 9999 + 1) / 100, dt.datetime(2020, 1, 1, 8, 0, i % 60),
            dt.date(2020, 1, 1) + dt.timedelta(days=i), None if i % 3 else f"note {i}",
            i % 1000, 2 ** 40 + i, i / 4, Decimal(i) / 100 + 1)


@pytest.fixture
def engine():
    engines: list[Engine] = []

    def make() -> Engine:
        engines.append(Engine([]))
        return engines[-1]
    yield make
    for e in engines:
        e.close()


def compare(engine, mode: str, table: str, requests: list[bytes], cuts: list[int],
            begin: bool, end: bytes | None) -> tuple[bytes, list]:
    """Both paths over the same requests; the fast one in bursts cut at
    ``cuts``.  Returns the (equal) replies and contents."""
    fast = open_session(engine(), mode, table)
    slow = open_session(engine(), mode, table)
    head = [Writer().short(Tag.BEGIN).getvalue() + EOT] if begin else []
    tail = [end] if end is not None else []
    stream = head + requests + tail
    bounds = sorted({0, len(stream), *(c % (len(stream) + 1) for c in cuts)})
    got = b"".join(fast_answer(fast, b"".join(stream[a:b])) for a, b in zip(bounds, bounds[1:]))
    want = slow_answer(slow, b"".join(stream))
    assert got == want
    assert contents(fast) == contents(slow)
    # DBINFO('sqlca.sqlerrd2'): the rows of the last statement, one EXECUTE's
    assert fast.db.last_rowcount == slow.db.last_rowcount
    return got, contents(fast)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_rows_good_and_bad_land_as_on_the_per_row_path(engine, mode):
    @settings(max_examples=25, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow])
    @given(st.lists(sales_values(), max_size=30), st.lists(st.integers(0, 40), max_size=3),
           st.booleans(), st.sampled_from([None, rq.COMMIT + EOT, rq.ROLLBACK + EOT]))
    def check(rows, cuts, begin, end):
        if mode == "unlogged":
            begin, end = False, None
        compare(engine, mode, "sales", bindable(insert, rows), cuts, begin, end)
    check()


def bindable(make, items) -> list[bytes]:
    """``make(item)`` for each item a client can bind (generated values
    include some no client can send: those are left out)."""
    requests = []
    for item in items:
        try:
            requests.append(make(item))
        except Exception:  # noqa: BLE001 - a value no client can bind
            continue
    return requests


def batch_request(rows) -> bytes:
    """IBM's JDBC executeBatch: SQ_ID once, then BIND+EXECUTE pairs, one EOT."""
    return rq.statement_id(0) + b"".join(rq.bind([encode_param(v) for v in row]) + rq.EXECUTE
                                         for row in rows) + EOT


@pytest.mark.parametrize("mode", sorted(MODES))
def test_jdbc_batch_requests_land_as_on_the_per_message_path(engine, mode):
    @settings(max_examples=20, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow])
    @given(st.lists(st.lists(sales_values(), min_size=1, max_size=12), max_size=4),
           st.booleans())
    def check(batches, begin):
        if mode == "unlogged":
            begin = False
        compare(engine, mode, "sales", bindable(batch_request, batches), [1], begin, None)
    check()


def test_a_clean_jdbc_batch_is_one_fast_request(engine):
    requests = [batch_request([clean_sales_row(i) for i in range(k, k + 100)])
                for k in (0, 100)]
    replies, rows = compare(engine, "logged", "sales", requests, [], False, None)
    assert len(rows) == 200
    assert replies.count(b"\x00\x0c") == 2           # one EOT a request
    dup = [batch_request([clean_sales_row(i) for i in (300, 301, 1, 302)])]
    replies, rows = compare(engine, "logged", "sales", requests + dup, [], False, None)
    assert [r[0] for r in rows][-2:] == [300, 301]   # the duplicate ends its request


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_clean_run_is_read_fast_and_stored_as_the_per_row_path_stores_it(engine, mode,
                                                                          monkeypatch):
    reads = []
    real = bind_rows.RequestReader.read

    def counting(self, buf, pos):
        got = real(self, buf, pos)
        if got is not None:
            reads.append(type(got[0][1]))
        return got
    monkeypatch.setattr(bind_rows.RequestReader, "read", counting)
    requests = [insert(clean_sales_row(i)) for i in range(200)]
    replies, rows = compare(engine, mode, "sales", requests, [50, 120], mode == "logged",
                            rq.COMMIT + EOT if mode == "logged" else None)
    assert len(rows) == 200 and reads == [bind_rows.RawBind] * 200
    assert replies.count(b"\x00\x0f\x00\x00\x00\x00\x00\x01") == 200   # SQ_DONE, 1 row each


def test_a_duplicate_in_the_middle_of_a_clean_run(engine):
    requests = [insert(clean_sales_row(i % 120)) for i in range(200)]
    replies, rows = compare(engine, "logged", "sales", requests, [], False, None)
    assert len(rows) == 120
    assert replies.count(b"\x00\x0d") == 80      # SQ_ERR for each duplicate


def test_serial_values_are_the_per_row_path_s(engine):
    requests = [rq.statement_id(0) + rq.bind([encode_param(0), encode_param(f"s{i}")])
                + rq.EXECUTE + EOT for i in range(20)]
    _, rows = compare(engine, "logged", "serial", requests, [7], False, None)
    assert [r[0] for r in rows] == list(range(1, 21))


def test_negative_serials_are_stored_and_leave_the_counter_alone(engine):
    """Informix stores a negative value given for a serial column and keeps
    generating positive numbers (IBM Informix 12.10 Guide to SQL: Reference,
    "BIGSERIAL data type"); the emulator answered -201 (a syntax error)."""
    given_ids = [0, -5, 0, -2147483647, 7, 0, -1, 0]
    requests = [rq.statement_id(0) + rq.bind([encode_param(v), encode_param(f"s{i}")])
                + rq.EXECUTE + EOT for i, v in enumerate(given_ids)]
    _, rows = compare(engine, "logged", "serial", requests, [], False, None)
    assert [r[0] for r in rows] == [1, -5, 2, -2147483647, 7, 8, -1, 9]


def test_a_statement_prepared_again_in_the_burst_is_not_read_with_the_old_shape(engine):
    """A burst is parsed before it runs: rows read for statement 0's shape
    must not be stored when statement 0 is, by then, another INSERT (here
    one naming the columns in another order)."""
    reordered = ("INSERT INTO t (small, sku, amount, sold, day, note, id, big, ratio, money) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    requests = ([insert(clean_sales_row(i)) for i in range(3)]
                + [rq.statement_id(0) + rq.RELEASE + EOT, prepare(reordered)]
                + [insert(clean_sales_row(i)) for i in range(3, 8)])
    _, rows = compare(engine, "logged", "sales", requests, [], False, None)
    assert [r[0] for r in rows] == [0, 1, 2, 3, 4, 5, 6, 7]     # id is the 7th value now
    assert [r[6] for r in rows] == [0, 1, 2, 3, 4, 5, 6, 7]


def cancel_once(session: Session) -> None:
    """The client's cancel arrives once, while the next statement runs."""
    pending = [True]
    session.db.interrupt_requested = lambda: bool(pending) and pending.pop()


def test_a_cancel_during_a_run_stops_its_first_request_only(engine):
    """A cancel interrupts the batch, which is undone; the client's one
    interrupt is not spent on a replay: the first request answers -213,
    the later (separate) requests go in, and the table says exactly that."""
    session = open_session(engine(), "logged", "sales")
    cancel_once(session)
    replies = fast_answer(session, b"".join(insert(clean_sales_row(i)) for i in range(3000)))
    assert replies.startswith(b"\x00\x0d\xff\x2b")           # SQ_ERR -213
    assert replies.count(b"\x00\x0f\x00\x00\x00\x00\x00\x01") == 2999
    assert sorted(r[0] for r in contents(session)) == list(range(1, 3000))


def test_a_cancel_during_a_jdbc_batch_request_skips_the_rest_of_it(engine):
    session = open_session(engine(), "logged", "sales")
    cancel_once(session)
    replies = fast_answer(session, batch_request([clean_sales_row(i) for i in range(3000)]))
    assert replies.startswith(b"\x00\x0d\xff\x2b") and replies.endswith(b"\x00\x0c")
    assert len(replies) < 40 and contents(session) == []


def test_a_temp_table_made_since_the_prepare_is_not_read_with_its_types(engine):
    """CREATE TEMP TABLE t after INSERT INTO t was prepared: the name now
    means the temp table, with other types; the fast reader must not read
    rows with the types the name means now when the statement was
    translated for others (the per-row path decides what happens)."""
    temp = command("CREATE TEMP TABLE t (id INTEGER NOT NULL, sku VARCHAR(64), amount FLOAT, "
                   "sold DATETIME YEAR TO SECOND, day DATE, note VARCHAR(64), small SMALLINT, "
                   "big BIGINT, ratio FLOAT, money MONEY(8,2))")
    requests = [temp] + [insert(clean_sales_row(i)) for i in range(5)]
    compare(engine, "logged", "sales", requests, [], False, None)


def test_a_table_altered_since_the_prepare(engine):
    """-710 for every EXECUTE of the stale statement, on both paths."""
    requests = [command("ALTER TABLE t ADD extra INTEGER")] + \
        [insert(clean_sales_row(i)) for i in range(4)]
    replies, rows = compare(engine, "logged", "sales", requests, [], False, None)
    assert rows == [] and replies.count(b"\x00\x0d\xfd\x3a") == 4      # SQ_ERR -710


def test_another_sessions_lock_table(engine):
    """LOCK TABLE in another session: each EXECUTE answers its lock error,
    on the fast path as request by request; nothing goes in."""
    def run(answer) -> tuple[bytes, list]:
        e = engine()
        loader = open_session(e, "logged", "sales")
        holder = Session(e, version="test")
        holder.handle_many([])
        slow_answer(holder, command("DATABASE db"))
        slow_answer(holder, Writer().short(Tag.BEGIN).getvalue() + EOT)
        assert slow_answer(holder, command("LOCK TABLE t IN EXCLUSIVE MODE"))[:2] == b"\x00\x0f"
        got = answer(loader, b"".join(insert(clean_sales_row(i)) for i in range(5)))
        return got, contents(loader)
    fast, slow = run(fast_answer), run(slow_answer)
    assert fast == slow
    assert fast[1] == [] and fast[0].count(b"\x00\x0d") == 5

"""Issue 9 item 5: no statement or cursor leaks on any error path.

A loop of 2,000 failing statements of every kind -- server errors at
PREPARE and at EXECUTE, constraint violations, bad parameters refused
before sending, executemany failures, an abandoned stream followed by an
error -- must leave the server holding no more statements than a clean
loop does.  The emulator's session objects are counted directly
(``faults.emu.TrackedEmulator.open_statements``).  The connection's prepare
cache keeps statements on purpose, so the exact counts are taken with it
off (``prepare_cache_size=0``), and with it on the count must stay within
its size.
"""

from __future__ import annotations

import uuid

import pytest

import informix_stream as ifx
from faults.emu import TrackedEmulator, connect, flush
from informix_stream.connect_params import DEFAULT_PREPARE_CACHE

pytestmark = pytest.mark.timeout(240)
LOOPS = 2000


@pytest.fixture
def emu(monkeypatch):
    with TrackedEmulator(monkeypatch) as e:
        yield e


def _table(conn) -> str:
    t = f"lk_{uuid.uuid4().hex[:8]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, name VARCHAR(10) NOT NULL)")
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(i, f"n{i}") for i in range(1, 30)])
    return t


def _abandoned_stream_then_error(cur, t):
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    cur.fetchone()
    cur.execute(f"SELECT nosuch FROM {t}")


def _executemany_failure(cur, t):
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                    [(1000 + i, "x") for i in range(5)] + [(1, "dup")], chunk_size=4)


def _batch_errors(cur, t):
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?)", [(1, "dup"), (2, None)],
                    batch_errors=True)
    assert len(cur.batch_errors) == 2
    raise ifx.IntegrityError("expected: every row failed")


FAILURES = [
    ("syntax", lambda cur, t: cur.execute(f"SELEC id FROM {t}"), ifx.ProgrammingError),
    ("missing-table", lambda cur, t: cur.execute("SELECT id FROM no_such_table_x"),
     ifx.ProgrammingError),
    ("missing-column", lambda cur, t: cur.execute(f"SELECT nosuch FROM {t}"),
     ifx.ProgrammingError),
    ("duplicate-key", lambda cur, t: cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (1, "x")),
     ifx.IntegrityError),
    ("not-null", lambda cur, t: cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (999, None)),
     ifx.IntegrityError),
    ("update-duplicate", lambda cur, t: cur.execute(f"UPDATE {t} SET id = ? WHERE id = ?",
                                                    (1, 2)), ifx.IntegrityError),
    ("bad-value", lambda cur, t: cur.execute(f"INSERT INTO {t} VALUES (?, ?)",
                                             (object(), "x")), ifx.Error),
    ("overflow", lambda cur, t: cur.execute(f"SELECT id FROM {t} WHERE id = ?", (2 ** 70,)),
     ifx.DataError),
    ("wrong-count", lambda cur, t: cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (1,)),
     ifx.ProgrammingError),
    ("abandoned-stream", _abandoned_stream_then_error, ifx.ProgrammingError),
    ("executemany", _executemany_failure, ifx.IntegrityError),
    ("batch-errors", _batch_errors, ifx.IntegrityError),
]


def _clean(cur, t, i):
    k = i % 4
    if k == 0:
        cur.execute(f"SELECT id, name FROM {t} WHERE id = ?", (1 + i % 29,))
        assert len(cur.fetchall()) == 1
    elif k == 1:
        cur.execute(f"INSERT INTO {t} VALUES (?, ?)", (10_000 + i, "ok"))
    elif k == 2:
        cur.execute(f"UPDATE {t} SET name = ? WHERE id = ?", ("upd", 10_000 + i - 1))
    else:
        cur.execute(f"SELECT id FROM {t} ORDER BY id")
        cur.fetchone()                       # a stream left unfinished


@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "transaction"])
def test_two_thousand_failures_hold_no_more_statements_than_a_clean_loop(emu, autocommit):
    conn = connect(emu, autocommit=autocommit, prepare_cache_size=0)
    t = _table(conn)
    cur = conn.cursor()
    for i in range(LOOPS // 4):
        _clean(cur, t, i)
    cur.close()
    flush(conn)
    clean = emu.unkept(conn)
    cur = conn.cursor()
    counts = []
    for i in range(LOOPS):
        name, fail, cls = FAILURES[i % len(FAILURES)]
        with pytest.raises(cls):
            fail(cur, t)
        if i % 250 == 249:
            flush(conn)
            counts.append(emu.unkept(conn))
    assert not conn.closed
    cur.close()
    flush(conn)
    assert emu.unkept(conn) == clean, counts
    assert max(counts) <= clean + 1, counts
    if not autocommit:
        conn.rollback()
    conn.close()


@pytest.mark.parametrize("name, fail, cls", FAILURES, ids=[f[0] for f in FAILURES])
def test_each_failure_kind_gives_back_its_statement(emu, name, fail, cls):
    conn = connect(emu, autocommit=True, prepare_cache_size=0)
    t = _table(conn)
    flush(conn)
    before = emu.unkept(conn)
    cur = conn.cursor()
    for _ in range(20):
        with pytest.raises(cls):
            fail(cur, t)
    cur.close()
    flush(conn)
    assert emu.unkept(conn) == before
    conn.close()


def test_prepare_cache_keeps_the_held_statements_bounded_through_failures(emu):
    conn = connect(emu, autocommit=True)
    t = _table(conn)
    cur = conn.cursor()
    counts = []
    for i in range(LOOPS):
        name, fail, cls = FAILURES[i % len(FAILURES)]
        with pytest.raises(cls):
            fail(cur, t)
        if i % 250 == 249:
            flush(conn)
            counts.append(emu.open_statements())
    assert max(counts) <= DEFAULT_PREPARE_CACHE + 2, counts
    assert counts[-1] == counts[0], counts       # no growth once every kind ran
    conn.close()


def test_unsupported_column_type_is_refused_and_released(emu, monkeypatch):
    """A result type the driver cannot decode (every type the emulator makes
    decodes since BYTE/TEXT came, so the decoder is made to refuse DATE)."""
    real = ifx.cursor_base.codecs.make_row_decoder

    def refuse_date(types, *args, **kwargs):
        if any(t.code == ifx.TypeCode.DATE for t in types):
            raise ValueError("no row decoding for DATE")
        return real(types, *args, **kwargs)
    monkeypatch.setattr(ifx.cursor_base.codecs, "make_row_decoder", refuse_date)
    conn = connect(emu, autocommit=True, prepare_cache_size=0)
    t = f"ub_{uuid.uuid4().hex[:8]}"
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER, b DATE)")
    flush(conn)
    before = emu.unkept(conn)
    for _ in range(50):
        with pytest.raises(ifx.NotSupportedError):
            cur.execute(f"SELECT id, b FROM {t}")
    cur.execute(f"SELECT id FROM {t}")
    assert cur.fetchall() == []
    flush(conn)
    assert emu.unkept(conn) == before
    conn.close()

"""The behaviour suite both drivers pass: the same tests, parametrized over the
blocking ``connect`` and the asyncio ``connect_async`` (see both_drivers.py)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

import informix_stream as ifx
from both_drivers import AsyncDriver, SyncDriver
from test_driver import unique


@pytest.fixture(params=["sync", "async"])
def drv(request):
    d = SyncDriver() if request.param == "sync" else AsyncDriver()
    yield d
    d.close()


@pytest.fixture
def conn(drv, ifx_target):
    c = drv.connect(ifx_target, autocommit=True)
    yield c
    c.close()


def numbered(conn, n: int) -> str:
    t = unique("both")
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, name VARCHAR(30), "
                "amount DECIMAL(12,2), at DATETIME YEAR TO SECOND)")
    cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?)", (row(i) for i in range(n)))
    assert cur.rowcount == n
    return t


def row(i: int) -> tuple:
    return (i, None if i % 7 == 0 else f"name {i}", Decimal(i) / 4,
            dt.datetime(2024, 1, 1) + dt.timedelta(seconds=i))


def test_stream_with_read_ahead_gives_every_row_once(conn):
    t = numbered(conn, 3000)
    cur = conn.cursor(fetch_buffer_size=600)
    cur.execute(f"SELECT * FROM {t} ORDER BY id")
    assert cur.rowcount == -1
    got = list(cur)
    assert got == [row(i) for i in range(3000)]
    assert cur.rowcount == 3000


def test_fetchmany_fetchone_fetchall_mix(conn):
    t = numbered(conn, 500)
    cur = conn.cursor(fetch_buffer_size=256)
    cur.execute(f"SELECT id FROM {t} WHERE id >= ? ORDER BY id", (100,))
    assert cur.fetchone() == (100,)
    assert cur.fetchmany(3) == [(101,), (102,), (103,)]
    assert cur.fetchall() == [(i,) for i in range(104, 500)]
    assert cur.fetchone() is None


def test_two_streams_interleaved_on_one_connection(conn):
    t = numbered(conn, 800)
    a, b = conn.cursor(fetch_buffer_size=200), conn.cursor(fetch_buffer_size=300)
    a.execute(f"SELECT id FROM {t} ORDER BY id")
    b.execute(f"SELECT id FROM {t} ORDER BY id DESC")
    got_a, got_b = [], []
    for _ in range(800):
        got_a.append(a.fetchone()[0])
        got_b.append(b.fetchone()[0])
    assert got_a == list(range(800)) and got_b == list(range(799, -1, -1))


def test_abandoned_stream_then_new_statement(conn):
    t = numbered(conn, 2000)
    cur = conn.cursor(fetch_buffer_size=200)
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    assert cur.fetchmany(5) == [(i,) for i in range(5)]
    cur.execute(f"SELECT COUNT(*) FROM {t} WHERE id < ?", (17,))
    assert cur.fetchall() == [(17,)]


def test_executemany_failing_row_leaves_exactly_the_rows_before(conn):
    t = numbered(conn, 0)
    cur = conn.cursor()
    cur.execute(f"INSERT INTO {t} (id) VALUES (?)", (57,))
    with pytest.raises(ifx.IntegrityError) as info:
        cur.executemany(f"INSERT INTO {t} (id, name) VALUES (?, ?)",
                        ((i, "x") for i in range(100)), chunk_size=20)
    assert info.value.row_index == 57
    assert cur.rowcount == 57
    cur.execute(f"SELECT COUNT(*), MAX(id) FROM {t} WHERE name = 'x'")
    assert cur.fetchone() == (57, 56)


def test_executemany_batch_errors(conn):
    t = numbered(conn, 0)
    cur = conn.cursor()
    cur.executemany(f"INSERT INTO {t} (id) VALUES (?)", [(3,), (9,)])
    cur.executemany(f"INSERT INTO {t} (id, name) VALUES (?, ?)",
                    ((i, "b") for i in range(12)), chunk_size=5, batch_errors=True)
    assert [e.row_index for e in cur.batch_errors] == [3, 9]
    assert all(isinstance(e, ifx.IntegrityError) for e in cur.batch_errors)
    assert cur.rowcount == 10
    cur.execute(f"SELECT COUNT(*) FROM {t} WHERE name = 'b'")
    assert cur.fetchone() == (10,)


def test_server_error_carries_codes_and_connection_lives(conn):
    cur = conn.cursor()
    with pytest.raises(ifx.ProgrammingError) as info:
        cur.execute("SELECT * FROM no_such_table_here")
    assert info.value.sqlcode == -206
    cur.execute("SELECT COUNT(*) FROM systables WHERE tabid = ?", (1,))
    assert cur.fetchone() == (1,)


def test_transactions_commit_and_rollback(drv, ifx_target):
    c = drv.connect(ifx_target)
    t = numbered(c, 0)
    c.commit()
    cur = c.cursor()
    cur.execute(f"INSERT INTO {t} (id) VALUES (?)", (1,))
    c.rollback()
    cur.execute(f"INSERT INTO {t} (id) VALUES (?)", (2,))
    c.commit()
    cur.execute(f"SELECT id FROM {t}")
    assert cur.fetchall() == [(2,)]
    c.close()


def test_scrollable_and_materializing(conn):
    t = numbered(conn, 50)
    cur = conn.cursor(scrollable=True)
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    assert cur.fetch_last() == (49,)
    assert cur.fetch_first() == (0,)
    assert cur.fetch_absolute(-2) == (48,)
    assert cur.fetch_prior() == (47,)
    m = conn.cursor(materialize=True)
    m.execute(f"SELECT id FROM {t} ORDER BY id")
    assert m.rowcount == 50
    assert len(m.fetchall()) == 50


def test_row_factories(conn):
    t = numbered(conn, 3)
    cur = conn.cursor(row_factory=ifx.dict_row)
    cur.execute(f"SELECT id, name FROM {t} WHERE id = 1")
    assert cur.fetchall() == [{"id": 1, "name": "name 1"}]
    cur = conn.cursor(row_factory=ifx.namedtuple_row)
    cur.execute(f"SELECT id, name FROM {t} WHERE id = 2")
    r = cur.fetchone()
    assert (r.id, r.name) == (2, "name 2")


def test_connection_context_commits_or_rolls_back(drv, ifx_target):
    with drv.connect(ifx_target) as c:
        t = numbered(c, 0)
    with pytest.raises(ZeroDivisionError):
        with drv.connect(ifx_target) as c:
            c.cursor().execute(f"INSERT INTO {t} (id) VALUES (1)")
            1 / 0
    with drv.connect(ifx_target) as c:
        cur = c.cursor()
        cur.execute(f"SELECT COUNT(*) FROM {t}")
        assert cur.fetchone() == (0,)


def test_closed_connection_refuses(drv, ifx_target):
    c = drv.connect(ifx_target)
    c.close()
    assert c.closed
    with pytest.raises(ifx.InterfaceError):
        c.cursor()


def test_row_factories_written_for_informix_driver_work_too(conn):
    """informix-driver calls a row factory with the column names; psycopg with
    the cursor.  Both kinds work here."""
    t = numbered(conn, 2)
    names_style = lambda names: lambda values: dict(zip(names, values))  # noqa: E731
    cursor_style = lambda cur: lambda values: {d[0]: v for d, v in zip(cur.description, values)}  # noqa: E731
    for factory in (names_style, cursor_style):
        cur = conn.cursor(row_factory=factory)
        cur.execute(f"SELECT id, name FROM {t} WHERE id = 1")
        assert cur.fetchall() == [{"id": 1, "name": "name 1"}]


def test_named_parameters_with_a_mapping(conn):
    t = numbered(conn, 10)
    cur = conn.cursor()
    cur.execute(f"SELECT id FROM {t} WHERE id >= :low AND id < :high AND id <> :low + 1 "
                "ORDER BY id", {"low": 3, "high": 6})
    assert cur.fetchall() == [(3,), (5,)]
    cur.executemany(f"UPDATE {t} SET name = :name WHERE id = :id",
                    ({"id": i, "name": f"renamed {i}"} for i in (1, 2)))
    assert cur.rowcount == 2
    cur.execute(f"SELECT name FROM {t} WHERE id IN (:a, :b) ORDER BY name", {"a": 1, "b": 2})
    assert cur.fetchall() == [("renamed 1",), ("renamed 2",)]
    with pytest.raises(ifx.ProgrammingError, match="no value"):
        cur.execute(f"SELECT id FROM {t} WHERE id = :missing", {"other": 1})
    with pytest.raises(ifx.ProgrammingError, match="mapping"):
        cur.execute(f"SELECT id FROM {t} WHERE id = :id", (1,))


def test_marker_like_text_in_literals_is_left_alone(conn):
    t = numbered(conn, 2)
    cur = conn.cursor()
    cur.execute(f"SELECT 'a?b', 'http://h:8080', DATETIME (12:30) HOUR TO MINUTE, id FROM {t} "
                "WHERE id = ?", (1,))
    (q, url, when, id_), = cur.fetchall()
    assert (q, url, id_) == ("a?b", "http://h:8080", 1)
    assert (when.hour, when.minute) == (12, 30)


def test_iteration_resumes_exactly_where_it_stopped(conn):
    t = numbered(conn, 1000)
    cur = conn.cursor(fetch_buffer_size=300)
    cur.execute(f"SELECT id FROM {t} ORDER BY id")
    got = []
    for stop_at in (5, 17, 400, 401, 777):
        for (i,) in cur:
            got.append(i)
            if i == stop_at:
                break
    assert cur.fetchone() == (778,)
    got.append(778)
    got += [r[0] for r in cur.fetchmany(3)]
    got += [r[0] for r in cur]
    assert got == list(range(1000))

"""Issue 14 item 1: executemany through an insert cursor (SQ_PUT blocks).

The path is the default for a plain ``INSERT ... VALUES (?, ...)`` and keeps
executemany's contract (test_executemany_contract.py runs on both paths);
here: that PUT is really what travels, values read back exactly, rows the
insert cursor cannot put exactly go by BIND+EXECUTE in the same chunk, a
failing row in the middle of a block, a generator failing mid-chunk, a
real database without logging, and the forcing switch.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

import informix_stream as ifx
from informix_stream.emulator import session as emsession
from test_driver import connect, unique


@pytest.fixture
def puts(monkeypatch):
    """How many SQ_PUT blocks the emulator inserted whole."""
    seen = []
    done = emsession.Session.put_done

    def spy(w, rows):
        seen.append(rows)
        done(w, rows)
    monkeypatch.setattr(emsession.Session, "put_done", staticmethod(spy))
    return seen


def sales(cur) -> str:
    t = unique("ic")
    cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, sku VARCHAR(32), "
                "amount DECIMAL(12,2), sold DATETIME YEAR TO SECOND, day DATE, note CHAR(8))")
    return t


def row(i: int):
    return (i, f"SKU-{i}" if i % 5 else None, Decimal(i) / 4 if i % 7 else None,
            dt.datetime(2024, 2, 1, 8) + dt.timedelta(seconds=i * 37),
            dt.date(2020, 1, 1) + dt.timedelta(days=i), "ab" if i % 2 else None)


def back(cur, t: str) -> list:
    cur.execute(f"SELECT * FROM {t} ORDER BY id")
    return [(r[0], r[1], r[2], r[3], r[4], None if r[5] is None else r[5].rstrip())
            for r in cur.fetchall()]


def test_put_is_what_travels_and_every_value_reads_back(ifx_target, puts):
    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        t = sales(cur)
        rows = [row(i) for i in range(2500)]
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)", rows, chunk_size=1000)
        assert cur.rowcount == 2500
        assert sum(puts) == 2500 and len(puts) >= 3
        assert back(cur, t) == rows


def test_odd_values_go_by_bind_in_the_same_chunk(ifx_target, puts):
    """A str for an INTEGER, a too-long string, a DECIMAL needing rounding:
    the server converts (or refuses) them exactly as on the bind path."""
    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        t = sales(cur)
        rows = [row(i) for i in range(20)]
        rows[3] = ("3",) + rows[3][1:]
        rows[8] = rows[8][:2] + (Decimal("1.005"),) + rows[8][3:]
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)", rows)
        assert cur.rowcount == 20 and sum(puts) == 18
        cur.execute(f"SELECT id FROM {t} ORDER BY id")
        assert [r[0] for r in cur.fetchall()] == list(range(20))


@pytest.mark.parametrize("autocommit", [True, False])
@pytest.mark.parametrize("k", [1, 17, 999, 1000, 1500])
def test_failing_row_in_the_middle_of_a_block(ifx_target, autocommit, k):
    with connect(ifx_target, autocommit=True) as check, \
            connect(ifx_target, autocommit=autocommit) as c:
        t = sales(check.cursor())
        rows = [row(i) for i in range(2000)]
        rows[k] = (k - 1,) + rows[k][1:]        # a duplicate key
        cur = c.cursor()
        with pytest.raises(ifx.IntegrityError) as info:
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)", rows,
                            chunk_size=1000)
        assert info.value.row_index == k
        c.commit()
        assert back(check.cursor(), t) == rows[:k]
        assert cur.rowcount == k


def test_batch_errors_apply_every_good_row_of_a_failed_block(ifx_target):
    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        t = sales(cur)
        rows = [row(i) for i in range(300)]
        for k in (5, 6, 150, 299):
            rows[k] = (0,) + rows[k][1:]
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)", rows, batch_errors=True)
        assert [e.row_index for e in cur.batch_errors] == [5, 6, 150, 299]
        good = [r for i, r in enumerate(rows) if i not in (5, 6, 150, 299)]
        assert back(cur, t) == sorted(good)
        assert cur.rowcount == len(good)


def test_generator_failing_mid_chunk(ifx_target, puts):
    class Boom(Exception):
        pass

    def source():
        for i in range(1234):
            yield row(i)
        raise Boom

    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        t = sales(cur)
        with pytest.raises(Boom):
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)", source(),
                            chunk_size=1000)
        assert back(cur, t) == [row(i) for i in range(1234)]
        cur.execute("SELECT 1 FROM systables WHERE tabid = 1")
        assert cur.fetchall() == [(1,)]


@pytest.mark.parametrize("k", [13, 10, 49])
def test_database_without_logging(ifx_target, k):
    """Nothing can be undone: the rows before k, and those the error names
    in applied_after (later PUT requests of the chunk), are in the table;
    the rest of the failing block was discarded by the server."""
    name = unique("nolog")
    with connect(ifx_target, autocommit=True) as c:
        c.cursor().execute(f"CREATE DATABASE {name}")
    with ifx.connect(host=ifx_target.host, port=ifx_target.port, user=ifx_target.user,
                     password=ifx_target.password, database=name, server=ifx_target.server,
                     autocommit=True, read_timeout=60) as c:
        assert c.logged is False
        cur = c.cursor()
        cur.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR(20))")
        rows = [(i, "x") for i in range(50)]
        rows[k] = (0, "dup")
        with pytest.raises(ifx.IntegrityError) as info:
            cur.executemany("INSERT INTO t VALUES (?, ?)", rows, chunk_size=10)
        e = info.value
        assert e.row_index == k
        cur.execute("SELECT id FROM t ORDER BY id")
        landed = [r[0] for r in cur.fetchall()]
        assert landed == list(range(k)) + list(getattr(e, "applied_after", None) or [])


def test_forcing_either_path(ifx_target, puts):
    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        t = sales(cur)
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)",
                        [row(i) for i in range(10)], insert_cursor=False)
        assert puts == []
        with pytest.raises(ifx.NotSupportedError):
            cur.executemany(f"UPDATE {t} SET sku = ? WHERE id = ?", [("a", 1)],
                            insert_cursor=True)
        cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?)",
                        [row(i) for i in range(10, 20)], insert_cursor=True)
        assert sum(puts) == 10
        assert back(cur, t) == [row(i) for i in range(20)]


def test_text_the_code_set_cannot_hold_is_a_data_error_on_both_paths(ifx_target):
    # '€' has no byte in ISO-8859-1 (the test database's code set): the put
    # check once let the codec's UnicodeEncodeError escape to the caller.
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        t = unique("ic_cs")
        cur.execute(f"CREATE TABLE {t} (id INTEGER, v VARCHAR(10))")
        for forced in (True, False):
            with pytest.raises(ifx.DataError) as info:
                cur.executemany(f"INSERT INTO {t} VALUES (?, ?)",
                                [(1, "ok"), (2, "5 €")], insert_cursor=forced)
            assert info.value.row_index == 1
        cur.execute(f"SELECT id, v FROM {t}")
        assert cur.fetchall() == [(1, "ok"), (1, "ok")]   # rows[:1] of each call
        cur.execute(f"DROP TABLE {t}")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_double_into_decimal_is_refused_and_the_session_lives(ifx_target, value):
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        t = unique("ic_nan")
        cur.execute(f"CREATE TABLE {t} (d DECIMAL(8,2))")
        with pytest.raises(ifx.DatabaseError) as info:
            cur.execute(f"INSERT INTO {t} VALUES (?)", (value,))
        assert info.value.sqlcode == -1226
        cur.execute(f"SELECT count(*) FROM {t}")
        assert cur.fetchone() == (0,)
        cur.execute(f"DROP TABLE {t}")

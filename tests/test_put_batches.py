"""Issue 14 item 3 end to end: rows encoded a batch and a column at a time
(codec/colencode.py) load exactly what the bind path loads, and the
executemany contract holds across batch boundaries (insert_cursor.BATCH_ROWS):
an unencodable row, a generator failing (that the source is read no
further ahead than one chunk: test_executemany.test_generator_is_consumed_lazily).
tests/unit/test_colencode_differential.py holds the encoder itself
to the row-at-a-time reference.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

import informix_stream as ifx
from informix_stream.insert_cursor import BATCH_ROWS
from test_driver import connect, unique
from test_insert_cursor import puts  # noqa: F401  (the fixture)

COLUMNS = ("id INTEGER, qty SMALLINT, amount DECIMAL(12,2), price MONEY(9,3), "
           "sold DATETIME YEAR TO SECOND, day DATE, code CHAR(6), note VARCHAR(20), "
           "ratio FLOAT")


class Amount(Decimal):
    pass


class Stamp(dt.datetime):
    pass


def row(i: int) -> tuple:
    return (i, (i % 600) - 300 if i % 9 else None,
            Decimal(i * 7919 % 100003) / 100 * (-1 if i % 3 == 0 else 1) if i % 11 else None,
            Decimal(-i) / 1000 if i % 4 else Decimal("0.000"),
            dt.datetime(1999, 12, 31, 23) + dt.timedelta(seconds=i * 3607) if i % 13 else None,
            dt.date(1900, 1, 1) + dt.timedelta(days=i * 5) if i % 17 else None,
            f"c{i % 1000}" if i % 19 else None, f"note {i}" if i % 10 else None,
            i / 7 if i % 23 else None)


def odd(rows: list) -> list:
    """Values the column-wise path must hand to the reference, spread over
    the batches: the server converts, rounds or refuses them as on bind."""
    rows = list(rows)
    changes = {5: (1, True), 1023: (2, Amount("1.25")), 1024: (2, Decimal("1.005")),
               1025: (3, Decimal("-0")), 2047: (7, "x" * 25), 2048: (6, "toolong"),
               2100: (4, Stamp(2020, 1, 1, 12, 30)),   # an aware one is refused:
                                                          # tests/test_zoned_datetimes.py
               2101: (5, dt.datetime(2020, 5, 6)),
               2102: (0, "2102"), 2103: (8, 3), 2104: (2, Decimal("12345678901.5"))}
    for i, (k, value) in changes.items():
        rows[i] = rows[i][:k] + (value,) + rows[i][k + 1:]
    return rows


def table(cur) -> str:
    t = unique("pb")
    cur.execute(f"CREATE TABLE {t} ({COLUMNS})")
    return t


def contents(cur, t: str) -> list:
    cur.execute(f"SELECT * FROM {t} ORDER BY id")
    return cur.fetchall()


def test_both_paths_load_the_same_table(ifx_target, puts):  # noqa: F811
    rows = odd([row(i) for i in range(2 * BATCH_ROWS + 300)])
    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        sql = "INSERT INTO {} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        put, bind = table(cur), table(cur)
        outcomes = []
        for name, path in ((put, True), (bind, False)):
            try:
                cur.executemany(sql.format(name), rows, insert_cursor=path, batch_errors=True)
            except ifx.Error as exc:               # pragma: no cover - reported below
                outcomes.append(exc)
            outcomes.append([(e.row_index, type(e)) for e in cur.batch_errors])
        assert outcomes[0] == outcomes[1]
        assert sum(puts) == len(rows) - 10         # the odd rows went by bind
        # True as SMALLINT ('t' does not convert), too many digits for DECIMAL(12,2);
        # the texts too long are cut by the server on both paths
        assert [i for i, _ in outcomes[0]] == [5, 2104]
        loaded = contents(cur, put)
        assert loaded == contents(cur, bind)
        assert len(loaded) == len(rows) - 2
        by_id = {r[0]: r for r in loaded}
        assert by_id[2047][7] == "x" * 20 and by_id[1023][2] == Decimal("1.25")
        assert by_id[1024][2] == Decimal("1.01") and by_id[1025][3] == Decimal("0")


@pytest.mark.parametrize("k", [BATCH_ROWS - 1, BATCH_ROWS, BATCH_ROWS + 1, 2500])
def test_an_unencodable_row_after_a_batch_boundary(ifx_target, k):
    rows = [row(i) for i in range(3000)]
    rows[k] = rows[k][:2] + (object(),) + rows[k][3:]
    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        t = table(cur)
        with pytest.raises(ifx.DataError) as info:
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        assert info.value.row_index == k
        assert "parameter 3" in str(info.value) and f"row {k}" in str(info.value)
        assert [r[0] for r in contents(cur, t)] == list(range(k))


@pytest.mark.parametrize("fail_at", [BATCH_ROWS, BATCH_ROWS + 7])
def test_a_generator_failing_after_a_full_batch(ifx_target, fail_at):
    class Boom(Exception):
        pass

    read = []

    def source():
        for i in range(fail_at):
            read.append(i)
            yield row(i)
        raise Boom

    with connect(ifx_target, autocommit=True) as c:
        cur = c.cursor()
        t = table(cur)
        with pytest.raises(Boom):
            cur.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", source())
        assert [r[0] for r in contents(cur, t)] == list(range(fail_at))

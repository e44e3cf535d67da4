"""IBM's JDBC driver runs the SQL the emulator used to refuse (issue 11):
writes through views and Informix's nested OUTER joins.  The expected
answers, and where each was learned, are in tests/test_emulator_view_writes.py
and tests/test_emulator_outer_groups.py; here IBM's driver must accept and
decode what the emulator sends (update counts, rows, error codes)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from .jdbc_runner import JdbcClient

Records = list[tuple[str | None, ...]]


def records_of(records: Records, kind: str) -> list[tuple[str | None, ...]]:
    return [r[1:] for r in records if r[0] == kind]


@pytest.mark.interop
def test_jdbc_writes_through_views(jdbc: JdbcClient, ifx_target: Any) -> None:
    t, v, c, a = (f"{p}_{uuid.uuid4().hex[:8]}" for p in ("jt", "jv", "jc", "ja"))
    records = jdbc.run(
        ifx_target, "script",
        f"CREATE TABLE {t} (num INTEGER NOT NULL UNIQUE, name VARCHAR(10), qty INTEGER)",
        f"INSERT INTO {t} VALUES (1, 'ann', 5)",
        f"INSERT INTO {t} VALUES (2, 'bob', 0)",
        f"CREATE VIEW {v} (n, label) AS SELECT num, name FROM {t} WHERE num < 10",
        f"CREATE VIEW {c} AS SELECT num, qty FROM {t} WHERE qty > 0 WITH CHECK OPTION",
        f"CREATE VIEW {a} AS SELECT COUNT(*) AS k FROM {t}",
        f"INSERT INTO {v} VALUES (3, 'cy')",
        f"UPDATE {v} SET label = label || '!' WHERE n >= 2",
        f"@prepare DELETE FROM {v} WHERE n = 2",
        "@run",
        f"INSERT INTO {c} VALUES (4, 0)",                   # outside the view: -385
        f"UPDATE {c} SET qty = qty + 1",
        f"DELETE FROM {a}",                                 # aggregate view: -384
        f"UPDATE {v} SET qty = 1",                          # not the view's column: -217
        f"SELECT num, name, qty FROM {t} ORDER BY num",
        f"DROP TABLE {t}").check().records
    counts = [int(n) for (n,) in records_of(records, "count")]
    # CREATE TABLE, 2 INSERTs, 3 CREATE VIEWs, then the writes through views
    assert counts[6:10] == [1, 2, 1, 1], counts
    assert [e[0] for e in records_of(records, "ERROR")] == ["-385", "-384", "-217"]
    assert records_of(records, "row") == [("1", "ann", "6"), ("3", "cy!", None)]


@pytest.mark.interop
def test_jdbc_reads_nested_informix_outer_joins(jdbc: JdbcClient, ifx_target: Any) -> None:
    c, o, i = (f"{p}_{uuid.uuid4().hex[:8]}" for p in ("oc", "oo", "oi"))
    records = jdbc.run(
        ifx_target, "script",
        f"CREATE TABLE {c} (num INTEGER, lname VARCHAR(10))",
        f"CREATE TABLE {o} (onum INTEGER, cnum INTEGER)",
        f"CREATE TABLE {i} (onum INTEGER, manu CHAR(3), qty SMALLINT)",
        f"INSERT INTO {c} VALUES (1, 'ann')",
        f"INSERT INTO {c} VALUES (2, 'bob')",
        f"INSERT INTO {o} VALUES (10, 1)",
        f"INSERT INTO {o} VALUES (20, 2)",
        f"INSERT INTO {i} VALUES (10, 'KAR', 4)",
        f"SELECT c.lname, o.onum, i.qty FROM {c} c, OUTER ({o} o, {i} i)"
        " WHERE c.num = o.cnum AND o.onum = i.onum ORDER BY 1",
        f"SELECT c.lname, o.onum, i.qty FROM {c} c, OUTER ({o} o, OUTER {i} i)"
        " WHERE c.num = o.cnum AND o.onum = i.onum ORDER BY 1",
        f"SELECT c.lname FROM {c} c, OUTER {o} o, OUTER {i} i"
        " WHERE c.num = o.cnum AND o.onum = i.onum",
        f"DROP TABLE {c}", f"DROP TABLE {o}", f"DROP TABLE {i}").check().records
    assert records_of(records, "row") == [
        ("ann", "10", "4"), ("bob", None, None),          # (o, i) joined first
        ("ann", "10", "4"), ("bob", "20", None)]          # i outer to o
    assert [e[0] for e in records_of(records, "ERROR")] == ["-393"]


@pytest.mark.interop
def test_jdbc_runs_with_before_insert_update_delete(jdbc: JdbcClient, ifx_target: Any) -> None:
    t = f"jw_{uuid.uuid4().hex[:8]}"
    records = jdbc.run(
        ifx_target, "script",
        f"CREATE TABLE {t} (n INTEGER, tag VARCHAR(8))",
        f"WITH r (k) AS (SELECT tabid FROM systables WHERE tabid <= 3)"
        f" INSERT INTO {t} SELECT k, 'new' FROM r",
        f"WITH r (k) AS (SELECT tabid FROM systables WHERE tabid = 2)"
        f" UPDATE {t} SET tag = 'two' WHERE n IN (SELECT k FROM r)",
        f"WITH r (k) AS (SELECT tabid FROM systables WHERE tabid = 1)"
        f" DELETE FROM {t} WHERE n IN (SELECT k FROM r)",
        f"SELECT n, tag FROM {t} ORDER BY n",
        f"DROP TABLE {t}").check().records
    assert [int(n) for (n,) in records_of(records, "count")][1:4] == [3, 1, 1]
    assert records_of(records, "row") == [("2", "two"), ("3", "new")]


@pytest.mark.interop
def test_jdbc_connects_to_sysmaster(jdbc: JdbcClient) -> None:
    """IBM's driver opens database sysmaster (its connect probe then reads
    sysmaster:informix.sysdatabases from sysmaster itself) and reads the
    served tables by their own names."""
    from types import SimpleNamespace

    from informix_stream.emulator import EmulatorServer

    with EmulatorServer(databases=("appdb",)) as srv:
        target = SimpleNamespace(host=srv.host, port=srv.port, user="informix",
                                 password="in4mix", server="informix", database="sysmaster",
                                 kind="emulator")
        records = jdbc.run(target, "query", "SELECT name FROM sysdatabases ORDER BY name",
                           "SELECT dummy FROM sysdual").check().records
    assert [tuple(v.rstrip() for v in r) for r in records_of(records, "row")] == [
        ("appdb",), ("sysmaster",), ("X",)]

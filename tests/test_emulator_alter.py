"""ALTER TABLE, RENAME, MERGE and -201's offset in the emulator (issue 11).

Where each expected answer comes from:
* IBM Informix Guide to SQL: Syntax, "ALTER TABLE": ADD [BEFORE column],
  DROP, MODIFY (converts the rows; "all attributes previously associated
  with the column (default value, single-column check constraint, or
  referential constraint) are dropped"), ADD CONSTRAINT (existing rows
  must satisfy it), DROP CONSTRAINT (dropping a primary key drops the
  referential constraints on it); the clauses fail as a whole.
* Guide to SQL: Reference, "SYSCOLUMNS": colno is the column's position.
* Guide to SQL: Syntax, "RENAME TABLE", "RENAME COLUMN", "RENAME SEQUENCE",
  "RENAME INDEX"; "MERGE statement".
* Codes: IBM JDBC 15.0.1.0 message catalog (sql_en_US.properties): -328
  column exists, -217 column not found, -623 constraint not found, -710
  table dropped/altered/renamed, -1213 character to numeric conversion,
  -391 null into column, -530 check constraint, -525 referential
  constraint, -26095 MERGE row updated twice, -532/-508 TEMP tables, -948
  constraint index rename, -201 syntax error.
* SQ_ERR's offset: ESQL/C Guide, "Errors after a PREPARE statement"
  (sqlca.sqlerrd[4], the offset of the error in the statement text); JDBC
  IfxSqli.receiveError reads it; informix-driver exposes it as exc.offset.
"""

from __future__ import annotations

from typing import Any

import pytest

from informix_stream.emulator.engine import Engine
from informix_stream.emulator.statements import SqlError
from test_driver import connect, unique


@pytest.fixture
def cur(ifx_target):
    with connect(ifx_target, autocommit=True) as conn:
        yield conn.cursor()


@pytest.fixture
def session():
    engine = Engine(["db"])
    s = engine.connect("db")
    try:
        yield s
    finally:
        engine.close()


def _run(s, sql: str, *params: object) -> int:
    """A statement without a result set, run on an engine session."""
    return s.execute(s.prepare(sql), params).rowcount


def _rows(cur: Any, sql: str, *params: object) -> list[tuple]:
    cur.execute(sql, params)
    return cur.fetchall()


def _code(cur: Any, sql: str, *params: object) -> int:
    with pytest.raises(Exception) as info:
        cur.execute(sql, params)
    return info.value.sqlcode


def _columns(cur: Any, table: str) -> list[tuple]:
    return _rows(cur, "SELECT c.colname, c.colno, c.coltype FROM syscolumns c, systables t"
                      " WHERE c.tabid = t.tabid AND t.tabname = ? ORDER BY c.colno", table)


# -- ALTER TABLE ADD / DROP / MODIFY ---------------------------------------------------

def test_add_before_renumbers_and_fills_defaults(cur):
    t = unique("alt")
    cur.execute(f"CREATE TABLE {t} (a INTEGER NOT NULL, b VARCHAR(10) DEFAULT 'x',"
                " c DECIMAL(8,2))")
    cur.execute(f"INSERT INTO {t} VALUES (1, 'one', 1.5)")
    cur.execute(f"INSERT INTO {t} (a) VALUES (2)")
    cur.execute(f"ALTER TABLE {t} ADD (d SMALLINT DEFAULT 7 NOT NULL BEFORE b)")
    cur.execute(f"ALTER TABLE {t} ADD e CHAR(3)")
    assert _rows(cur, f"SELECT * FROM {t} ORDER BY a") == [
        (1, 7, "one", pytest.approx(1.5), None), (2, 7, "x", None, None)]
    assert [d[0] for d in cur.description] == ["a", "d", "b", "c", "e"]
    assert _columns(cur, t) == [("a", 1, 2 | 0x100), ("d", 2, 1 | 0x100), ("b", 3, 13),
                                ("c", 4, 5), ("e", 5, 0)]
    defaults = _rows(cur, "SELECT d.colno, d.type FROM sysdefaults d, systables t"
                          " WHERE d.tabid = t.tabid AND t.tabname = ? ORDER BY 1", t)
    assert defaults == [(2, "L"), (3, "L")]
    assert _rows(cur, "SELECT ncols FROM systables WHERE tabname = ?", t) == [(5,)]
    # The old default still applies to rows inserted after the rebuild.
    cur.execute(f"INSERT INTO {t} (a) VALUES (3)")
    assert _rows(cur, f"SELECT b, d FROM {t} WHERE a = 3") == [("x", 7)]
    assert _code(cur, f"ALTER TABLE {t} ADD (b INTEGER)") == -328
    assert _code(cur, f"ALTER TABLE {t} ADD (z INTEGER BEFORE nosuch)") == -217
    cur.execute(f"DROP TABLE {t}")


def test_drop_columns_takes_their_constraints_and_views(cur):
    t, v = unique("drp"), unique("drv")
    cur.execute(f"CREATE TABLE {t} (a INTEGER, b INTEGER, c CHAR(5),"
                f" UNIQUE (b, c) CONSTRAINT {t}_u, CHECK (b > 0) CONSTRAINT {t}_ck)")
    cur.execute(f"CREATE INDEX {t}_ix ON {t} (c)")
    cur.execute(f"CREATE VIEW {v} AS SELECT a, c FROM {t}")
    cur.execute(f"INSERT INTO {t} VALUES (1, 2, 'x')")
    cur.execute(f"ALTER TABLE {t} DROP (b)")
    assert _rows(cur, f"SELECT * FROM {t}") == [(1, "x    ")]
    assert _columns(cur, t) == [("a", 1, 2), ("c", 2, 0)]
    names = _rows(cur, "SELECT constrname FROM sysconstraints c, systables t"
                       " WHERE c.tabid = t.tabid AND t.tabname = ?", t)
    assert names == []
    assert _rows(cur, "SELECT idxname, part1 FROM sysindexes i, systables t"
                      " WHERE i.tabid = t.tabid AND t.tabname = ?", t) == [(f"{t}_ix", 2)]
    assert _rows(cur, f"SELECT * FROM {v}") == [(1, "x    ")]
    cur.execute(f"INSERT INTO {t} VALUES (2, 'y')")     # the dropped CHECK is gone
    cur.execute(f"ALTER TABLE {t} DROP c")
    assert _code(cur, f"SELECT * FROM {v}") == -206     # the view named c: dropped
    assert _code(cur, f"ALTER TABLE {t} DROP (nosuch)") == -217
    cur.execute(f"DROP TABLE {t}")


def test_modify_converts_rows_or_changes_nothing(cur):
    t = unique("mod")
    cur.execute(f"CREATE TABLE {t} (a INTEGER, b VARCHAR(10) DEFAULT '5' NOT NULL)")
    cur.execute(f"INSERT INTO {t} VALUES (1, '12')")
    cur.execute(f"INSERT INTO {t} VALUES (2, '34')")
    cur.execute(f"ALTER TABLE {t} MODIFY (b INTEGER)")
    assert _rows(cur, f"SELECT * FROM {t} ORDER BY a") == [(1, 12), (2, 34)]
    assert cur.description[1][1] is not None
    # MODIFY drops the column's default and NOT NULL unless stated again.
    assert _columns(cur, t) == [("a", 1, 2), ("b", 2, 2)]
    assert _rows(cur, "SELECT count(*) FROM sysdefaults d, systables t"
                      " WHERE d.tabid = t.tabid AND t.tabname = ?", t) == [(0,)]
    cur.execute(f"ALTER TABLE {t} MODIFY (b VARCHAR(10))")
    cur.execute(f"INSERT INTO {t} VALUES (3, 'abc')")
    assert _code(cur, f"ALTER TABLE {t} MODIFY (b INTEGER)") == -1213
    assert _rows(cur, f"SELECT b FROM {t} ORDER BY a") == [("12",), ("34",), ("abc",)]
    assert _columns(cur, t)[1] == ("b", 2, 13)
    cur.execute(f"INSERT INTO {t} (a) VALUES (4)")
    assert _code(cur, f"ALTER TABLE {t} MODIFY (b VARCHAR(10) NOT NULL)") == -391
    assert _rows(cur, f"SELECT count(*) FROM {t}") == [(4,)]
    cur.execute(f"DROP TABLE {t}")


def test_alter_keeps_row_images_serials_and_blobs(cur):
    t = unique("img")
    cur.execute(f"CREATE TABLE {t} (id SERIAL, n DECIMAL(20), d DATE, x TEXT)")
    cur.execute(f"INSERT INTO {t} (n, d, x) VALUES (12345678901234567890, '2024-01-02', ?)",
                ("text body",))
    cur.execute(f"INSERT INTO {t} (n) VALUES (1)")
    cur.execute(f"DELETE FROM {t} WHERE id = 2")
    cur.execute(f"ALTER TABLE {t} ADD (k INTEGER BEFORE n)")
    rows = _rows(cur, f"SELECT id, k, n, d, x FROM {t}")
    assert len(rows) == 1 and rows[0][0] == 1 and rows[0][1] is None
    assert str(rows[0][2]) == "12345678901234567890" and str(rows[0][3]) == "2024-01-02"
    assert rows[0][4] in ("text body", b"text body")
    cur.execute(f"INSERT INTO {t} (k) VALUES (5)")
    assert _rows(cur, f"SELECT id FROM {t} WHERE k = 5") == [(3,)]   # SERIAL moves on
    cur.execute(f"DROP TABLE {t}")


# -- constraints ------------------------------------------------------------------------

def test_add_and_drop_constraints_check_existing_rows(cur):
    p, c = unique("cp"), unique("cc")
    cur.execute(f"CREATE TABLE {p} (k INTEGER, v INTEGER)")
    cur.execute(f"INSERT INTO {p} VALUES (1, 1)")
    cur.execute(f"INSERT INTO {p} VALUES (1, -1)")
    assert _code(cur, f"ALTER TABLE {p} ADD CONSTRAINT PRIMARY KEY (k)") == -371
    assert _code(cur, f"ALTER TABLE {p} ADD CONSTRAINT CHECK (v > 0)") == -530
    cur.execute(f"DELETE FROM {p} WHERE v = -1")
    cur.execute(f"ALTER TABLE {p} ADD CONSTRAINT PRIMARY KEY (k) CONSTRAINT {p}_pk,"
                f" ADD CONSTRAINT CHECK (v > 0) CONSTRAINT {p}_ck")
    assert _code(cur, f"INSERT INTO {p} VALUES (1, 5)") == -268
    assert _code(cur, f"INSERT INTO {p} VALUES (2, 0)") == -530
    cur.execute(f"CREATE TABLE {c} (id INTEGER, k INTEGER)")
    cur.execute(f"INSERT INTO {c} VALUES (1, 9)")
    assert _code(cur, f"ALTER TABLE {c} ADD CONSTRAINT FOREIGN KEY (k) REFERENCES {p}") == -525
    cur.execute(f"UPDATE {c} SET k = 1")
    cur.execute(f"ALTER TABLE {c} ADD CONSTRAINT FOREIGN KEY (k) REFERENCES {p}"
                f" CONSTRAINT {c}_fk")
    assert _code(cur, f"INSERT INTO {c} VALUES (2, 9)") == -691
    assert _code(cur, f"ALTER TABLE {p} DROP CONSTRAINT nosuch") == -623
    # Dropping the primary key drops the referential constraint on it.
    cur.execute(f"ALTER TABLE {p} DROP CONSTRAINT {p}_pk")
    cur.execute(f"INSERT INTO {c} VALUES (2, 9)")
    assert _rows(cur, "SELECT count(*) FROM sysreferences") == [(0,)] or \
        _rows(cur, "SELECT count(*) FROM sysconstraints WHERE constrname = ?", f"{c}_fk") \
        == [(0,)]
    cur.execute(f"ALTER TABLE {p} DROP CONSTRAINT {p}_ck")
    cur.execute(f"INSERT INTO {p} VALUES (3, 0)")
    cur.execute(f"DROP TABLE {c}")
    cur.execute(f"DROP TABLE {p}")


def test_a_parent_rebuilt_keeps_enforcing_its_children(cur):
    p, c = unique("rp"), unique("rc")
    cur.execute(f"CREATE TABLE {p} (k INTEGER PRIMARY KEY, v CHAR(2))")
    cur.execute(f"CREATE TABLE {c} (k INTEGER REFERENCES {p} ON DELETE CASCADE)")
    cur.execute(f"INSERT INTO {p} VALUES (1, 'a')")
    cur.execute(f"INSERT INTO {c} VALUES (1)")
    cur.execute(f"ALTER TABLE {p} ADD (w INTEGER BEFORE v)")
    cur.execute(f"ALTER TABLE {c} ADD (z INTEGER)")
    assert _code(cur, f"INSERT INTO {c} VALUES (2, 0)") == -691
    cur.execute(f"DELETE FROM {p} WHERE k = 1")
    assert _rows(cur, f"SELECT count(*) FROM {c}") == [(0,)]
    cur.execute(f"DROP TABLE {c}")
    cur.execute(f"DROP TABLE {p}")


# -- atomicity, stale statements, refusals ------------------------------------------------

def test_rollback_undoes_alter(ifx_target):
    t = unique("rb")
    with connect(ifx_target) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {t} (a INTEGER, b CHAR(2))")
        cur.execute(f"INSERT INTO {t} VALUES (1, 'x')")
        conn.commit()
        cur.execute(f"ALTER TABLE {t} DROP (b)")
        cur.execute(f"ALTER TABLE {t} ADD (c INTEGER DEFAULT 4)")
        assert _rows(cur, f"SELECT * FROM {t}") == [(1, 4)]
        conn.rollback()
        assert _rows(cur, f"SELECT * FROM {t}") == [(1, "x ")]
        assert _columns(cur, t) == [("a", 1, 2), ("b", 2, 0)]
        cur.execute(f"DROP TABLE {t}")
        conn.commit()


def test_a_failing_clause_undoes_the_earlier_ones(cur):
    t = unique("one")
    cur.execute(f"CREATE TABLE {t} (a INTEGER, b CHAR(2))")
    cur.execute(f"INSERT INTO {t} VALUES (1, 'x')")
    assert _code(cur, f"ALTER TABLE {t} ADD (c INTEGER), DROP (nosuch)") == -217
    assert _rows(cur, f"SELECT * FROM {t}") == [(1, "x ")]
    assert _columns(cur, t) == [("a", 1, 2), ("b", 2, 0)]
    cur.execute(f"DROP TABLE {t}")


def test_statement_prepared_before_alter_gets_710(session):
    """A statement prepared before ALTER/RENAME and run after fails with
    -710 (never rows in the old shape); prepared again it sees the new one."""
    _run(session, "CREATE TABLE t (a INTEGER, b CHAR(2))")
    _run(session, "INSERT INTO t VALUES (1, 'x')")
    select = session.prepare("SELECT * FROM t")
    insert = session.prepare("INSERT INTO t VALUES (?, ?)")
    _run(session, "ALTER TABLE t ADD (c INTEGER)")
    for stmt in (select, insert):
        with pytest.raises(SqlError) as info:
            session.check_current(stmt)
        assert info.value.sqlcode == -710
    assert [c.name for c in session.prepare("SELECT * FROM t").columns] == ["a", "b", "c"]
    again = session.prepare("SELECT * FROM t")
    _run(session, "RENAME COLUMN t.c TO d")
    with pytest.raises(SqlError) as info:
        session.check_current(again)
    assert info.value.sqlcode == -710


def test_uncommitted_alter_locks_the_table_for_other_sessions(ifx_target):
    """The server holds an exclusive lock on a table ALTERed in an open
    transaction; another session's statement on it gets a lock error
    (-244 with ISAM -107 for a read) instead of rows of either shape, and
    works again once the transaction ends."""
    t = unique("lk")
    with connect(ifx_target) as a, connect(ifx_target, autocommit=True) as b:
        ca, cb = a.cursor(), b.cursor()
        ca.execute(f"CREATE TABLE {t} (x INTEGER, y CHAR(2))")
        ca.execute(f"INSERT INTO {t} VALUES (1, 'p')")
        a.commit()
        assert _rows(cb, f"SELECT * FROM {t}") == [(1, "p ")]
        ca.execute(f"ALTER TABLE {t} DROP (y)")
        with pytest.raises(Exception) as info:
            cb.execute(f"SELECT * FROM {t}")
            cb.fetchall()
        assert (info.value.sqlcode, info.value.isam_code) == (-244, -107)
        a.rollback()
        assert _rows(cb, f"SELECT * FROM {t}") == [(1, "p ")]
        ca.execute(f"ALTER TABLE {t} DROP (y)")
        a.commit()
        assert _rows(cb, f"SELECT * FROM {t}") == [(1,)]
        ca.execute(f"DROP TABLE {t}")
        a.commit()


@pytest.mark.parametrize("put", [True, False])
def test_alter_while_an_executemany_is_encoding(ifx_target, put):
    """Another session ALTERs the table after our executemany prepared its
    INSERT and before it sent the rows: the rows are refused with -710
    (insert cursor or BIND+EXECUTE alike), never stored with row images of
    the old shape, which would read back as other values."""
    t = unique("em")
    with connect(ifx_target, autocommit=True) as a, connect(ifx_target) as b:
        a.cursor().execute(f"CREATE TABLE {t} (k INTEGER, v CHAR(2))")

        def rows():
            yield (1, "a")
            a.cursor().execute(f"ALTER TABLE {t} ADD (z INTEGER DEFAULT 5)")
            yield (2, "b")

        with pytest.raises(Exception) as info:
            b.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?)", rows(),
                                   **({} if put else {"insert_cursor": False}))
        assert info.value.sqlcode == -710
        b.rollback()
        b.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?, ?)", [(3, "c", 7)])
        b.commit()
        assert _rows(a.cursor(), f"SELECT * FROM {t}") == [(3, "c ", 7)]
        a.cursor().execute(f"DROP TABLE {t}")


def test_alter_waits_for_a_chunked_executemany(ifx_target):
    """An ALTER from another session while a chunked executemany runs:
    either the executemany's transaction already holds the table and the
    ALTER gets the lock error (-242, ISAM -106 non-exclusive access: IBM's
    finderr -106, emulator/table_use.py), the rows keeping their
    shape, or the ALTER came first and the executemany's next rows get
    -710 (or the lock error of the table being altered).  Which one depends on how far the pipelined chunks got; rows of
    the old shape in the new table are never an outcome."""
    t = unique("ec")
    with connect(ifx_target, autocommit=True) as a, connect(ifx_target, autocommit=True) as b:
        a.cursor().execute(f"CREATE TABLE {t} (k INTEGER, v CHAR(2))")
        seen = []

        def rows():
            for k in range(40):
                yield (k, "a")
            try:
                a.cursor().execute(f"ALTER TABLE {t} DROP (v)")
            except Exception as exc:
                seen.append((exc.sqlcode, exc.isam_code))
                raise

        with pytest.raises(Exception) as info:
            b.cursor().executemany(f"INSERT INTO {t} VALUES (?, ?)", rows(), chunk_size=10)
        got = _rows(a.cursor(), f"SELECT * FROM {t} ORDER BY k")
        if seen:
            assert seen == [(-242, -106)]
            assert all(r[1:] == ("a ",) for r in got)
        else:
            # Stale (-710), or it met the ALTER's lock on the table (-271/-107).
            assert (info.value.sqlcode, info.value.isam_code) in ((-710, 0), (-271, -107)), \
                repr(info.value)
            assert all(len(r) == 1 for r in got)
        a.cursor().execute(f"DROP TABLE {t}")


def test_refusals(cur):
    t = unique("ref")
    cur.execute(f"CREATE TEMP TABLE {t} (a INTEGER)")
    assert _code(cur, f"ALTER TABLE {t} ADD (b INTEGER)") == -532
    assert _code(cur, f"RENAME TABLE {t} TO {t}x") == -508
    assert _code(cur, f"RENAME COLUMN {t}.a TO b") == -509
    cur.execute(f"DROP TABLE {t}")
    assert _code(cur, "ALTER TABLE systables ADD (x INTEGER)") == -312
    assert _code(cur, "RENAME TABLE systables TO x") == -584
    assert _code(cur, "ALTER TABLE nosuch_table ADD (x INTEGER)") == -206
    cur.execute(f"CREATE TABLE {t} (a INTEGER, b INTEGER)")
    cur.execute(f"INSERT INTO {t} VALUES (1, 2)")
    # Guide to SQL: Syntax, ADD clause: no SERIAL column once the table has rows.
    assert _code(cur, f"ALTER TABLE {t} ADD (s SERIAL)") == -287
    cur.execute(f"DELETE FROM {t}")
    cur.execute(f"ALTER TABLE {t} ADD (s SERIAL, s8 SERIAL8)")
    assert _code(cur, f"ALTER TABLE {t} ADD (s2 BIGSERIAL)") == -362
    cur.execute(f"INSERT INTO {t} (a, b) VALUES (1, 2)")
    assert _rows(cur, f"SELECT s, s8 FROM {t}") == [(1, 1)]
    assert _code(cur, f"ALTER TABLE {t} DROP (a, b, s, s8)") == -370
    assert _code(cur, "ALTER INDEX nosuch TO CLUSTER") == -9999      # the emulator lacks it
    cur.execute(f"DROP TABLE {t}")


def test_a_kept_check_keeps_its_constrid(cur):
    t = unique("ck")
    cur.execute(f"CREATE TABLE {t} (a INTEGER CHECK (a > 0), b INTEGER)")
    before = _rows(cur, "SELECT c.constrid, c.constrname FROM sysconstraints c, systables t"
                        " WHERE c.tabid = t.tabid AND t.tabname = ? AND c.constrtype = 'C'", t)
    cur.execute(f"ALTER TABLE {t} DROP (b)")
    after = _rows(cur, "SELECT c.constrid, c.constrname FROM sysconstraints c, systables t"
                       " WHERE c.tabid = t.tabid AND t.tabname = ? AND c.constrtype = 'C'", t)
    assert after == before and len(after) == 1
    assert _code(cur, f"INSERT INTO {t} VALUES (0)") == -530
    cur.execute(f"DROP TABLE {t}")


# -- RENAME ---------------------------------------------------------------------------------

def test_rename_table_and_column_keep_constraints_and_views(cur):
    p, c, v = unique("np"), unique("nc"), unique("nv")
    cur.execute(f"CREATE TABLE {p} (k INTEGER PRIMARY KEY, v CHAR(3))")
    cur.execute(f"CREATE TABLE {c} (k INTEGER REFERENCES {p})")
    cur.execute(f"CREATE VIEW {v} AS SELECT k, v FROM {p}")
    cur.execute(f"INSERT INTO {p} VALUES (1, 'a')")
    cur.execute(f"RENAME TABLE {p} TO {p}2")
    assert _code(cur, f"SELECT * FROM {p}") == -206
    assert _rows(cur, f"SELECT * FROM {p}2") == [(1, "a  ")]
    assert _rows(cur, f"SELECT * FROM {v}") == [(1, "a  ")]
    assert _code(cur, f"INSERT INTO {c} VALUES (5)") == -691
    cur.execute(f"INSERT INTO {c} VALUES (1)")
    assert _code(cur, f"DELETE FROM {p}2") == -692
    cur.execute(f"RENAME COLUMN {p}2.k TO kk")
    assert _columns(cur, f"{p}2")[0] == ("kk", 1, 2 | 0x100)
    assert _rows(cur, f"SELECT kk FROM {p}2") == [(1,)]
    assert _code(cur, f"DELETE FROM {p}2") == -692
    assert _rows(cur, f"SELECT * FROM {v}") == [(1, "a  ")]
    text = "".join(t for (t,) in _rows(
        cur, "SELECT v.viewtext FROM sysviews v, systables t WHERE v.tabid = t.tabid"
             " AND t.tabname = ? ORDER BY v.seqno", v)).rstrip()
    # Guide to SQL: Syntax, RENAME TABLE: the server updates the view's text.
    assert text == f"CREATE VIEW {v} AS SELECT kk, v FROM {p}2"
    assert _code(cur, f"RENAME COLUMN {p}2.v TO kk") == -328
    assert _code(cur, f"RENAME TABLE {c} TO {p}2") == -310
    cur.execute(f"DROP TABLE {c}")
    cur.execute(f"DROP TABLE {p}2")


def test_rename_sequence_and_index(cur):
    s, t = unique("sq"), unique("ix")
    cur.execute(f"CREATE SEQUENCE {s} START WITH 10")
    assert _rows(cur, f"SELECT {s}.NEXTVAL FROM systables WHERE tabid = 1") == [(10,)]
    cur.execute(f"RENAME SEQUENCE {s} TO {s}b")
    assert _rows(cur, f"SELECT {s}b.NEXTVAL FROM systables WHERE tabid = 1") == [(11,)]
    assert _rows(cur, "SELECT count(*) FROM systables WHERE tabname = ?", s) == [(0,)]
    cur.execute(f"CREATE TABLE {t} (a INTEGER, b INTEGER PRIMARY KEY CONSTRAINT {t}_pk)")
    cur.execute(f"CREATE UNIQUE INDEX {t}_i ON {t} (a)")
    cur.execute(f"RENAME INDEX {t}_i TO {t}_j")
    assert _rows(cur, "SELECT idxname, idxtype FROM sysindexes WHERE idxname LIKE ?",
                 f"{t}_%") == [(f"{t}_j", "U"), (f"{t}_pk", "U")]
    cur.execute(f"INSERT INTO {t} VALUES (1, 1)")
    assert _code(cur, f"INSERT INTO {t} VALUES (1, 2)") == -239
    assert _code(cur, f"RENAME INDEX {t}_pk TO x") == -948
    assert _code(cur, f"RENAME INDEX {t}_nosuch TO x") == -319
    cur.execute(f"DROP TABLE {t}")
    cur.execute(f"DROP SEQUENCE {s}b")


# -- MERGE ------------------------------------------------------------------------------------

def _merge_tables(cur: Any) -> tuple[str, str]:
    t, s = unique("mt"), unique("ms")
    cur.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, qty INTEGER NOT NULL,"
                " note VARCHAR(10))")
    cur.execute(f"CREATE TABLE {s} (id INTEGER, qty INTEGER)")
    for row in ((1, 10, "a"), (2, 20, "b"), (3, 30, "c")):
        cur.execute(f"INSERT INTO {t} VALUES (?, ?, ?)", row)
    for row in ((2, 5), (3, 6), (4, 7)):
        cur.execute(f"INSERT INTO {s} VALUES (?, ?)", row)
    return t, s


def test_merge_update_and_insert_reports_rows_merged(cur):
    t, s = _merge_tables(cur)
    cur.execute(f"MERGE INTO {t} AS t USING {s} AS s ON t.id = s.id"
                " WHEN MATCHED THEN UPDATE SET qty = t.qty + s.qty, note = ?"
                " WHEN NOT MATCHED THEN INSERT (id, qty, note) VALUES (s.id, s.qty, 'new')",
                ("upd",))
    assert cur.rowcount == 3
    assert _rows(cur, f"SELECT * FROM {t} ORDER BY id") == [
        (1, 10, "a"), (2, 25, "upd"), (3, 36, "upd"), (4, 7, "new")]
    cur.execute(f"MERGE INTO {t} USING (SELECT id FROM {s} WHERE qty < 7) AS x"
                f" ON {t}.id = x.id WHEN MATCHED THEN DELETE")
    assert cur.rowcount == 2
    assert _rows(cur, f"SELECT id FROM {t} ORDER BY id") == [(1,), (4,)]
    cur.execute(f"DROP TABLE {t}")
    cur.execute(f"DROP TABLE {s}")


def test_merge_is_atomic_and_refuses_double_updates(cur):
    t, s = _merge_tables(cur)
    # The NOT MATCHED row breaks NOT NULL: the matched updates are undone too.
    assert _code(cur, f"MERGE INTO {t} t USING {s} s ON t.id = s.id"
                      " WHEN MATCHED THEN UPDATE SET qty = 0"
                      " WHEN NOT MATCHED THEN INSERT (id, qty) VALUES (s.id, NULL)") == -391
    assert _rows(cur, f"SELECT qty FROM {t} ORDER BY id") == [(10,), (20,), (30,)]
    cur.execute(f"INSERT INTO {s} VALUES (2, 99)")
    assert _code(cur, f"MERGE INTO {t} t USING {s} s ON t.id = s.id"
                      " WHEN MATCHED THEN UPDATE SET qty = s.qty") == -26095
    assert _rows(cur, f"SELECT qty FROM {t} ORDER BY id") == [(10,), (20,), (30,)]
    assert _code(cur, f"MERGE INTO {t} t USING {s} s ON t.id = s.id"
                      " WHEN NOT MATCHED THEN INSERT (id, qty) VALUES (1, 1)") == -268
    assert _rows(cur, f"SELECT count(*) FROM {t}") == [(3,)]
    cur.execute(f"DROP TABLE {t}")
    cur.execute(f"DROP TABLE {s}")


# -- -201 with its offset -----------------------------------------------------------------------

@pytest.mark.parametrize("sql, offset", [
    ("SELEC * FROM systables", 5),                 # the unknown first word
    ("SELECT * FROM systables WHERE", 29),         # incomplete: the end of the text
    ("ALTER TABLE systables FROB x", 26),          # the word that is not a clause
    ("CREATE TABLE x (a INTEGER FROB)", 30),
    ("SELECT a # b FROM systables", 10),           # a character Informix has no token for
    ("INSERT INTO systables VALUES 1", 30),        # VALUES without its parenthesis
    ("UPDATE systables SET tabname 'x'", 32),
    ("CREATE INDEX ix systables (tabid)", 25),
    ("CREATE VIEW v SELECT 1 FROM systables", 20),
    ("MERGE INTO systables USING systables s ON 1 = 1 WHEN GONE", 57),
])
def test_syntax_errors_carry_their_offset(cur, sql, offset):
    with pytest.raises(Exception) as info:
        cur.execute(sql)
    assert info.value.sqlcode == -201
    assert info.value.offset == offset

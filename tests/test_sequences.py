"""Sequence objects (issue 11 item 2): CREATE/DROP SEQUENCE, NEXTVAL, CURRVAL.

Expected behaviour from IBM Informix Guide to SQL: Syntax ("CREATE SEQUENCE",
"NEXTVAL and CURRVAL operators": values are INT8; NEXTVAL is not undone by
a rollback; CURRVAL is per session and undefined before the session's first
NEXTVAL) and the codes from IBM's message catalog (JDBC 15.0.1.0,
sql_en_US.properties): -8301 exists, -8313 past MAXVALUE, -8315 CURRVAL not
yet defined, -8317 a sequence in a FROM clause.
"""

from __future__ import annotations

import pytest

import informix_stream as ifx
from test_driver import connect, theirs, unique

ONE_ROW = "FROM systables WHERE tabid = 1"


@pytest.fixture
def seq(ifx_target):
    name = unique("seq")
    with connect(ifx_target, autocommit=True) as c:
        c.cursor().execute(f"CREATE SEQUENCE {name} START WITH 10 INCREMENT BY 5 MAXVALUE 30")
    yield name
    with connect(ifx_target, autocommit=True) as c:
        c.cursor().execute(f"DROP SEQUENCE IF EXISTS {name}")


def value(cur, sql):
    cur.execute(sql)
    return cur.fetchone()[0]


def test_nextval_currval_per_session(ifx_target, seq):
    a = connect(ifx_target, autocommit=True).cursor()
    b = connect(ifx_target, autocommit=True).cursor()
    with pytest.raises(ifx.ProgrammingError) as info:
        value(a, f"SELECT {seq}.CURRVAL {ONE_ROW}")
    assert info.value.sqlcode == -8315
    assert value(a, f"SELECT {seq}.NEXTVAL {ONE_ROW}") == 10
    assert a.description[0][1] == ifx.NUMBER and a.description[0][1] == 17   # INT8
    assert value(b, f"SELECT {seq}.NEXTVAL {ONE_ROW}") == 15
    assert value(a, f"SELECT {seq}.CURRVAL {ONE_ROW}") == 10          # a's own last value
    assert value(b, f"SELECT {seq}.CURRVAL {ONE_ROW}") == 15
    a.connection.close()
    b.connection.close()


def test_nextval_is_not_undone_by_rollback_and_stops_at_maxvalue(ifx_target, seq):
    c = connect(ifx_target)
    cur = c.cursor()
    t = unique("seqt")
    cur.execute(f"CREATE TABLE {t} (id INT8, v INTEGER)")
    c.commit()
    cur.execute(f"INSERT INTO {t} VALUES ({seq}.NEXTVAL, 1)")
    c.rollback()
    assert value(cur, f"SELECT {seq}.NEXTVAL {ONE_ROW}") == 15          # 10 stays used
    cur.execute(f"INSERT INTO {t} VALUES ({seq}.NEXTVAL, 2)")
    c.commit()
    assert value(cur, f"SELECT id FROM {t}") == 20
    assert [value(cur, f"SELECT {seq}.NEXTVAL {ONE_ROW}") for _ in range(2)] == [25, 30]
    with pytest.raises(ifx.ProgrammingError) as info:
        value(cur, f"SELECT {seq}.NEXTVAL {ONE_ROW}")
    assert info.value.sqlcode == -8313
    cur.execute(f"DROP TABLE {t}")
    c.commit()
    c.close()


def test_sequence_in_the_catalog_and_its_errors(ifx_target, seq):
    cur = connect(ifx_target, autocommit=True).cursor()
    cur.execute("SELECT tabtype FROM systables WHERE tabname = ?", (seq,))
    assert cur.fetchall() == [("Q",)]
    cur.execute("SELECT start_val, inc_val, max_val FROM syssequences s, systables t"
                " WHERE s.tabid = t.tabid AND t.tabname = ?", (seq,))
    assert cur.fetchall() == [(10, 5, 30)]
    for sql, code in [(f"CREATE SEQUENCE {seq}", -8301), (f"SELECT * FROM {seq}", -8317),
                      (f"CREATE SEQUENCE {unique('z')} INCREMENT BY 0", -8305)]:
        with pytest.raises(ifx.ProgrammingError) as info:
            cur.execute(sql)
        assert info.value.sqlcode == code, sql
    cur.execute(f"DROP SEQUENCE {seq}")
    cur.execute("SELECT count(*) FROM systables WHERE tabname = ?", (seq,))
    assert cur.fetchall() == [(0,)]
    cur.connection.close()


def test_two_nextvals_of_one_sequence_in_a_statement_are_refused_not_answered_wrong(
        ifx_target, seq):
    """Informix gives every NEXTVAL of a sequence in one statement the same
    value; the emulator does not implement that and says so."""
    cur = connect(ifx_target, autocommit=True).cursor()
    with pytest.raises(ifx.NotSupportedError) as info:
        cur.execute(f"SELECT {seq}.NEXTVAL, {seq}.NEXTVAL {ONE_ROW}")
    assert "not supported by the emulator" in str(info.value)
    cur.connection.close()


def test_informix_driver_reads_sequence_values(ifx_target, seq):
    conn = theirs(ifx_target, autocommit=True)
    cur = conn.cursor()
    cur.execute(f"SELECT {seq}.NEXTVAL {ONE_ROW}")
    assert cur.fetchall() == [(10,)]
    cur.execute(f"SELECT {seq}.CURRVAL {ONE_ROW}")
    assert cur.fetchall() == [(10,)]
    conn.close()

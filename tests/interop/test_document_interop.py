"""Interop for JSON and BSON columns (issue 12 item 4; emulator/documents.py,
docs/protocol.md 10.8): IBM's JDBC reads JSON as text (getString) and BSON as
bytes (getBytes), inserts them with setString / setBytes and setObject, and
it and our driver read the same values through the emulator."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from test_driver import connect


pytestmark = pytest.mark.timeout(240)

DOC = bytes.fromhex("0c0000001061000100000000")      # {"a": 1} as BSON
JDBC_DOC = bytes.fromhex("0c0000001062000200000000")  # {"b": 2}, what the Java side binds


@pytest.fixture
def table(ifx_target: Any):
    name = f"doc_{uuid.uuid4().hex[:10]}"
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"CREATE TABLE {name} (id INT, j JSON, b BSON)")
        cur.execute(f"INSERT INTO {name} VALUES (?, ?, ?)", (1, '{"a": "é"}', DOC))
        cur.execute(f"INSERT INTO {name} VALUES (2, NULL, NULL)")
    yield name
    with connect(ifx_target, autocommit=True) as conn:
        conn.cursor().execute(f"DROP TABLE {name}")


def _both(jdbc: Any, target: Any, table: str) -> tuple[list, list]:
    """JDBC's records (it inserts rows 10 and 11 first), then our driver's rows."""
    records = jdbc.run(target, "documents", table).check().records
    with connect(target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT id, j, b FROM {table} ORDER BY id")
        return records, cur.fetchall()


def test_jdbc_and_our_driver_read_and_write_the_same_documents(
        jdbc: Any, ifx_target: Any, table: str) -> None:
    records, ours = _both(jdbc, ifx_target, table)
    assert ("insert", "setString/setBytes", "1") in records
    assert ("insert", "setObject", "1") in records
    # JDBC describes them as opaque types named as IfxTypes names them
    assert ("meta", "2000", "json", "2000", "bson") in records
    docs = {int(r[1]): r[2:] for r in records if r[0] == "doc"}
    assert sorted(docs) == [row[0] for row in ours] == [1, 2, 10, 11]
    for row_id, j, b in ours:
        text, hexed, jclass, bclass, jobject, bobject = docs[row_id]
        assert hexed == (None if b is None else b.hex())         # getBytes
        if j is None:
            assert (text, jclass, bclass) == (None, "NULL", "NULL")
            continue
        assert (jclass, bclass) == ("java.lang.String", "com.informix.jdbc.IfxBSONObject")
        if j.isascii():
            assert text == jobject == j                           # getString, getObject
    assert ours[2][1:] == ('{"k": "café"}', JDBC_DOC)             # what JDBC bound, stored
    assert ours[3][1:] == ('{"n": [1, 2]}', JDBC_DOC)
    assert docs[1][5] == '{ "a" : 1 }'                           # IfxBSONObject parsed DOC


# IBM's JDBC decodes a JSON value's bytes in the database's code set (8859-1
# here): the emulator and our driver follow it (docs/protocol.md 10.8).
def test_jdbc_reads_non_ascii_json_as_our_driver_does(
        jdbc: Any, ifx_target: Any, table: str) -> None:
    records, ours = _both(jdbc, ifx_target, table)
    docs = {int(r[1]): r[2] for r in records if r[0] == "doc"}
    assert [docs[row_id] for row_id, _j, _b in ours] == [j for _id, j, _b in ours]

"""IBM's JDBC driver on what issue 15's compliance-suite fixes added to the
emulator: CREATE TABLE ... AS SELECT (ids_sqs_0403) reported as an update
count, a CASE of BOOLEAN results read as a boolean, FLOOR/CEIL as DECIMAL
(ids_sqs_1475/1474), a scalar subquery typed as its column."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from .jdbc_runner import JdbcClient


@pytest.mark.interop
def test_jdbc_reads_create_table_as_select_and_typed_expressions(jdbc: JdbcClient,
                                                               ifx_target: Any) -> None:
    s, d = f"js_{uuid.uuid4().hex[:8]}", f"jd_{uuid.uuid4().hex[:8]}"
    records = jdbc.run(
        ifx_target, "script",
        f"CREATE TABLE {s} (id INTEGER, name VARCHAR(20), value INTEGER)",
        f"INSERT INTO {s} VALUES (1, 'alice', 100)",
        f"INSERT INTO {s} VALUES (2, 'bob', 200)",
        f"CREATE TABLE {d} AS SELECT id, name FROM {s} WHERE value > 100",
        f"SELECT id, name FROM {d}",
        f"SELECT CASE WHEN id = 1 THEN 't'::BOOLEAN ELSE 'f'::BOOLEAN END AS flag, "
        f"FLOOR(value / 3) AS fl, CEIL(value / 3) AS ce, "
        f"(SELECT MAX(x.name) FROM {s} x) AS top FROM {s} ORDER BY id",
        f"DROP TABLE {d}", f"DROP TABLE {s}").check().records
    assert [r for r in records if r[0] == "ERROR"] == []
    counts = [r[1] for r in records if r[0] == "count"]
    assert counts[:4] == ["0", "1", "1", "1"]      # CREATE, 2 INSERTs, CTAS's one row
    rows = [r[1:] for r in records if r[0] == "row"]
    # JDBC getString of a BOOLEAN is its t/f letter (IfxBoolean)
    assert rows == [("2", "bob"), ("t", "33", "34", "bob"), ("f", "66", "67", "bob")]

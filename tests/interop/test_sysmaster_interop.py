"""IBM's JDBC driver reads the emulator's sysmaster tables.

The probe is the text IBM's driver itself sends at connect
(IfxSqliConnect.xaSetSerWarnFlags, decompiled jdbc-src); the rows must be
those our driver reads (tests/test_emulator_sysmaster.py compares ours with
informix-driver's).  Columns: IBM Informix Administrator's Reference, "The
sysmaster database" (sysdatabases ids_adr_0221, sysdual ids_adr_0225).
"""

from __future__ import annotations

from typing import Any

import pytest

from test_driver import connect

from .jdbc_runner import JdbcClient

PROBE = "select is_ansi, is_logging from sysmaster:informix.sysdatabases where name='{}'"


@pytest.mark.interop
def test_jdbc_reads_the_sysmaster_rows_our_driver_reads(jdbc: JdbcClient, ifx_target: Any) -> None:
    if ifx_target.kind != "emulator":
        pytest.skip("the compared rows are the emulator's own databases")
    listing = "SELECT name, is_logging, is_buff_log, is_ansi, flags FROM sysmaster:sysdatabases ORDER BY name"
    statements = [PROBE.format(ifx_target.database), "SELECT dummy FROM sysmaster:sysdual",
                  listing, "SELECT state FROM sysmaster:informix.sysdri"]
    records = jdbc.run(ifx_target, "query", *statements).check().records
    rows = [r[1:] for r in records if r[0] == "row"]
    errors = [r[1:] for r in records if r[0] == "ERROR"]
    with connect(ifx_target, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute(listing)
        ours = [tuple(str(v).rstrip() for v in row) for row in cur.fetchall()]
    assert rows[:2] == [("0", "1"), ("X",)]
    assert [tuple(v.rstrip() for v in r) for r in rows[2:]] == ours
    assert len(ours) >= 1
    # sysdri is not served: the emulator's own "not supported" code, never rows.
    assert [e[0] for e in errors] == ["-9999"]

"""The pytest fixture users get from the installed package (entry point informix_stream)."""

from __future__ import annotations

import informix_stream



def test_informix_emulator_fixture_serves_testdb(informix_emulator):
    with informix_stream.connect(host=informix_emulator.host, port=informix_emulator.port,
                                 password="in4mix", database="testdb") as conn:
        cur = conn.cursor()
        cur.execute("SELECT COUNT(*) FROM systables WHERE tabname = ?", ("systables",))
        assert cur.fetchone() == (1,)

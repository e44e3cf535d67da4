"""DBDATE as IBM's JDBC driver and informix-driver send it, judged by the
emulator's stored values (the rules and sources: tests/test_emulator_dbdate.py).

JDBC sends its DBDATE property in the login's environment (IfxSqliConnect
reads it with GL_DATE and sends Y4MD- only when neither is set and the
locale is US English); informix-driver sends Y4MD- unless its ``env``
names another.  Under DMY4/ '06/05/2024' is 6 May, and a DATE cast to CHAR
reads back as 06/05/2024.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import informix_db
import pytest

import informix_stream
from informix_stream.emulator import EmulatorServer

from .jdbc_runner import URL_EXTRA_ENV

USER, PASSWORD = "informix", "in4mix"
MAY6 = dt.date(2024, 5, 6)


@dataclass
class _Target:
    host: str
    port: int
    database: str = "dd"
    user: str = USER
    password: str = PASSWORD
    server: str = "informix"


@pytest.fixture(scope="module")
def server():
    with EmulatorServer(databases={"dd": "en_US.8859-1"}) as srv:
        yield srv


def _stored(server, table: str) -> list[tuple]:
    with informix_stream.connect(host="127.0.0.1", port=server.port, user=USER,
                                 password=PASSWORD, database="dd") as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT id, d FROM {table} ORDER BY id")
        return cur.fetchall()


@pytest.mark.parametrize("dbdate, text", [("DMY4/", "06/05/2024"), ("MDY4/", "05/06/2024")])
def test_jdbc_dbdate_reads_and_writes_date_text(jdbc, server, monkeypatch, dbdate, text):
    table = f"jdd_{dbdate[:3].lower()}"
    monkeypatch.setenv(URL_EXTRA_ENV, f"DBDATE={dbdate}")
    records = jdbc.run(_Target("127.0.0.1", server.port), "script",
                       f"CREATE TABLE {table} (id INTEGER, d DATE)",
                       f"INSERT INTO {table} VALUES (1, '{text}')",
                       f"SELECT CAST(d AS CHAR(10)) FROM {table} WHERE d = '{text}'",
                       f"INSERT INTO {table} VALUES (2, '2024-05-06')").check().records
    assert [r[1:] for r in records if r[0] == "row"] == [(text,)]
    assert [r[1] for r in records if r[0] == "ERROR"] == [
        "-1206" if dbdate == "DMY4/" else "-1205"]
    assert _stored(server, table) == [(1, MAY6)]


def test_informix_driver_dbdate_reads_and_writes_date_text(server):
    table = "idd_dmy"
    with informix_db.connect(host="127.0.0.1", port=server.port, user=USER, password=PASSWORD,
                             database="dd", env={"DBDATE": "DMY4/"}, read_timeout=10) as other:
        c = other.cursor()
        c.execute(f"CREATE TABLE {table} (id INTEGER, d DATE)")
        c.execute(f"INSERT INTO {table} VALUES (1, '06/05/2024')")
        c.execute(f"SELECT CAST(d AS CHAR(10)) FROM {table}")
        assert [tuple(r) for r in c.fetchall()] == [("06/05/2024",)]
        other.commit()
    assert _stored(server, table) == [(1, MAY6)]

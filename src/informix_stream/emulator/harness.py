"""What the pytest fixtures stand on: one server, a template, a fresh database per test.

The plugin module (pytest_plugin.py) imports this only when a test first
asks for an emulator fixture, so pytest runs that never do stay free of the
emulator.  Kept free of pytest itself, so it can serve other test runners.

A session loads the schema once, over the wire like any client, into a
*template* database; each test then gets a clone of the template (a copy of
its SQLite file, no SQL run) under a name of its own, dropped after the test
with any connection the test left open cut off.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Union
from urllib.parse import quote

from ..sqllex import opaque_regions
from .logmode import Logging
from .server import EmulatorServer

TEMPLATE = "pytest_template"
USER, PASSWORD = "informix", "in4mix"

# A schema entry: an SQL file, or a callable given an open DB-API connection
# to the template (for data built in Python).
SchemaItem = Union[str, "os.PathLike[str]", Callable[[Any], None]]

# Statements of an SPL routine contain semicolons; the routine ends at its END.
_ROUTINE_START = re.compile(r"\s*CREATE\s+(?:DBA\s+)?(PROCEDURE|FUNCTION)\b", re.IGNORECASE)
_ROUTINE_END = {"PROCEDURE": re.compile(r"\bEND\s+PROCEDURE\b", re.IGNORECASE),
                "FUNCTION": re.compile(r"\bEND\s+FUNCTION\b", re.IGNORECASE)}


class SchemaError(Exception):
    """A schema statement failed; says which file, which statement and why."""


@dataclass(frozen=True)
class EmulatorDatabase:
    """A database on the emulator, with what a client needs to reach it."""

    name: str
    host: str
    port: int
    user: str = USER
    password: str = field(default=PASSWORD, repr=False)
    server: str = "informix"

    @property
    def url(self) -> str:
        """``informix://user:password@host:port/name`` (connect_params.parse_dsn)."""
        return (f"informix://{quote(self.user, safe='')}:{quote(self.password, safe='')}"
                f"@{self.host}:{self.port}/{self.name}")

    def connect(self, **kwargs: Any):
        """An ``informix_stream`` connection to this database."""
        from .. import connect
        return connect(self.url, **kwargs)


def split_statements(script: str) -> list[str]:
    """The statements of an SQL script, split at semicolons outside literals,
    comments and SPL routine bodies; empty and comment-only pieces dropped."""
    masked = _mask(script)
    out: list[str] = []
    start = 0
    while True:
        search_from = start
        routine = _ROUTINE_START.match(masked, start)
        if routine is not None:
            end = _ROUTINE_END[routine.group(1).upper()].search(masked, routine.end())
            search_from = end.end() if end else len(masked)
        semi = masked.find(";", search_from)
        stop = len(masked) if semi < 0 else semi
        piece = masked[start:stop]
        if piece.strip():       # leading comments go: a statement starts at its keyword
            out.append(script[start + len(piece) - len(piece.lstrip()):stop].rstrip())
        if semi < 0:
            return out
        start = semi + 1


def _mask(script: str) -> str:
    """The script with comments blanked and literals made opaque, same length."""
    chars = list(script)
    for begin, end, kind in opaque_regions(script):
        chars[begin:end] = (" " if kind in ("line", "brace", "block") else "x") * (end - begin)
    return "".join(chars)


class Harness:
    """A running server plus the template every fresh database is cloned from."""

    def __init__(self, server: EmulatorServer) -> None:
        self.server = server
        self._numbers = itertools.count(1)
        self._template_ready = False

    def database(self, name: str) -> EmulatorDatabase:
        return EmulatorDatabase(name, self.server.host, self.server.port,
                                server=self.server.server_name)

    def load_template(self, schema: Iterable[SchemaItem]) -> None:
        """Create the template (logged) and run the schema into it, once."""
        self.server.engine.databases.create(TEMPLATE, Logging.UNBUFFERED)
        items = list(schema)
        if items:
            with self.database(TEMPLATE).connect(autocommit=True) as conn:
                for item in items:
                    _load(conn, item)
        self._template_ready = True

    def fresh(self) -> EmulatorDatabase:
        """A new database holding exactly what the template holds."""
        if not self._template_ready:
            self.load_template(())
        name = f"pytest_{os.getpid()}_{next(self._numbers)}"
        self.server.engine.databases.clone(TEMPLATE, name)
        return self.database(name)

    def discard(self, db: EmulatorDatabase) -> None:
        """Drop a fresh database, cutting off connections a test left open."""
        self.server.drop_database(db.name, force=True)


def _load(conn: Any, item: SchemaItem) -> None:
    if callable(item):
        item(conn)
        return
    path = os.fspath(item)
    with open(path, encoding="utf-8") as f:
        statements = split_statements(f.read())
    cur = conn.cursor()
    for number, sql in enumerate(statements, start=1):
        try:
            cur.execute(sql)
        except Exception as exc:   # noqa: BLE001 - reported with its place, then stop
            raise SchemaError(f"{path}: statement {number} failed: {exc}\n  {sql[:200]}") from exc
    cur.close()

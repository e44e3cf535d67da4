"""SQL functions a session registers on its SQLite connections: the ones
whose answer depends on the session (DBINFO, the SERIAL it last generated,
its sequences' CURRVAL).

A mixin of ``engine.Session``: it uses the session's database, id and
counters.  A function that must fail raises the server's SqlError through
``sqlfunctions.fail``, so ``map_error`` reports that error rather than
SQLite's "user-defined function raised exception".
"""

from __future__ import annotations

import datetime as dt

from informix_stream.codecs import TypeCode

from .sqlfunctions import fail
from .statements import SqlError

# Announced in the login reply and by DBINFO('version').  JDBC splits it at
# "Version" into product name and version; a version starting with 8 or 9
# would make it run extra isolation statements at connect.
SERVER_VERSION = "IBM Informix Dynamic Server Version 14.10.FC10"
"""What dbinfo('version', 'full') reports; the login reply announces the same."""


class SessionFunctions:
    """The session-bound ``ifx_*`` functions (see engine.Session._open)."""

    def _nextval(self, name: str) -> int:
        try:
            value = self._db.sequences.next_value(name)
        except SqlError as exc:
            fail(exc)                          # map_error reports it as raised
        self._currvals[name] = value
        return value

    def _currval(self, name: str) -> int:
        value = self._currvals.get(name)
        if value is None:
            fail(SqlError(-8315, 0, name, f"sequence {name} CURRVAL is not yet defined "
                                          "in this session"))
        return value

    def _serial(self, table: str, code: int, value: object) -> int:
        result = self._db.next_serial(table, code, value)
        if code == TypeCode.SERIAL:
            self.last_serial = result
        else:
            self.last_serial8 = result
        return result

    def _dbinfo(self, what: str, *args: object) -> object:
        key = str(what).lower()
        if key == "sqlca.sqlerrd1":
            return self.last_serial
        if key == "sqlca.sqlerrd2":
            return self.last_rowcount
        if key in ("serial8", "bigserial"):
            return self.last_serial8
        if key == "sessionid":
            return self._id
        if key == "dbname":
            return self._db.name
        if key == "version":
            part = str(args[0]).lower() if args else "full"
            return {"full": SERVER_VERSION, "major": 14, "minor": 10, "level": "FC10",
                    "os": "U", "server-type": "IBM Informix Dynamic Server"}.get(part)
        if key == "utc_current":
            return int(dt.datetime.now(dt.timezone.utc).timestamp())
        return None

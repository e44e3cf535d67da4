"""The Informix dialect on informix_stream: connection, transactions, errors.

Compilers live in compiler.py, catalog reflection in reflection.py, types in
types.py; this module ties them to the driver.  ``DELIMIDENT=y`` is always
sent: without it a real server reads ``"name"`` as a string literal, so a
quoted identifier would silently select a constant.
"""

from __future__ import annotations

import weakref
from typing import Any

from sqlalchemy import types as sqltypes
from sqlalchemy.engine import default
from sqlalchemy.sql import compiler

from .compiler import InformixCompiler, InformixDDLCompiler, InformixTypeCompiler
from .reflection import InformixReflection
from .types import INTERVAL, FloatResult

# SQLAlchemy's isolation names -> SET ISOLATION TO ... (IBM Informix Guide to
# SQL: Syntax, SET ISOLATION: DIRTY READ / COMMITTED READ / CURSOR STABILITY /
# REPEATABLE READ; ANSI SERIALIZABLE is Informix's REPEATABLE READ).
ISOLATION = {"READ UNCOMMITTED": "DIRTY READ", "READ COMMITTED": "COMMITTED READ",
             "CURSOR STABILITY": "CURSOR STABILITY", "REPEATABLE READ": "REPEATABLE READ",
             "SERIALIZABLE": "REPEATABLE READ"}

# Words SQLAlchemy must quote in names (a subset of IBM's "Keywords of SQL for
# Informix" that a column or table name can collide with in a statement).
RESERVED_WORDS = frozenset("""
add all alter and any as asc at between by case cast check column commit
constraint create current cursor database date datetime day default delete desc
distinct drop else end exists first for foreign from grant group having hour in
index insert interval into is join key left like limit match minute money month
not null of on or order outer primary references revoke right rollback second
select serial set skip some table text then to today union unique update user
values view when where with work year
""".split())


class InformixIdentifierPreparer(compiler.IdentifierPreparer):
    """Informix folds unquoted names to lower case; quoted ones need DELIMIDENT."""

    reserved_words = RESERVED_WORDS

    def __init__(self, dialect: Any) -> None:
        super().__init__(dialect, initial_quote='"', final_quote='"')


class InformixExecutionContext(default.DefaultExecutionContext):
    """SERIAL values come back in the reply (sqlerrd[1]): the cursor's lastrowid."""

    def get_lastrowid(self) -> int:
        return self.cursor.lastrowid

    def create_server_side_cursor(self) -> Any:
        """``stream_results``: the driver's cursors already fetch a buffer at a
        time; the async adapter needs its server-side kind not to read all."""
        if self.dialect.is_async:
            return self._dbapi_connection.cursor(server_side=True)
        return self._dbapi_connection.cursor()

    def fire_sequence(self, seq: Any, type_: Any) -> Any:
        name = self.identifier_preparer.format_sequence(seq)
        return self._execute_scalar(
            f"SELECT {name}.NEXTVAL FROM systables WHERE tabid = 1", type_)


class InformixDialect(InformixReflection, default.DefaultDialect):
    """What is true of Informix whichever driver object carries the bytes."""

    name = "informix"
    driver = "informix_stream"
    default_paramstyle = "qmark"
    supports_statement_cache = True
    statement_compiler = InformixCompiler
    ddl_compiler = InformixDDLCompiler
    type_compiler_cls = InformixTypeCompiler
    preparer = InformixIdentifierPreparer
    execution_ctx_cls = InformixExecutionContext
    # Result processors: none where the driver's values are already what
    # SQLAlchemy wants (Decimal, datetime, date, time, str, bool: SQLAlchemy
    # returns None for those given supports_native_decimal/_boolean), and
    # none for floats read from FLOAT/SMALLFLOAT columns (types.FloatResult).
    colspecs = {sqltypes.Interval: INTERVAL, sqltypes.Float: FloatResult}

    max_identifier_length = 128
    supports_native_boolean = True
    supports_native_decimal = True
    supports_sequences = True
    sequences_optional = True
    postfetch_lastrowid = True
    insert_returning = False
    update_returning = False
    delete_returning = False
    supports_default_values = False
    supports_default_metavalue = False
    supports_empty_insert = False
    supports_multivalues_insert = False
    use_insertmanyvalues = False
    supports_sane_rowcount = True
    supports_sane_multi_rowcount = True
    supports_native_enum = False
    supports_comments = False
    supports_is_distinct_from = False
    supports_server_side_cursors = True
    supports_simple_order_by_label = True
    div_is_floordiv = False
    tuple_in_values = False
    requires_name_normalize = False

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        # The isolation level last set on each DB-API connection; the server
        # has no statement that reports it.
        self._isolation: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @classmethod
    def import_dbapi(cls) -> Any:
        import informix_stream
        return informix_stream

    # -- connecting ------------------------------------------------------------
    def create_connect_args(self, url: Any) -> tuple[list, dict]:
        """URL parts and query options become connect() keywords."""
        kw: dict[str, Any] = dict(url.query)
        for key, value in (("host", url.host), ("port", url.port), ("user", url.username),
                           ("password", url.password), ("database", url.database)):
            if value is not None:
                kw[key] = value
        env = dict(kw.pop("env", None) or {})
        env.setdefault("DELIMIDENT", "y")
        kw["env"] = env
        return [], kw

    def _get_server_version_info(self, connection: Any) -> tuple[int, ...]:
        text = connection.exec_driver_sql(
            "SELECT DBINFO('version', 'full') FROM systables WHERE tabid = 1").scalar()
        digits = [int(p) for p in _numbers(str(text or ""))]
        return tuple(digits[:3]) or (0,)

    def _get_default_schema_name(self, connection: Any) -> str:
        user = connection.exec_driver_sql("SELECT USER FROM systables WHERE tabid = 1").scalar()
        return (user or "").strip()

    def do_ping(self, dbapi_connection: Any) -> bool:
        cur = dbapi_connection.cursor()
        try:
            cur.execute("SELECT 1 FROM systables WHERE tabid = 1")
            cur.fetchall()
        finally:
            cur.close()
        return True

    # -- transactions ----------------------------------------------------------
    def get_isolation_level_values(self, dbapi_connection: Any) -> list[str]:
        return ["AUTOCOMMIT", *ISOLATION]

    def set_isolation_level(self, dbapi_connection: Any, level: str) -> None:
        if level == "AUTOCOMMIT":
            self._set_autocommit(dbapi_connection, True)
        else:
            self._set_autocommit(dbapi_connection, False)
            cur = dbapi_connection.cursor()
            try:
                cur.execute("SET ISOLATION TO " + ISOLATION[level])
            finally:
                cur.close()
        self._isolation[_key(dbapi_connection)] = level

    def _set_autocommit(self, dbapi_connection: Any, value: bool) -> None:
        dbapi_connection.autocommit = value

    def get_isolation_level(self, dbapi_connection: Any) -> str:
        return self._isolation.get(_key(dbapi_connection), "READ COMMITTED")

    def get_default_isolation_level(self, dbapi_conn: Any) -> str:
        return "READ COMMITTED"

    def reset_isolation_level(self, dbapi_connection: Any) -> None:
        self.set_isolation_level(dbapi_connection, self.default_isolation_level or
                                 "READ COMMITTED")

    # -- errors ----------------------------------------------------------------
    def is_disconnect(self, e: Exception, connection: Any, cursor: Any) -> bool:
        """The driver marks a connection broken once its byte stream cannot be
        trusted; a closed connection says so with InterfaceError."""
        dbapi = self.loaded_dbapi
        if connection is not None:
            raw = getattr(connection, "driver_connection", connection)
            if getattr(raw, "broken", False) or getattr(raw, "closed", False):
                return True
        if isinstance(e, dbapi.InterfaceError):
            return "closed" in str(e)
        if isinstance(e, dbapi.OperationalError):
            text = str(e)
            return ("connection is unusable" in text or "closed the connection" in text
                    or getattr(e, "sqlcode", None) in DISCONNECT_SQLCODES)
        return False


# Server codes that end the session: -25580 system error on the network,
# -908 attempt to connect failed, -27001/-27002 read/write on the socket failed
# (IBM JDBC 15.0.1.0 message catalog, sql_en_US.properties).
DISCONNECT_SQLCODES = frozenset({-25580, -908, -27001, -27002})


def _key(dbapi_connection: Any) -> Any:
    return getattr(dbapi_connection, "driver_connection", dbapi_connection)


def _numbers(text: str) -> list[str]:
    import re
    return re.findall(r"\d+", text)

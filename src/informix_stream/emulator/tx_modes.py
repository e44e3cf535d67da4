"""SET TRANSACTION: an isolation level and access mode for one transaction.

What the server does (IBM Informix Guide to SQL: Syntax, "SET TRANSACTION
statement", ids_sqs_1200; "Comparing SET TRANSACTION with SET ISOLATION",
ids_sqs_1201; "Access Modes", ids_sqs_1207; Guide to SQL: Tutorial, "SET
TRANSACTION", ids_sqt_392):

* it is "valid only in databases with transaction logging": -256
  "Transaction not available" in a database without (the code BEGIN WORK
  gets there);
* it sets the level of the transaction it runs in, and of nothing after:
  READ UNCOMMITTED is Dirty Read, READ COMMITTED Committed Read, REPEATABLE
  READ and SERIALIZABLE are Repeatable Read (ids_sqs_1201); the session's
  own level (SET ISOLATION's, or the database's default) applies again once
  the transaction ends.  Outside a transaction the server answers -255 "Not
  in transaction" (an Informix session quoted on pgsql-hackers, 2002:
  "set transaction isolation level read uncommitted; 255: Not in
  transaction."); in an ANSI database a transaction is always open;
* it can be issued once in a transaction, before the transaction's work:
  -876 "Cannot issue "Set Transaction" in an active transaction"
  (ids_sqt_392 shows it for a second SET TRANSACTION after a SELECT);
* SET ISOLATION in a transaction whose level SET TRANSACTION chose is -877
  "Isolation Level previously set by "Set Transaction"";
* READ ONLY forbids inserting, deleting or updating rows and creating,
  altering or dropping any object, temporary tables included (ids_sqs_1207):
  -878 "Invalid operation for a READ-ONLY transaction".
The codes' texts are IBM's (IBM JDBC 15.0.1.0 message catalog,
sql_en_US.properties).

A mixin of ``engine.Session``: it uses the session's ``_db``, ``_in_tx``
and ``_isolation``.
"""

from __future__ import annotations

from .statements import SqlError, StatementKind

_LEVELS = {("READ", "UNCOMMITTED"): "DIRTY", ("READ", "COMMITTED"): "COMMITTED",
           ("REPEATABLE", "READ"): "REPEATABLE", ("SERIALIZABLE",): "REPEATABLE"}
_ACCESS = {("READ", "ONLY"): True, ("READ", "WRITE"): False}
_SYNTAX = ("SET TRANSACTION [READ WRITE | READ ONLY] [, ISOLATION LEVEL READ COMMITTED | "
           "REPEATABLE READ | SERIALIZABLE | READ UNCOMMITTED] expected")

# Statements a read-only transaction refuses (ids_sqs_1207).
_WRITES = frozenset({StatementKind.INSERT, StatementKind.UPDATE, StatementKind.DELETE,
                     StatementKind.MERGE, StatementKind.DDL})
# Statements that are no work of a transaction: they leave it open to SET TRANSACTION.
_NOT_WORK = frozenset({StatementKind.OTHER, StatementKind.BEGIN, StatementKind.COMMIT,
                       StatementKind.ROLLBACK})


def parse_modes(words: tuple[str, ...]) -> tuple[str | None, bool | None]:
    """The words after SET TRANSACTION -> (isolation level, read only), each
    None when not given; -201 for anything else (each path at most once)."""
    level: str | None = None
    read_only: bool | None = None
    items = _split(words)
    if not items:
        raise SqlError(-201, message=_SYNTAX)
    for item in items:
        if item[:2] == ("ISOLATION", "LEVEL") and level is None:
            rest = item[3:] if item[2:3] == ("TO",) else item[2:]
            level = _LEVELS.get(rest)
            if level is None:
                raise SqlError(-201, message=_SYNTAX)
        elif item in _ACCESS and read_only is None:
            read_only = _ACCESS[item]
        else:
            raise SqlError(-201, message=_SYNTAX)
    return level, read_only


def _split(words: tuple[str, ...]) -> list[tuple[str, ...]]:
    items: list[tuple[str, ...]] = [()]
    for word in words:
        if word == ",":
            items.append(())
        else:
            items[-1] += (word,)
    return [] if any(not item for item in items) else items


class TransactionModes:
    """The SET TRANSACTION half of a session (see engine.Session)."""

    _tx_level: str | None = None    # SET TRANSACTION's level for the open transaction
    _tx_read_only = False
    _tx_set = False                 # a SET TRANSACTION ran in the open transaction
    _tx_worked = False              # a statement of work ran in it

    def _set_transaction(self, words: tuple[str, ...]) -> None:
        """SET TRANSACTION (see the module's notes for each refusal)."""
        level, read_only = parse_modes(words)
        if not self._db.logging.logged:
            raise SqlError(-256, message="transaction not available: SET TRANSACTION needs a "
                                         "database with logging")
        if not self._in_tx:
            raise SqlError(-255, message="not in transaction")
        if self._tx_set or self._tx_worked:
            raise SqlError(-876, message='cannot issue "Set Transaction" in an active '
                                         "transaction")
        self._tx_set = True
        self._tx_level = level
        self._tx_read_only = bool(read_only)

    def _isolation_option(self, option: tuple) -> None:
        """SET TRANSACTION, or SET ISOLATION (ddl_runner._set_isolation),
        which is -877 in a transaction whose level SET TRANSACTION chose."""
        if option[:2] == ("SET", "TRANSACTION"):
            self._set_transaction(option[2:])
            return
        if option[:2] == ("SET", "ISOLATION") and self._tx_level is not None:
            raise SqlError(-877, message='isolation level previously set by "Set Transaction"')
        self._set_isolation(option)

    def _tx_statement(self, kind: StatementKind) -> None:
        """A statement is about to run in the open transaction: -878 for a
        write in a read-only one; any work closes it to SET TRANSACTION."""
        if not self._in_tx or kind in _NOT_WORK:
            return
        if self._tx_read_only and kind in _WRITES:
            raise SqlError(-878, message="invalid operation for a READ-ONLY transaction")
        self._tx_worked = True

    def _tx_modes_ended(self) -> None:
        """The transaction ended: its SET TRANSACTION ends with it."""
        self._tx_level = None
        self._tx_read_only = self._tx_set = self._tx_worked = False

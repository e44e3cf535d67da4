"""Which code set a session's text travels in, settled when a database opens.

The login sends CLIENT_LOCALE and DB_LOCALE (docs/protocol.md, "Locales").
When a database opens (SQ_DBOPEN at login, or a DATABASE statement) the
server compares the DB_LOCALE it was sent with the locale stored in the
database; if they differ it sets SQLWARN7 -- bit 0x40 of the SQ_DONE
warnings -- and goes on in the database's locale (IBM GLS User's Guide,
"Verify the database locale"; IBM JDBC IfxSqliConnect.OpenDbInit reads the
bit as ``chgLocale``).  JDBC then asks the database's locale from the
catalog (IfxSqliConnect.setDatabaseLocale: the ``site`` of the systables
row ``' GL_COLLATE'``) and converts to that code set; so do we.  Without
the warning the database's code set is the one we sent.
"""

from __future__ import annotations

from ..errors import NotSupportedError, OperationalError
from ..locales import parse_locale
from . import statement as st
from .session import ClientSession

# SQ_DONE warning bit after a database opens: SQLWARN7, locale mismatch.
DB_LOCALE_MISMATCH = 0x40
# JDBC's query, word for word (IfxSqliConnect.setDatabaseLocale).
GL_COLLATE_SQL = "select FIRST 1 site from informix.systables where tabname = ' GL_COLLATE'"


def settle_locale(session: ClientSession, warnings: int):
    """Set ``session.encoding`` (and ``session.db_locale``) for the database
    just opened; a generator operation (it may run one catalog query)."""
    if not warnings & DB_LOCALE_MISMATCH:
        session.encoding = session.sent_locale.codec
        session.db_locale = session.sent_locale
        return
    session.encoding = "iso-8859-1"      # the catalog row is ASCII in every code set
    row = yield from st.query_first_row(session, GL_COLLATE_SQL)
    if row is None or not isinstance(row[0], str):
        session.mark_broken("the database's locale is unknown")
        raise OperationalError("the server reported a database locale different from "
                               "DB_LOCALE but has no ' GL_COLLATE' row in systables")
    try:
        found = parse_locale(row[0].strip(), "database locale")
    except NotSupportedError as exc:
        session.mark_broken(f"database locale {row[0].strip()!r} is not supported")
        raise NotSupportedError(f"the database's locale is {row[0].strip()!r}: {exc}") from None
    session.encoding = found.codec
    session.db_locale = found

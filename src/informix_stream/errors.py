"""PEP 249 exception hierarchy, carrying Informix's diagnostic triple.

Every server error reaches the user as one of these classes with ``sqlcode``
(the SQL error, e.g. -206), ``isam_code`` (the storage layer's reason, e.g.
-111) and the server's message.  The class is chosen from the sqlcode so that
``except IntegrityError`` works the way it does with psycopg.
"""

from __future__ import annotations


class Warning(Exception):  # noqa: A001 - the name is mandated by PEP 249
    """Important warnings such as data truncation.

    The driver makes one per warning flag of the server's SQ_DONE (the
    ``sqlca.sqlwarn`` array, see sqlwarn.py) and puts it on
    ``cursor.warnings`` / ``connection.warnings``; it raises one only when
    the connection was opened with ``raise_warnings=True``.  ``sqlstate``
    is the X/Open or Informix warning code (``01I07``), ``flag`` the bit of
    the SQ_DONE warnings short that said it (0x08), 0 when not from one.
    """

    def __init__(self, message: str = "", *, sqlstate: str = "01000", flag: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.sqlstate = sqlstate
        self.flag = flag


class Error(Exception):
    """Base of every error this package raises."""

    def __init__(
        self,
        message: str = "",
        *,
        sqlcode: int | None = None,
        isam_code: int = 0,
        offset: int = 0,
        near: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.sqlcode = sqlcode
        self.isam_code = isam_code
        self.offset = offset
        self.near = near

    @property
    def isamcode(self) -> int:
        """informix-driver's name for ``isam_code``."""
        return self.isam_code


class InterfaceError(Error):
    """Misuse of the driver itself (closed cursor, closed connection)."""


class DatabaseError(Error):
    """An error reported by, or about, the database."""


class DataError(DatabaseError):
    """A value could not be encoded, or is out of range for its column."""


class OperationalError(DatabaseError):
    """The connection or the server failed, not the statement."""


class IntegrityError(DatabaseError):
    """A constraint was violated (duplicate key, NULL into NOT NULL)."""


class InternalError(DatabaseError):
    """The server or driver reached an inconsistent state."""


class ProgrammingError(DatabaseError):
    """The statement is wrong: syntax, unknown table or column, bad parameters."""


class NotSupportedError(DatabaseError):
    """The server or driver does not support the requested feature."""


class ProtocolError(OperationalError):
    """The byte stream does not follow SQLI; the connection cannot be trusted."""


_INTEGRITY = {-239, -268, -391, -703, -530, -691, -692}
_DATA = {-1213, -1214, -1215, -1216, -1218, -1226, -1262, -1263, -1264, -1205,
         -1206, -1207, -1209, -1210, -1211, -1212, -1227, -1228, -1229, -1230,
         -1231, -1232, -1260, -1261, -1265, -1266, -1267, -1268, -1269, -1279,
         -1302}
_OPERATIONAL = {-213, -243, -244, -245, -250, -254, -255, -256, -267, -271, -272,
                -288, -289, -329, -349, -387, -402, -408, -451, -458, -908,
                -951, -952, -1802, -1803, -25580, -25582, -27001, -27002}
_NOT_SUPPORTED = {-1804, -79700, -9999}
# ISAM codes of lock conflicts: record/file/key locked (-107, -113, -144),
# deadlock (-143), lock wait timed out (-154).  A generic "could not
# update/delete/open" (-346, -240, -242) carrying one of these is a lock
# conflict, which is operational, not a mistake in the statement.
_LOCK_ISAM = {-107, -113, -143, -144, -154}


def error_class_for(sqlcode: int, isam_code: int = 0) -> type[DatabaseError]:
    """Pick the PEP 249 class for an Informix sqlcode (and its ISAM code)."""
    if isam_code in _LOCK_ISAM:
        return OperationalError
    if sqlcode in _INTEGRITY:
        return IntegrityError
    if sqlcode in _DATA:
        return DataError
    if sqlcode in _OPERATIONAL:
        return OperationalError
    if sqlcode in _NOT_SUPPORTED:
        return NotSupportedError
    return ProgrammingError


def server_error(sqlcode: int, isam_code: int = 0, message: str = "",
                 offset: int = 0, near: str = "") -> DatabaseError:
    """Build the exception for an SQ_ERR reply."""
    text = f"[{sqlcode}] {message}" if message else f"[{sqlcode}]"
    if near:
        text += f" (near {near!r})"
    if isam_code:
        text += f" [ISAM {isam_code}]"
    return error_class_for(sqlcode, isam_code)(text, sqlcode=sqlcode, isam_code=isam_code,
                                    offset=offset, near=near)

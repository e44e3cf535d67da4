"""Short English texts for the Informix error codes users meet most.

The server sends only the code and the offending name; clients supply the
text (IBM's drivers ship message catalogs).  Unknown codes get a generic text
that still carries the code, which is what users search for.
"""

from __future__ import annotations

_TEXTS = {
    -100: "ISAM error: duplicate value for a record with unique key.",
    -107: "ISAM error: record is locked.",
    -111: "ISAM error: no record found.",
    -201: "A syntax error has occurred.",
    -206: "The specified table is not in the database.",
    -213: "Statement interrupted by user.",
    -217: "Column not found in any table in the query (or SLV is undefined).",
    -234: "Cannot insert into virtual column (%s).",
    -236: "Number of columns in INSERT does not match number of VALUES.",
    -239: "Could not insert new row - duplicate value in a UNIQUE INDEX column.",
    -240: "Could not delete a row.",
    -242: "Could not open database table.",
    -243: "Could not position within a table.",
    -244: "Could not do a physical-order read to fetch next row.",
    -254: "Too many or too few host variables given.",
    -255: "Not in transaction.",
    -256: "Transaction not available.",
    -257: "System limit on maximum number of statements exceeded.",
    -268: "Unique constraint violated.",
    -271: "Could not insert new row into the table.",
    -310: "Table already exists in database.",
    -329: "Database not found or no system permission.",
    -346: "Could not update a row in the table.",
    -330: "Cannot create or rename the database.",
    -349: "Database not selected yet.",
    -384: "Cannot modify non simple view.",
    -385: "Data value out of range.",
    -391: "Cannot insert a null into column.",
    -393: "A condition in the where clause results in a two-sided outer join.",
    -377: "Must terminate transaction before closing database.",
    -400: "Fetch attempted on unopen cursor.",
    -408: "Invalid message type received from the client or server.",
    -410: "Prepare statement failed or was not executed.",
    -425: "Database is currently opened by another user.",
    -535: "Already in transaction.",
    -458: "Long transaction aborted.",
    -526: "Updates are not allowed on a scroll cursor.",
    -535: "Already in transaction.",
    -710: "Table has been dropped, altered, or renamed.",
    -951: "Incorrect password or user is not known on the database server.",
    -999: "The emulator failed internally on this request (the emulator's own code).",
    -8300: "The specified sequence object is not in the database.",
    -8301: "Sequence already exists in the database.",
    -8302: "A sequence definition value is invalid or out of range.",
    -8303: "Duplicate or conflicting specification in sequence definition.",
    -8305: "INCREMENT 0 is not allowed in sequences.",
    -8313: "Sequence exceeds its MAXVALUE.",
    -8314: "Sequence goes below its MINVALUE.",
    -8315: "Sequence CURRVAL is not yet defined in this session.",
    -8317: "A sequence object cannot appear in the FROM clause.",
    -8251: "Update, delete, or insert into a UNION ALL view is not allowed.",
    # ROW and collection types (IBM JDBC 15.0.1.0 message catalog, sql_en_US.properties)
    -9602: "Illegal attempt to convert a collection type into another type.",
    -9634: "No cast from %s.",
    -9911: "Defaults on collection type column not allowed.",
    -9912: "Constraints on collection type column not allowed.",
    -9628: "Type (%s) not found.",
    -9990: "Cannot drop named row type (%s): still in use.",
    -9991: "Named row type (%s) already exists in database.",
    -9992: "Named row type (%s) not found.",
    -9978: "Insertion of NULLs into a collection disallowed.",
    -9989: "Incorrect number of fields in the ROW Type.",
    -9999: "Not supported by the emulator (the emulator's own code, not a server's).",
    -1202: "An attempt was made to divide by zero.",
    -1204: "Invalid year in date.",
    -1205: "Invalid month in date.",
    -1206: "Invalid day in date.",
    -1213: "A character to numeric conversion process failed.",
    -1214: "Value exceeds limit of SMALLINT precision.",
    -1215: "Value exceeds limit of INTEGER precision.",
    -1218: "String to date conversion error.",
    -1226: "Decimal or money value exceeds maximum precision.",
    -1262: "Non-numeric character in datetime or interval.",
    -1263: "A field in a datetime or interval value is incorrect or an illegal operation specified on datetime field.",
    -1264: "Extra characters at the end of a datetime or interval.",
    -1279: "Value exceeds string column length.",
}


def message_for(sqlcode: int, near: str = "") -> str:
    """The text for a code; a catalog text's ``%s`` takes the name the
    server sent with the error (e.g. -9634 "No cast from %s.")."""
    text = _TEXTS.get(sqlcode, f"Informix error {sqlcode}.")
    return text.replace("%s", near or "?") if "%s" in text else text

"""Where SPL routines are kept in a database: the meta tables and the
system-catalog views tools read (IBM Informix Guide to SQL: Reference,
"SYSPROCEDURES", "SYSPROCBODY").  No imports, so the catalog can take it."""

ROUTINE_DDL = """
CREATE TABLE IF NOT EXISTS _ifx_routines (
    procid INTEGER PRIMARY KEY, procname TEXT UNIQUE NOT NULL, isproc TEXT, numargs INTEGER,
    retsize INTEGER, paramtypes TEXT, body TEXT);
CREATE TABLE IF NOT EXISTS _ifx_procbody (
    procid INTEGER, datakey TEXT, seqno INTEGER, data TEXT, PRIMARY KEY (procid, datakey, seqno));
CREATE VIEW IF NOT EXISTS sysprocedures AS SELECT procname, 'informix' AS owner, procid,
    'O' AS mode, retsize, 0 AS symsize, 0 AS datasize, 0 AS codesize, numargs, isproc,
    NULL AS specificname, NULL AS externalname, 'I' AS paramstyle, 2 AS langid,
    paramtypes, 'f' AS variant FROM _ifx_routines;
CREATE VIEW IF NOT EXISTS sysprocbody AS SELECT procid, datakey, seqno, data FROM _ifx_procbody;
"""

# Columns for the catalog's system-table rows (IBM Guide to SQL: Reference);
# langid 2 is SPL in SYSROUTINELANGS.
SYSTEM_TABLES = {
    "sysprocedures": [("procname", "VARCHAR(128)"), ("owner", "CHAR(32)"),
                      ("procid", "INTEGER"), ("mode", "CHAR(1)"), ("retsize", "INTEGER"),
                      ("symsize", "INTEGER"), ("datasize", "INTEGER"),
                      ("codesize", "INTEGER"), ("numargs", "INTEGER"), ("isproc", "CHAR(1)"),
                      ("specificname", "VARCHAR(128)"), ("externalname", "VARCHAR(255)"),
                      ("paramstyle", "CHAR(1)"), ("langid", "INTEGER"),
                      ("paramtypes", "LVARCHAR"), ("variant", "CHAR(1)")],
    "sysprocbody": [("procid", "INTEGER"), ("datakey", "CHAR(1)"), ("seqno", "INTEGER"),
                    ("data", "CHAR(256)")],
}
BODY_CHUNK = 256           # sysprocbody.data is CHAR(256)

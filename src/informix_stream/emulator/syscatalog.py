"""The system catalog every Informix database has: which ``sys*`` tables
exist, at which fixed tabid, with which columns, and the SQLite objects that
serve them.

Layout (tabids 1..67, in this order) from a catalog listing taken from a
12.10/14.10 server (Fernando Nunes' ``ixtables`` exclusion list, the same order in
Liquibase's ``InformixDatabase.systemTablesAndViews``); it is confirmed by
IBM's DatabaseCompatibilityTest run against a real server (tests/compat/
ibm_dbcompat, ops.json): ``count(*) FROM systables WHERE tabid < 99 / < 10 /
< 11`` = 69 / 9 / 10, i.e. these 67 plus ' GL_COLLATE' (90) and ' GL_CTYPE'
(91).  Columns and types are those of IBM's "Guide to SQL: Reference"
(14.10/OneDB pages SYSTABLES, SYSCOLUMNS, SYSINDICES, SYSINDEXES,
SYSCONSTRAINTS, SYSREFERENCES, SYSCHECKS, SYSDEFAULTS, SYSSEQUENCES, ...);
docs/catalog.md says which were checked page by page and what still differs.

Tables the emulator has content for are SQLite views over its meta tables
(``_ifx_tables``, ``_ifx_columns``, ``_ifx_indexes``, ``_ifx_constraints``,
``_ifx_checks``, ``_ifx_defaults``); the rest are empty SQLite tables of the
documented shape, so a query naming them gets the server's columns and no
rows rather than -206.
"""

from __future__ import annotations

import sqlite3
from typing import Callable, Mapping

OWNER = "informix"
# Bumped whenever the layout below changes: a database file made with
# another layout has its catalog rows and objects rebuilt when opened.
LAYOUT = 4       # 3: sysreferences rows and 'R' constraints (references.py); 4: DESC keys

V128, V32, C32, C1 = "VARCHAR(128)", "VARCHAR(32)", "CHAR(32)", "CHAR(1)"
I, S, F = "INTEGER", "SMALLINT", "FLOAT"
DT = "DATETIME YEAR TO FRACTION(5)"


def _cols(spec: str) -> list[tuple[str, str]]:
    """'name TYPE, name TYPE' -> [(name, type)] (types may hold commas only
    inside parentheses)."""
    out, depth, cur = [], 0, ""
    for ch in spec + ",":
        if ch == "," and depth == 0:
            name, _, typ = cur.strip().partition(" ")
            out.append((name, typ.strip()))
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    return out


_PARTS = ", ".join(f"part{k} SMALLINT" for k in range(1, 17))

# (name, tabtype, columns) in tabid order, tabid = position + 1.
CATALOG: list[tuple[str, str, list[tuple[str, str]]]] = [
    ("systables", "T", _cols(
        f"tabname {V128}, owner {C32}, partnum {I}, tabid SERIAL, rowsize {S}, ncols {S}, "
        f"nindexes {S}, nrows {F}, created DATE, version {I}, tabtype {C1}, locklevel {C1}, "
        f"npused {F}, fextsize {I}, nextsize {I}, flags {S}, site {V128}, dbname {V128}, "
        f"type_xid {I}, am_id {I}, pagesize {I}, ustlowts {DT}, secpolicyid {I}, "
        f"protgranularity {C1}, statchange {S}, statlevel {C1}")),
    ("syscolumns", "T", _cols(
        f"colname {V128}, tabid {I}, colno {S}, coltype {S}, collength {S}, colmin {I}, "
        f"colmax {I}, extended_id {I}, seclabelid {I}, colattr {S}")),
    ("sysindices", "T", _cols(
        f"idxname {V128}, owner {V32}, tabid {I}, idxtype {C1}, clustered {C1}, "
        f"levels {S}, leaves {F}, nunique {F}, clust {F}, nrows {F}, indexkeys LVARCHAR, "
        f"amid {I}, amparam LVARCHAR(2048), collation {C32}, pagesize {I}, nhashcols {S}, "
        f"nbuckets {S}, ustlowts {DT}, ustbuildduration INTERVAL HOUR TO FRACTION(5), "
        f"nupdates {F}, ndeletes {F}, ninserts {F}, fextsize {I}, nextsize {I}")),
    ("systabauth", "T", _cols(f"grantor {V32}, grantee {V32}, tabid {I}, tabauth CHAR(9)")),
    ("syscolauth", "T", _cols(
        f"grantor {V32}, grantee {V32}, tabid {I}, colno {S}, colauth CHAR(3)")),
    ("sysviews", "T", _cols(f"tabid {I}, seqno {S}, viewtext CHAR(64)")),
    ("sysusers", "T", _cols(
        f"username {V32}, usertype {C1}, priority {S}, password CHAR(16), defrole {V32}")),
    ("sysdepend", "T", _cols(f"btabid {I}, btype {C1}, dtabid {I}, dtype {C1}")),
    ("syssynonyms", "T", _cols(f"owner {V32}, synname {V128}, created DATE, tabid {I}")),
    ("syssyntable", "T", _cols(
        f"tabid {I}, servername {V128}, dbname {V128}, owner {V32}, tabname {V128}, "
        f"btabid {I}")),
    ("sysconstraints", "T", _cols(
        f"constrid SERIAL, constrname {V128}, owner {V32}, tabid {I}, constrtype {C1}, "
        f"idxname {V128}, collation {C32}")),
    ("sysreferences", "T", _cols(
        f"constrid {I}, primary {I}, ptabid {I}, updrule {C1}, delrule {C1}, "
        f"matchtype {C1}, pendant {C1}")),
    ("syschecks", "T", _cols(f"constrid {I}, type {C1}, seqno {S}, checktext CHAR(32)")),
    ("sysdefaults", "T", _cols(
        f"tabid {I}, colno {S}, type {C1}, default CHAR(256), class {C1}")),
    ("syscoldepend", "T", _cols(f"constrid {I}, tabid {I}, colno {S}")),
    ("sysprocedures", "T", _cols(
        f"procname {V128}, owner {C32}, procid SERIAL, mode {C1}, retsize {I}, "
        f"symsize {I}, datasize {I}, codesize {I}, numargs {S}, isproc {C1}, "
        f"specificname {V128}, externalname VARCHAR(255), paramstyle {C1}, langid {I}, "
        f"paramtypes LVARCHAR, variant BOOLEAN, client BOOLEAN, handlesnulls BOOLEAN, "
        f"iterator BOOLEAN, percallcost {I}, commutator {V128}, negator {V128}, "
        f"selfunc {V128}, internal BOOLEAN, class CHAR(18), stack {I}, "
        f"parallelizable BOOLEAN, costfunc {V128}, selconst SMALLFLOAT, collation {C32}, "
        f"procflags {I}")),
    ("sysprocbody", "T", _cols(f"procid {I}, datakey {C1}, seqno {I}, data CHAR(256)")),
    ("sysprocplan", "T", _cols(
        f"procid {I}, planid {I}, datakey {C1}, seqno {I}, created DATE, datasize {I}, "
        f"data CHAR(256)")),
    ("sysprocauth", "T", _cols(f"grantor {V32}, grantee {V32}, procid {I}, procauth {C1}")),
    ("sysblobs", "T", _cols(f"spacename {V128}, type {C1}, tabid {I}, colno {S}")),
    ("sysopclstr", "T", _cols(
        f"owner {C32}, clstrname {V128}, clstrsize {I}, tabid {I}, primid {S}, "
        f"primname {V128}")),
    ("systriggers", "T", _cols(
        f"trigid SERIAL, trigname {V128}, owner {V32}, tabid {I}, event {C1}, old {V128}, "
        f"new {V128}, mode {C1}, collation {C32}")),
    ("systrigbody", "T", _cols(f"trigid {I}, datakey {C1}, seqno {I}, data CHAR(256)")),
    ("sysdistrib", "T", _cols(
        f"tabid {I}, colno {S}, seqno {I}, constructed DATE, mode {C1}, resolution {F}, "
        f"confidence {F}, type {C1}, smplsize {F}, rowssmpld {F}, constr_time {DT}, "
        f"ustnrows {F}, nupdates {F}, ndeletes {F}, ninserts {F}")),
    ("sysfragments", "T", _cols(
        f"fragtype {C1}, tabid {I}, indexname {V128}, colno {I}, partn {I}, "
        f"strategy {C1}, location {C1}, servername {V128}, evalpos {I}, exprtext TEXT, "
        f"exprbin BYTE, exprarr BYTE, flags {I}, dbspace {V128}, levels {S}, npused {F}, "
        f"nrows {F}, clust {F}, partition {V128}")),
    ("sysobjstate", "T", _cols(
        f"objtype {C1}, owner {V32}, name {V128}, tabid {I}, state {C1}")),
    ("sysviolations", "T", _cols(f"targettid {I}, viotid {I}, diatid {I}, maxrows {I}")),
    ("sysfragauth", "T", _cols(
        f"grantor {V32}, grantee {V32}, tabid {I}, fragment {V128}, fragauth CHAR(6)")),
    ("sysroleauth", "T", _cols(f"rolename {V32}, grantee {V32}, is_grantable {C1}")),
    ("sysxtdtypes", "T", _cols(
        f"extended_id SERIAL, domain {C1}, mode {C1}, owner {V32}, name {V128}, type {S}, "
        f"source {I}, maxlen {I}, length {I}, byvalue {C1}, cannothash {C1}, align {S}, "
        f"locator {I}")),
    ("sysattrtypes", "T", _cols(
        f"extended_id {I}, seqno {S}, levelno {S}, parent_no {S}, fieldname {V128}, "
        f"fieldno {S}, type {S}, length {S}, xtd_type_id {I}")),
    ("sysxtddesc", "T", _cols(f"extended_id {I}, seqno {S}, description CHAR(256)")),
    ("sysinherits", "T", _cols(f"child {I}, parent {I}, class {C1}")),
    ("syscolattribs", "T", _cols(
        f"tabid {I}, colno {S}, extentsize {I}, flags {I}, flags1 {I}, sbspace {V128}")),
    ("syslogmap", "T", _cols(f"tabloc {I}, tabid {I}, fragid {I}, flags {I}")),
    ("syscasts", "T", _cols(
        f"owner {C32}, argument_type {S}, argument_xid {I}, result_type {S}, "
        f"result_xid {I}, routine_name {V128}, routine_owner {C32}, class {C1}")),
    ("sysxtdtypeauth", "T", _cols(f"grantor {V32}, grantee {V32}, type {I}, auth CHAR(2)")),
    ("sysroutinelangs", "T", _cols(
        f"langid SERIAL, langname CHAR(30), langinitfunc {V128}, langpath CHAR(255), "
        f"langclass CHAR(18)")),
    ("syslangauth", "T", _cols(f"grantor {C32}, grantee {C32}, langid {I}, langauth {C1}")),
    ("sysams", "T", _cols(
        f"am_name {V128}, am_owner {C32}, am_id {I}, am_type {C1}, am_sptype CHAR(3), "
        f"am_defopclass {I}, am_keyscan {I}, am_unique {I}, am_cluster {I}, am_rowids {I}, "
        f"am_readwrite {I}, am_parallel {I}, am_costfactor SMALLFLOAT, am_create {I}, "
        f"am_drop {I}, am_open {I}, am_close {I}, am_insert {I}, am_delete {I}, "
        f"am_update {I}, am_stats {I}, am_scancost {I}, am_check {I}, am_beginscan {I}, "
        f"am_endscan {I}, am_rescan {I}, am_getnext {I}, am_getbyid {I}, am_build {I}, "
        f"am_init {I}, am_truncate {I}")),
    ("systabamdata", "T", _cols(f"tabid {I}, am_param LVARCHAR, am_space {V128}")),
    ("sysopclasses", "T", _cols(
        f"opclassname {V128}, owner {C32}, amid {I}, opclassid SERIAL, ops LVARCHAR, "
        f"support LVARCHAR")),
    ("syserrors", "T", _cols(
        f"sqlstate CHAR(5), locale CHAR(36), level {S}, seqno {S}, message VARCHAR(255)")),
    ("systraceclasses", "T", _cols("name CHAR(18), classid SERIAL")),
    ("systracemsgs", "T", _cols(
        f"name {V128}, msgid SERIAL, locale CHAR(36), seqno {S}, message VARCHAR(255)")),
    ("sysaggregates", "T", _cols(
        f"name {V128}, owner {C32}, aggid SERIAL, init_func {V128}, iter_func {V128}, "
        f"combine_func {V128}, final_func {V128}, handlesnulls BOOLEAN")),
    # IBM Informix Guide to SQL: Reference, "SYSSEQUENCES" (view: sequences.py).
    ("syssequences", "T", _cols(
        "seqid SERIAL, tabid INTEGER, start_val INT8, inc_val INT8, max_val INT8, "
        "min_val INT8, cycle CHAR(1), restart_val INT8, cache INTEGER, order CHAR(1)")),
    ("sysdirectives", "T", _cols(
        f"id SERIAL, query TEXT, directive TEXT, directivecode BYTE, active {S}, "
        f"hashcode {I}")),
    ("sysxasourcetypes", "T", _cols(
        f"name {V128}, owner {C32}, id SERIAL, flags {I}, xa_flags {I}, xa_open {I}, "
        f"xa_close {I}, xa_start {I}, xa_end {I}, xa_rollback {I}, xa_prepare {I}, "
        f"xa_commit {I}, xa_recover {I}, xa_forget {I}, xa_complete {I}")),
    ("sysxadatasources", "T", _cols(f"name {V128}, owner {C32}, id SERIAL, xa_type {I}")),
    ("sysseclabelcomponents", "T", _cols(
        f"compid {I}, compname {V128}, comptype {C1}, numelements {S}")),
    ("sysseclabelcomponentelements", "T", _cols(
        f"compid {I}, element {V32}, parent {V32}")),
    ("syssecpolicies", "T", _cols(f"secpolicyid {I}, secpolicyname {V128}, numcomps {S}")),
    ("syssecpolicycomponents", "T", _cols(f"secpolicyid {I}, compid {I}, compno {S}")),
    ("syssecpolicyexemptions", "T", _cols(
        f"secpolicyid {I}, grantee {V32}, exemption CHAR(6)")),
    ("sysseclabels", "T", _cols(f"secpolicyid {I}, seclabelid {I}")),
    ("sysseclabelnames", "T", _cols(f"secpolicyid {I}, seclabelid {I}, seclabelname {V128}")),
    ("sysseclabelauth", "T", _cols(
        f"grantee {V32}, secpolicyid {I}, readseclabelid {I}, writeseclabelid {I}")),
    ("syssurrogateauth", "T", _cols(f"surrogate {V32}, grantee {V32}")),
    ("sysproccolumns", "T", _cols(
        f"procid {I}, paramid {I}, paramname {V128}, paramtype {S}, paramlen {S}, "
        f"paramxid {I}, paramattr {S}")),
    ("sysexternal", "T", _cols(
        f"tabid {I}, fmttype {C1}, codeset VARCHAR(18), recdelim VARCHAR(4), "
        f"flddelim VARCHAR(4), datefmt VARCHAR(16), moneyfmt VARCHAR(16), maxerrors {I}, "
        f"rejectfile {V128}, flags {I}, ndfiles {I}")),
    ("sysextdfiles", "T", _cols(f"tabid {I}, dfentry VARCHAR(152)")),
    ("sysextcols", "T", _cols(
        f"tabid {I}, colno {S}, exttype {S}, extstart {S}, extlength {S}, "
        f"nullstr VARCHAR(255), picture VARCHAR(255), decimal {S}, extstype VARCHAR(18)")),
    ("sysautolocate", "T", _cols(f"dbsname {V128}, dbsnum {I}, flags {I}")),
    ("sysfragdist", "T", _cols(
        f"tabid {I}, colno {S}, partnum {I}, seqno {I}, mode {C1}, resolution {F}, "
        f"confidence {F}, smplsize {F}, rowssmpld {F}")),
    ("sysdomains", "T", _cols(f"id {I}, owner {C32}, name {V128}, type {S}")),
    # A view on sysindices in current versions (Guide to SQL: Reference,
    # "SYSINDEXES"): the pre-7.2 shape with part1..part16.
    ("sysindexes", "V", _cols(
        f"idxname {V128}, owner {V32}, tabid {I}, idxtype {C1}, clustered {C1}, {_PARTS}, "
        f"levels {S}, leaves {F}, nunique {F}, clust {F}")),
]

NAMES = frozenset(name for name, _, _ in CATALOG)
# Catalog objects earlier layouts of the emulator made (dropped on upgrade).
_OLD_OBJECTS = ("systables", "syscolumns", "sysindexes", "sysconstraints")

META_DDL = """
CREATE TABLE IF NOT EXISTS _ifx_layout (version INTEGER);
CREATE TABLE IF NOT EXISTS _ifx_constraints (
    constrid INTEGER PRIMARY KEY, constrname TEXT, tabid INTEGER, constrtype TEXT,
    colno INTEGER);
CREATE TABLE IF NOT EXISTS _ifx_checks (
    constrid INTEGER, seqno INTEGER, checktext TEXT, PRIMARY KEY (constrid, seqno));
CREATE TABLE IF NOT EXISTS _ifx_index_desc (
    idxname TEXT, keyno INTEGER, PRIMARY KEY (idxname, keyno));
CREATE TABLE IF NOT EXISTS _ifx_defaults (
    tabid INTEGER, colno INTEGER, type TEXT, deftext TEXT, PRIMARY KEY (tabid, colno));
"""


def _part(k: int) -> str:
    """sysindexes.part<k>: the key's colno, negative when it is DESC (Guide to
    SQL: Reference, SYSINDEXES: "a negative value indicates descending order")."""
    return (f"(SELECT CASE WHEN EXISTS (SELECT 1 FROM _ifx_index_desc d WHERE "
            f"d.idxname = i.idxname AND d.keyno = {k - 1}) THEN -c.colno ELSE c.colno END "
            f"FROM _ifx_columns c WHERE c.tabid = i.tabid AND c.colname = "
            f"(SELECT value FROM json_each(i.cols) WHERE key = {k - 1}))")


# Statistics columns are those of a table no UPDATE STATISTICS has run on.
_VIEWS = {
    "systables": f"""SELECT * FROM (SELECT tabname, owner,
        CASE tabtype WHEN 'T' THEN 1048576 + tabid ELSE 0 END AS partnum, tabid, rowsize,
        ncols, (SELECT count(*) FROM _ifx_indexes i WHERE i.tabid = t.tabid) AS nindexes,
        0.0 AS nrows, created, 1 AS version, tabtype,
        CASE tabtype WHEN 'T' THEN 'P' ELSE ' ' END AS locklevel, 0.0 AS npused,
        CASE tabtype WHEN 'T' THEN 16 ELSE 0 END AS fextsize,
        CASE tabtype WHEN 'T' THEN 16 ELSE 0 END AS nextsize, 0 AS flags, NULL AS site,
        NULL AS dbname, 0 AS type_xid, NULL AS am_id,
        CASE tabtype WHEN 'T' THEN 2048 ELSE 0 END AS pagesize, NULL AS ustlowts,
        NULL AS secpolicyid, NULL AS protgranularity, NULL AS statchange,
        NULL AS statlevel FROM _ifx_tables t
      UNION ALL SELECT tabname, '{OWNER}', 0, tabid, 0, 0, 0, 0.0, NULL, 0, 'L', ' ', 0.0,
        0, 0, 0, site, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL FROM _ifx_locale)
      ORDER BY tabid""",
    "syscolumns": """SELECT colname, tabid, colno, syscoltype AS coltype, collength,
        NULL AS colmin, NULL AS colmax, extended_id, NULL AS seclabelid, 0 AS colattr
        FROM _ifx_columns ORDER BY tabid, colno""",
    "sysindices": f"""SELECT idxname, '{OWNER}' AS owner, tabid, idxtype, ' ' AS clustered,
        1 AS levels, 1.0 AS leaves, 0.0 AS nunique, 0.0 AS clust, 0.0 AS nrows,
        (SELECT group_concat(c.colno || ' [1]', ', ') FROM json_each(i.cols) k
           JOIN _ifx_columns c ON c.tabid = i.tabid AND c.colname = k.value) AS indexkeys,
        1 AS amid, NULL AS amparam, NULL AS collation, 2048 AS pagesize, 0 AS nhashcols,
        1 AS nbuckets, NULL AS ustlowts, NULL AS ustbuildduration, 0.0 AS nupdates,
        0.0 AS ndeletes, 0.0 AS ninserts, 16 AS fextsize, 16 AS nextsize
        FROM _ifx_indexes i ORDER BY tabid, idxname""",
    "sysindexes": f"""SELECT idxname, '{OWNER}' AS owner, tabid, idxtype, ' ' AS clustered,
        {", ".join(f"{_part(k)} AS part{k}" for k in range(1, 17))},
        1 AS levels, 1.0 AS leaves, 0.0 AS nunique, 0.0 AS clust
        FROM _ifx_indexes i ORDER BY tabid, idxname""",
    "sysconstraints": f"""SELECT * FROM (
        SELECT constrid, idxname AS constrname, '{OWNER}' AS owner, tabid, constrtype,
          idxname, NULL AS collation FROM _ifx_indexes
          WHERE constrtype IS NOT NULL AND constrtype <> 'R'
        UNION ALL SELECT constrid, constrname, '{OWNER}', tabid, constrtype,
          (SELECT x.idxname FROM _ifx_indexes x WHERE x.constrid = c.constrid), NULL
          FROM _ifx_constraints c) ORDER BY constrid""",
    # Guide to SQL: Reference, "SYSREFERENCES": primary is the constrid of
    # the referenced primary-key or unique constraint; updrule R(estrict);
    # delrule C(ascade) or R(estrict); matchtype N(one); pendant N.
    "sysreferences": """SELECT c.constrid, (SELECT p.constrid FROM _ifx_indexes p
          JOIN _ifx_tables pt ON pt.tabid = p.tabid
          WHERE pt.tabname = r.ptabname AND p.constrtype IN ('P', 'U')
            AND json(p.cols) = json(r.pcols)) AS "primary",
        (SELECT tabid FROM _ifx_tables WHERE tabname = r.ptabname) AS ptabid,
        'R' AS updrule, CASE r.cascade WHEN 1 THEN 'C' ELSE 'R' END AS delrule,
        'N' AS matchtype, 'N' AS pendant
        FROM _ifx_references r JOIN _ifx_constraints c
          ON c.constrname = r.constrname AND c.constrtype = 'R'
        ORDER BY c.constrid""",
    "syschecks": """SELECT constrid, 'T' AS type, seqno, checktext FROM _ifx_checks
        ORDER BY constrid, seqno""",
    "sysdefaults": """SELECT tabid, colno, type, deftext AS "default", 'T' AS class
        FROM _ifx_defaults ORDER BY tabid, colno""",
    "syscoldepend": """SELECT constrid, tabid, colno FROM _ifx_constraints
        WHERE colno IS NOT NULL ORDER BY constrid""",
}


def install(conn: sqlite3.Connection, created: int,
            column_sql: Callable[[str, str], str],
            add_column: Callable[[sqlite3.Connection, int, int, str, str], None],
            provided: Mapping[str, list[tuple[str, str]]]) -> None:
    """Give the database file the catalog of LAYOUT (idempotent; a file made
    with another layout has its system rows and objects rebuilt).

    ``column_sql(name, type)`` is the SQLite column definition of a
    catalog column; ``add_column`` records one in ``_ifx_columns``;
    ``provided`` names the catalog objects another module makes (SPL's
    sysprocedures/sysprocbody views, spl_catalog.py) with their columns:
    they keep their tabid here but are neither dropped nor created.
    """
    own = {name: name not in provided and name != "syssequences" for name in NAMES}
    conn.executescript(META_DDL)
    row = conn.execute("SELECT max(version) FROM _ifx_layout").fetchone()
    if row[0] == LAYOUT:
        return
    with conn:
        conn.execute("BEGIN")
        for name in sorted(n for n in NAMES | set(_OLD_OBJECTS) if own.get(n, True)):
            kind = conn.execute("SELECT type FROM sqlite_master WHERE name = ?",
                                (name,)).fetchone()
            if kind is not None:
                conn.execute(f'DROP {kind[0].upper()} "{name}"')
        marks = ", ".join("?" * len(NAMES))
        stale = [tabid for (tabid,) in conn.execute(
            f"SELECT tabid FROM _ifx_tables WHERE tabid < 100 OR tabname IN ({marks})",
            sorted(NAMES))]
        conn.executemany("DELETE FROM _ifx_tables WHERE tabid = ?", [(t,) for t in stale])
        conn.executemany("DELETE FROM _ifx_columns WHERE tabid = ?", [(t,) for t in stale])
        conn.execute("DELETE FROM _ifx_columns WHERE tabid < 100")
        for tabid, (name, tabtype, cols) in enumerate(CATALOG, start=1):
            cols = provided.get(name, cols)
            if not own[name]:
                pass
            elif name in _VIEWS:
                conn.execute(f'CREATE VIEW "{name}" AS {_VIEWS[name]}')
            else:
                body = ", ".join(column_sql(c, t) for c, t in cols)
                conn.execute(f'CREATE TABLE "{name}" ({body})')
            conn.execute(
                "INSERT INTO _ifx_tables (tabid, tabname, owner, created, tabtype, ncols,"
                " rowsize) VALUES (?, ?, ?, ?, ?, ?, 0)",
                (tabid, name, OWNER, created, tabtype, len(cols)))
            for colno, (colname, type_text) in enumerate(cols, start=1):
                add_column(conn, tabid, colno, colname, type_text)
        # The creator is the database's DBA (Guide to SQL: Reference, SYSUSERS).
        conn.execute("INSERT INTO sysusers VALUES (?, 'D', 9, NULL, NULL)", (OWNER,))
        conn.execute("DELETE FROM _ifx_layout")
        conn.execute("INSERT INTO _ifx_layout VALUES (?)", (LAYOUT,))


def next_constrid(conn: sqlite3.Connection) -> int:
    """The constrid a new constraint gets: unique across all kinds."""
    top = conn.execute("SELECT max(m) FROM (SELECT max(constrid) AS m FROM _ifx_indexes"
                       " UNION ALL SELECT max(constrid) FROM _ifx_constraints)").fetchone()[0]
    return (top or 0) + 1


def record_check(conn: sqlite3.Connection, tabid: int, name: str | None, text: str,
                 constrid: int | None = None) -> None:
    """A CHECK constraint: its sysconstraints row and its text in syschecks
    (type 'T', cut in CHAR(32) pieces numbered from 0 as the server stores it);
    ``constrid`` keeps an existing one's number (ALTER TABLE, alter.py)."""
    constrid = constrid or next_constrid(conn)
    conn.execute("INSERT INTO _ifx_constraints VALUES (?, ?, ?, 'C', NULL)",
                 (constrid, name or f"c{tabid}_{constrid}", tabid))
    conn.executemany("INSERT INTO _ifx_checks VALUES (?, ?, ?)",
                     [(constrid, n, text[k:k + 32])
                      for n, k in enumerate(range(0, len(text), 32))])


def record_not_null(conn: sqlite3.Connection, tabid: int, colno: int) -> None:
    """A NOT NULL column: the server keeps it as an 'N' constraint (named
    n<tabid>_<constrid>) with its column in syscoldepend."""
    constrid = next_constrid(conn)
    conn.execute("INSERT INTO _ifx_constraints VALUES (?, ?, ?, 'N', ?)",
                 (constrid, f"n{tabid}_{constrid}", tabid, colno))


def record_default(conn: sqlite3.Connection, tabid: int, colno: int, kind: str,
                   text: str | None) -> None:
    """A column default in sysdefaults: L(iteral) with its text, T(oday),
    C(urrent), U(ser)."""
    conn.execute("INSERT INTO _ifx_defaults VALUES (?, ?, ?, ?)", (tabid, colno, kind, text))


def forget_table(conn: sqlite3.Connection, tabid: int) -> None:
    """Remove a dropped table's constraints, check texts and defaults."""
    conn.execute("DELETE FROM _ifx_checks WHERE constrid IN"
                 " (SELECT constrid FROM _ifx_constraints WHERE tabid = ?)", (tabid,))
    conn.execute("DELETE FROM _ifx_constraints WHERE tabid = ?", (tabid,))
    conn.execute("DELETE FROM _ifx_defaults WHERE tabid = ?", (tabid,))

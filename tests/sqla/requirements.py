"""What Informix supports, for SQLAlchemy's compliance suite.

Each exclusion names the Informix rule behind it (IBM Informix Guide to SQL:
Syntax / Reference).  An emulator gap is never excluded here: it is fixed in
the emulator or left failing.
"""

from __future__ import annotations

from sqlalchemy.testing import exclusions
from sqlalchemy.testing.requirements import SuiteRequirements


class Requirements(SuiteRequirements):

    @property
    def schemas(self):
        """Same-named tables under two owners (``test_schema.users`` beside
        ``users``), which the suite's schema tests create.

        The suite runs in a database that is not ANSI-compliant, where a
        table's name must be unique among the tables, views, synonyms and
        sequences of the database whoever owns them; only in an ANSI-compliant
        database is the owner.name pair what must be unique (IBM Informix
        Guide to SQL: Syntax, "Database Object Name" and "Owner Name"; HCL
        Informix 14.10 ids_sqs_1649).  A real server answers the second
        CREATE TABLE with -310, as the emulator does.  The emulator does not
        offer MODE ANSI databases (dbstatements.py), so there is no database
        in which the schema tests could pass.
        """
        return exclusions.closed()

    @property
    def reflects_pk_names(self):
        """A PRIMARY KEY's name is sysconstraints.constrname (IBM Informix Guide
        to SQL: Reference, "SYSCONSTRAINTS")."""
        return exclusions.open()

    @property
    def views(self):
        """CREATE VIEW, its columns in syscolumns and its text in sysviews (IBM
        Informix Guide to SQL: Syntax, "CREATE VIEW"; Reference, "SYSVIEWS")."""
        return exclusions.open()

    @property
    def sql_expression_limit_offset(self):
        """``LIMIT 1 + 1``: SKIP and FIRST take an unsigned integer, a host
        variable or a local SPL variable, never an expression (Guide to SQL:
        Syntax, Projection clause, "Restricting return values with the SKIP,
        LIMIT, and FIRST options"; HCL Informix 14.10 ids_sqs_0982).  The
        dialect refuses an expression with CompileError."""
        return exclusions.closed()

    @property
    def parens_in_union_contained_select_w_limit_offset(self):
        """``(SELECT ... ORDER BY ...) UNION (...)``: in a combined query an
        ORDER BY may only follow the last Projection clause, and names its
        items by select number (Guide to SQL: Syntax, "Restrictions on a
        Combined SELECT"; HCL Informix 14.10 ids_sqs_1073)."""
        return exclusions.closed()

    @property
    def parens_in_union_contained_select_wo_limit_offset(self):
        """As parens_in_union_contained_select_w_limit_offset (ids_sqs_1073)."""
        return exclusions.closed()

    @property
    def order_by_col_from_union(self):
        """``... UNION ... ORDER BY id``: the ORDER BY of a combined query
        must name each item by its select number, not its identifier
        (ids_sqs_1073)."""
        return exclusions.closed()

    @property
    def datetime_microseconds(self):
        """DATETIME keeps at most FRACTION(5), ten microseconds (Guide to SQL:
        Reference, "DATETIME data type": FRACTION(n), n from 1 to 5), so
        12:57:18.039642 is stored as 12:57:18.03964."""
        return exclusions.closed()

    @property
    def time_microseconds(self):
        """A time of day is DATETIME HOUR TO FRACTION(5): ten microseconds at
        best, as datetime_microseconds."""
        return exclusions.closed()

    @property
    def expressions_against_unbounded_text(self):
        """A TEXT operand may appear in a Boolean expression only with IS
        [NOT] NULL (Guide to SQL: Reference, "TEXT data type"; HCL Informix
        14.10 ids_ddi_076, "Use TEXT and BYTE data types")."""
        return exclusions.closed()

    @property
    def create_table_as(self):
        """CREATE TABLE name [(columns)] AS SELECT ... (IBM Informix 12.10
        Guide to SQL: Syntax, CREATE TABLE, "AS SELECT clause",
        ids_sqs_0403)."""
        return exclusions.open()

    @property
    def temp_table_reflection(self):
        """Reflecting a TEMP table (its columns, keys, indexes) from the
        catalog: Informix records a temporary table in no catalog table of
        the database.  It belongs to the session that made it, not to the
        database (Guide to SQL: Syntax, "CREATE TEMP TABLE", ids_sqs_0571,
        and "Declaring a name for a temporary table"), and its definition
        is not in systables, syscolumns or sysindexes (IBM Informix China,
        "Informix temporary tables and the IDS 11.5 features",
        blog.csdn.net/ibminformix/article/details/4708450: the server keeps
        no dictionary information for a temp table; none of it can be read
        from the system tables).  The dialect reflects from the catalog
        (issue 15, item 3); the emulator keeps temp tables out of its
        catalog as the server does (emulator/temp_tables.py).  This also
        closes temp_table_reflect_indexes; has_temp_table and
        temp_table_names stay closed as SQLAlchemy's defaults have them."""
        return exclusions.closed()

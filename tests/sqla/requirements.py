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

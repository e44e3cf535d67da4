"""What Informix supports, for SQLAlchemy's compliance suite.

Each exclusion names the Informix rule behind it (IBM Informix Guide to SQL:
Syntax / Reference).  An emulator gap is never excluded here: it is fixed in
the emulator or left failing.
"""

from __future__ import annotations

from sqlalchemy.testing import exclusions
from sqlalchemy.testing.requirements import SuiteRequirements


class Requirements(SuiteRequirements):
    pass

"""SQLAlchemy's own dialect compliance suite, every test of it."""

from sqlalchemy.testing.suite import *  # noqa: F401,F403

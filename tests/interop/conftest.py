"""Fixtures every interop module shares."""

from __future__ import annotations

import pytest

from .jdbc_runner import JdbcClient, JdbcUnavailable, build_client


@pytest.fixture(scope="session")
def jdbc() -> JdbcClient:
    """IBM's JDBC driver behind the compiled interop client, built once per run;
    every test that needs it skips, saying why, when Java or the jar is missing."""
    try:
        return build_client()
    except JdbcUnavailable as exc:
        pytest.skip(f"JDBC interop skipped: {exc}")

"""Connection parameters: keywords, a connection string, IFX_* defaults.

``connect()`` and ``connect_async()`` take the same keywords (informix-driver's
names, so switching is a one-line change), optionally a connection string
``informix://user:password@host:port/database?server=...&client_locale=...``,
and fall back to ``IFX_HOST``, ``IFX_PORT``, ``IFX_USER``, ``IFX_PASSWORD``,
``IFX_DATABASE``, ``IFX_SERVER``, ``IFX_CLIENT_LOCALE`` and ``IFX_DB_LOCALE``
from the environment.  Explicit keywords
win over the string, which wins over the environment.
"""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass, field, fields
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from .errors import InterfaceError
from .locales import parse_locale

DEFAULT_PORT = 9088
# Tuple buffer asked for in each NFETCH.  Chosen by bench/throughput: past
# 64 KiB the per-fetch round trip is already amortised and a larger buffer
# only raises the memory a cursor holds.
DEFAULT_FETCH_BUFFER = 64 * 1024
MAX_FETCH_BUFFER = 2 * 1024 * 1024 * 1024 - 1
DEFAULT_MAX_MESSAGE = 64 * 1024 * 1024
# Prepared statements a connection keeps for re-execution (0: none).
DEFAULT_PREPARE_CACHE = 32

_ENV_KEYS = {"host": "IFX_HOST", "port": "IFX_PORT", "user": "IFX_USER",
             "password": "IFX_PASSWORD", "database": "IFX_DATABASE", "server": "IFX_SERVER",
             "client_locale": "IFX_CLIENT_LOCALE", "db_locale": "IFX_DB_LOCALE"}


@dataclass
class ConnectParams:
    """Everything a connection is opened with (never logged: it holds the password)."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    user: str = "informix"
    password: str | None = field(default=None, repr=False)
    database: str | None = None
    server: str = "informix"
    autocommit: bool = False
    fetch_buffer_size: int = DEFAULT_FETCH_BUFFER
    connect_timeout: float | None = 10.0
    read_timeout: float | None = None
    statement_timeout: float | None = None
    tls: ssl.SSLContext | bool | None = None
    tls_server_hostname: str | None = None
    tls_insecure_skip_verify: bool = False
    max_message_size: int = DEFAULT_MAX_MESSAGE
    prepare_cache_size: int = DEFAULT_PREPARE_CACHE
    keepalive: bool = False
    client_locale: str | None = None
    db_locale: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    row_factory: Any = None
    raise_warnings: bool = False
    # how a ROW value decodes: "tuple" (a named tuple) or "dict"
    composite_rows: str = "tuple"

    def tls_context(self) -> ssl.SSLContext | None:
        """TLS verifies by default; only ``tls_insecure_skip_verify`` turns it off."""
        if not self.tls:
            if self.tls_insecure_skip_verify or self.tls_server_hostname:
                raise InterfaceError("TLS options given without tls=True or an SSLContext")
            return None
        if isinstance(self.tls, ssl.SSLContext):
            if self.tls_insecure_skip_verify:
                raise InterfaceError("tls_insecure_skip_verify applies to tls=True; "
                                     "configure your own SSLContext instead")
            return self.tls
        ctx = ssl.create_default_context()
        if self.tls_insecure_skip_verify:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        return ctx


def _check_locale(name: str | None, what: str) -> None:
    """A locale we have no codec for is refused before any byte is sent."""
    if name is not None:
        parse_locale(name, what)


def parse_dsn(dsn: str) -> dict[str, Any]:
    """``informix://user:password@host:port/database?server=...`` as keywords."""
    parts = urlsplit(dsn)
    if parts.scheme not in ("informix", "informix+informix_stream"):
        raise InterfaceError(f"connection string must start with informix://, not {parts.scheme!r}://")
    out: dict[str, Any] = {}
    if parts.hostname:
        out["host"] = parts.hostname
    if parts.port:
        out["port"] = parts.port
    if parts.username:
        out["user"] = unquote(parts.username)
    if parts.password is not None:
        out["password"] = unquote(parts.password)
    if parts.path.strip("/"):
        out["database"] = unquote(parts.path.strip("/"))
    known = {f.name for f in fields(ConnectParams)}
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key not in known or key in ("tls", "row_factory", "env"):
            raise InterfaceError(f"unknown or unsupported connection string option {key!r}")
        out[key] = value
    return out


def resolve(dsn: str | None, kwargs: dict[str, Any]) -> ConnectParams:
    """Merge keywords, connection string and environment into ConnectParams."""
    merged: dict[str, Any] = {}
    for key, var in _ENV_KEYS.items():
        if var in os.environ:
            merged[key] = os.environ[var]
    if dsn:
        merged.update(parse_dsn(dsn))
    merged.update({k: v for k, v in kwargs.items() if v is not None or k == "password"})
    known = {f.name: f for f in fields(ConnectParams)}
    for key in merged:
        if key not in known:
            raise TypeError(f"connect() got an unexpected keyword argument {key!r}")
    params = ConnectParams(**merged)
    _coerce(params)
    return params


def _coerce(p: ConnectParams) -> None:
    """Connection-string and environment values arrive as text."""
    try:
        p.port = int(p.port)
        p.fetch_buffer_size = int(p.fetch_buffer_size)
        p.max_message_size = int(p.max_message_size)
        p.prepare_cache_size = int(p.prepare_cache_size)
        for name in ("connect_timeout", "read_timeout", "statement_timeout"):
            value = getattr(p, name)
            if isinstance(value, str):
                setattr(p, name, float(value))
    except (TypeError, ValueError) as exc:
        raise InterfaceError(f"invalid connection parameter: {exc}") from None
    for name in ("autocommit", "keepalive", "tls_insecure_skip_verify", "raise_warnings"):
        value = getattr(p, name)
        if isinstance(value, str):
            setattr(p, name, value.lower() in ("1", "true", "yes", "on"))
    if not 1 <= p.fetch_buffer_size <= MAX_FETCH_BUFFER:
        raise InterfaceError(f"fetch_buffer_size must be 1..{MAX_FETCH_BUFFER}")
    if p.prepare_cache_size < 0:
        raise InterfaceError("prepare_cache_size must not be negative")
    if p.max_message_size < 1024:
        raise InterfaceError("max_message_size must be at least 1024 bytes")
    _check_locale(p.client_locale, "client_locale")
    _check_locale(p.db_locale, "db_locale")
    if not isinstance(p.env, dict):
        raise InterfaceError("env must be a dict of session environment settings")

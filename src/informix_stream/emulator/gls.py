"""The emulator's GLS rules: which locales it can load, and how a session's
DB_LOCALE is checked against a database's.

* A login whose CLIENT_LOCALE or DB_LOCALE names a locale the server has no
  files for is refused with -23101 (HCL Informix docs, "Unable to load
  locale categories for locale ...": the GLS locale in CLIENT_LOCALE or
  DB_LOCALE cannot be loaded).
* Opening a database compares the DB_LOCALE the client sent (the default
  locale, en_US.819, when it sent none) with the database's: when they
  differ the SQ_DONE of the open carries SQLWARN7 (bit 0x40) and the session
  goes on in the database's locale (IBM GLS User's Guide, "Verify the
  database locale"; JDBC's IfxSqliConnect.OpenDbInit reads the bit as
  chgLocale and then asks systables' ' GL_COLLATE' row).
* A new database takes the DB_LOCALE the client sent (GLS User's Guide,
  "Locale information for the database": "For a new database, the database
  server uses the DB_LOCALE, which the client application has sent").
"""

from __future__ import annotations

from ..errors import NotSupportedError
from ..locales import DEFAULT_LOCALE, Locale, parse_locale
from .statements import SqlError

__all__ = ["DB_LOCALE_MISMATCH", "ILLEGAL_CHARACTER", "INVALID_TEXT", "LOCALE_NOT_LOADED",
           "session_locales", "locale_warning", "wire_codec", "decode_sql", "refuse_invalid"]

DB_LOCALE_MISMATCH = 0x40
# Character data from a client is checked against the database's locale:
# with EILSEQ_COMPAT_MODE at its default 0 "Informix validates incoming
# character sequences with the current locale and returns error -202 if any
# characters are not valid" (HCL Informix Administrator's Reference, 12.10 and
# 14.10, "EILSEQ_COMPAT_MODE configuration parameter"); -202 "An illegal
# character has been found in the statement" (IBM JDBC 15.0.1.0 message
# catalog, sql_en_US.properties).  The client sends text in the database's
# code set here (wire_codec), so bytes that do not decode are such characters.
ILLEGAL_CHARACTER = -202
LOCALE_NOT_LOADED = -23101

# Language_territory pairs whose locale files the emulator "has"
# ($INFORMIXDIR/gls/lc11/<ll_tt>/); a locale outside them cannot be loaded.
INSTALLED_TERRITORIES = frozenset({
    "en_US", "en_GB", "de_DE", "de_AT", "de_CH", "fr_FR", "fr_CA", "es_ES", "it_IT",
    "nl_NL", "pt_BR", "pt_PT", "sv_SE", "da_DK", "fi_FI", "no_NO", "pl_PL", "cs_CZ",
    "ja_JP", "ko_KR", "zh_CN", "zh_TW", "ru_RU"})


def session_locales(env: dict[str, str]) -> tuple[dict[str, Locale], str | None]:
    """CLIENT_LOCALE and DB_LOCALE from a login's environment: (those that
    were sent, parsed; the first one that cannot be loaded, or None)."""
    out: dict[str, Locale] = {}
    for key in ("CLIENT_LOCALE", "DB_LOCALE"):
        text = env.get(key)
        if not text:
            continue
        try:
            loc = parse_locale(text, key)
        except NotSupportedError:
            return out, text
        if f"{loc.language}_{loc.territory}" not in INSTALLED_TERRITORIES:
            return out, text
        out[key] = loc
    return out, None


def locale_warning(sent: Locale | None, database: Locale) -> int:
    """The SQ_DONE warning bit of a database open for this DB_LOCALE."""
    return 0 if (sent or DEFAULT_LOCALE) == database else DB_LOCALE_MISMATCH


def wire_codec(db, sent: Locale | None) -> str:
    """A session's code set: the open database's, else that of the
    DB_LOCALE the client sent (or the default's)."""
    if db is not None:
        return db.locale.codec
    return (sent or DEFAULT_LOCALE).codec


def decode_sql(raw: bytes, codec: str) -> str:
    """Statement text from the wire; bytes invalid in the code set are the
    server's -202 (see ILLEGAL_CHARACTER), not a crash."""
    try:
        return raw.decode(codec)
    except UnicodeDecodeError:
        raise SqlError(ILLEGAL_CHARACTER, message=f"the statement text is not {codec} text"
                       ) from None


class InvalidText:
    """What an SQ_BIND text value whose bytes are no text in the session's
    code set is read as.  Reading it must not fail: the request's other
    messages have to be parsed past it, or the wire position is lost and the
    connection with it.  The statement refuses it when it is bound
    (refuse_invalid), before anything is executed."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<invalid text>"


INVALID_TEXT = InvalidText()


def refuse_invalid(values: list) -> None:
    """-202 when a bound value was no text in the code set (see INVALID_TEXT)."""
    for v in values:
        if v is INVALID_TEXT:
            raise SqlError(ILLEGAL_CHARACTER, message="a bound text value holds bytes that "
                                                      "are not characters of the database's "
                                                      "code set")

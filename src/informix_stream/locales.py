"""GLS locale names as Informix spells them, and the code sets behind them.

A locale is ``language_territory.codeset[@modifier]`` (``en_US.8859-1``,
``en_US.819``, ``en_US.utf8``, ``en_US.57372``, ``de_DE.8859-15``,
``en_US.CP1252``).  A code set has names and one number (IBM's GLS registry,
``$INFORMIXDIR/gls/cm3/registry``: 8859-1 is 819, utf8 is 57372, ...); two
locales are the same when language, territory, code set *number* and
modifier are (IBM GLS User's Guide, "Verify the database locale").

Both ends use this module: the driver to pick the Python codec its text
travels in (always the database's code set: JDBC converts between its
client and database encodings, IfxSqli.fetchCodesetConvertedTextBlob), the
emulator to name a database's locale and to compare it with a session's.
Unknown code sets are refused with NotSupportedError naming them, never
guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass

from .codec.scalars import fit_encoded
from .errors import NotSupportedError

__all__ = ["Locale", "parse_locale", "DEFAULT_LOCALE", "CODE_SETS", "fit_bytes"]

# code set number -> (GLS names, Python codec).  The numbers are IBM's
# registry numbers; the names are those the registry lists for them.
CODE_SETS: dict[int, tuple[tuple[str, ...], str]] = {
    819: (("8859-1", "iso8859-1", "iso-8859-1"), "iso-8859-1"),
    912: (("8859-2", "iso8859-2", "iso-8859-2"), "iso-8859-2"),
    923: (("8859-15", "iso8859-15", "iso-8859-15"), "iso-8859-15"),
    1252: (("cp1252", "windows-1252"), "cp1252"),
    850: (("cp850", "pc-850"), "cp850"),
    57372: (("utf8", "utf-8"), "utf-8"),
}
_BY_NAME = {name: number for number, (names, _) in CODE_SETS.items() for name in names}
_BY_NAME.update({str(number): number for number in CODE_SETS})


@dataclass(frozen=True)
class Locale:
    """One GLS locale, with its code set resolved."""

    language: str          # "en"
    territory: str         # "US"
    code_set: int          # registry number, e.g. 819
    modifier: str = ""

    @property
    def codec(self) -> str:
        """The Python codec text in this locale travels in."""
        return CODE_SETS[self.code_set][1]

    @property
    def name(self) -> str:
        """The locale as the server writes it in its catalog: en_US.819."""
        mod = f"@{self.modifier}" if self.modifier else ""
        return f"{self.language}_{self.territory}.{self.code_set}{mod}"

    @property
    def multibyte(self) -> bool:
        return self.code_set == 57372


def parse_locale(text: str, what: str = "locale") -> Locale:
    """``en_US.utf8`` -> Locale; an unknown code set is NotSupportedError."""
    if not isinstance(text, str):
        raise NotSupportedError(f"{what}={text!r} is not a locale name")
    body, _, modifier = text.strip().partition("@")
    lang_terr, dot, code_set = body.partition(".")
    language, _, territory = lang_terr.partition("_")
    if not (dot and language and territory and code_set):
        raise NotSupportedError(f"{what}={text!r} is not a locale: expected "
                                "language_territory.codeset, e.g. en_US.utf8")
    number = _BY_NAME.get(code_set.lower())
    if number is None:
        known = ", ".join(names[0] for names, _ in CODE_SETS.values())
        raise NotSupportedError(f"{what}={text!r}: code set {code_set!r} is not supported "
                                f"(supported: {known})")
    return Locale(language.lower(), territory.upper(), number, modifier.lower())


# The locale a server assumes when a client names none (IBM GLS User's
# Guide, "The default locale": U.S. English, ISO 8859-1).
DEFAULT_LOCALE = Locale("en", "US", 819)


def fit_bytes(text: str, limit: int, codec: str) -> tuple[str, bytes]:
    """``text`` cut to at most ``limit`` bytes in ``codec``, never inside a
    multibyte character: (the kept text, its bytes).  Informix truncates a
    too-long CHAR/VARCHAR value in a database that is not ANSI-compliant
    this way (IBM GLS User's Guide, "Partial characters in column
    substrings" / "Truncation of multibyte strings")."""
    data = text.encode(codec)
    if len(data) <= limit:
        return text, data
    kept = fit_encoded(data, limit, codec)
    return kept.decode(codec), kept

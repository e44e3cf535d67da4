"""DATE text as the session's DBDATE (or GL_DATE) says, read and written.

The server turns text into a DATE (a literal, ``DATE('...')``, a CHAR
parameter bound to a DATE, a cast) and a DATE into text (``CAST(d AS
CHAR(10))``, a DATE written to a CHAR column) in the end-user format the
client's environment names.  What the emulator takes from the IBM/HCL
documentation:

* DBDATE (Guide to SQL: Reference, "DBDATE environment variable",
  ids_sqr_212): the order of the units, ``MD`` or ``DM`` and ``Y2`` or
  ``Y4`` in either order (``MDY4``, ``DMY2``, ``Y4MD``, ``Y2DM``...), then a
  separator: ``-``, ``.``, ``/`` or ``0`` for none; any other separator
  character, or none at all, means ``/``.  The default for US English is
  ``MDY4/``.  DBDATE takes precedence over GL_DATE and over the date format
  of CLIENT_LOCALE (GLS User's Guide, "DBDATE environment variable").
* Input: "if you specify a literal DATE value in an INSERT statement,
  Informix database servers require this literal value to be compatible
  with the format specified by the DBDATE variable" (JDBC Guide, "The
  DBDATE variable").  Any one non-digit character may separate the units
  (ESQL/C ``rstrdate``: "You can use any nonnumeric character as a
  separator"); text without separators must be six or eight digits
  (``ifx_defmtdate``, -1209).  A year of one or two digits is expanded by
  DBCENTURY, whose default R takes the current century (ESQL/C
  ``ifx_strdate``); the emulator supports only R.
* Errors (ESQL/C ``rstrdate``/``ifx_strdate`` return codes; their texts in
  IBM JDBC 15.0.1.0's rds_en_US.properties): -1204 invalid year, -1205
  invalid month, -1206 invalid day, -1209 no separators and not six or
  eight digits, -1218 text that is no date.
* GL_DATE (GLS User's Guide, "GL_DATE environment variable"): a format of
  ``%`` directives.  The emulator takes those that are a DBDATE in other
  words: ``%m``, ``%d`` and ``%Y`` or ``%y``, once each, between them one
  and the same separator or none; any other GL_DATE is refused at login.

Unconfirmed: whether the server accepts two different separators in one
value (the emulator refuses: -1218) and what it answers for a year-first
text under a month-first DBDATE (the emulator reads the units in DBDATE's
order, so ``'2024-05-06'`` under ``MDY4/`` is an invalid month, -1205).

The style in effect is per thread (``in_effect``): one session's request
runs on one thread, and the writers that parse DATE text are shared by all
sessions (values.writer_for), as are SQLite's user functions.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import threading
from dataclasses import dataclass
from typing import Iterator

from .statements import NOT_SUPPORTED, SqlError, conversion_error

__all__ = ["DateStyle", "DEFAULT_STYLE", "session_style", "login_style", "in_effect", "current"]

_SEPARATORS = {"-": "-", ".": ".", "/": "/", "0": ""}
_DBDATE_RE = re.compile(r"(?:(MD|DM)Y([24])|Y([24])(MD|DM))(.?)")
_TEXT_RE = re.compile(r"\s*(\d+)([^\d\s])(\d+)\2(\d+)\s*")
_DIGITS_RE = re.compile(r"\s*(\d+)\s*")
_GL_UNITS = {"%m": "M", "%d": "D", "%Y": "Y4", "%y": "Y2"}


@dataclass(frozen=True)
class DateStyle:
    """One end-user DATE format: unit order, year digits, separator."""

    order: str            # "MDY", "DMY", "YMD" or "YDM"
    year_digits: int      # 2 or 4 (written; read: 1-4 digits)
    separator: str        # "/", "-", "." or "" (DBDATE's 0)
    refusal: str = ""     # set: this session's DATE text is not supported

    def format(self, d: dt.date) -> str:
        """A DATE as the server writes it for this session."""
        self._refuse()
        year = f"{d.year:04d}" if self.year_digits == 4 else f"{d.year % 100:02d}"
        units = {"M": f"{d.month:02d}", "D": f"{d.day:02d}", "Y": year}
        return self.separator.join(units[u] for u in self.order)

    def parse(self, text: str) -> dt.date:
        """DATE text read in this session's unit order (see the module)."""
        self._refuse()
        fields = _split(text, self.order)
        units = dict(zip(self.order, fields))
        year, month, day = units["Y"], units["M"], units["D"]
        number = int(year)
        if len(year) <= 2:
            number += dt.date.today().year // 100 * 100      # DBCENTURY=R
        if not 1 <= number <= 9999:
            raise conversion_error(-1204, text)
        if not 1 <= int(month) <= 12:
            raise conversion_error(-1205, text)
        try:
            return dt.date(number, int(month), int(day))
        except ValueError:
            raise conversion_error(-1206, text) from None

    def _refuse(self) -> None:
        if self.refusal:
            raise SqlError(NOT_SUPPORTED, message=self.refusal)


def _split(text: str, order: str) -> list[str]:
    """The three unit fields of ``text``, in ``order``."""
    m = _TEXT_RE.fullmatch(text)
    if m:
        return [m.group(1), m.group(3), m.group(4)]
    m = _DIGITS_RE.fullmatch(text)
    if not m:
        raise conversion_error(-1218, text)
    digits = m.group(1)
    if len(digits) not in (6, 8):
        raise conversion_error(-1209, text)
    widths = [len(digits) - 4 if u == "Y" else 2 for u in order]
    out, at = [], 0
    for width in widths:
        out.append(digits[at:at + width])
        at += width
    return out


DEFAULT_STYLE = DateStyle("MDY", 4, "/")
"""DBDATE's default for US English, MDY4/ (ids_sqr_212)."""


def parse_dbdate(value: str) -> DateStyle:
    """A DBDATE setting; SqlError (not supported) for one the emulator does
    not know, e.g. the era-based forms of East Asian locales."""
    m = _DBDATE_RE.fullmatch(value)
    if not m:
        raise _unsupported(f"DBDATE={value!r}")
    md, y_last, y_first, md_after, sep = m.groups()
    order = md + "Y" if md else "Y" + md_after
    return DateStyle(order, int(y_last or y_first), _SEPARATORS.get(sep, "/"))


def parse_gl_date(value: str) -> DateStyle:
    """A GL_DATE setting that says what a DBDATE could (see the module)."""
    m = re.fullmatch(r"(%[a-zA-Z])([^%\d]?)(%[a-zA-Z])\2(%[a-zA-Z])", value)
    units = [_GL_UNITS.get(d) for d in m.group(1, 3, 4)] if m else []
    if None in units or sorted(u[0] for u in units) != ["D", "M", "Y"]:
        raise _unsupported(f"GL_DATE={value!r}")
    year = next(u for u in units if u[0] == "Y")
    return DateStyle("".join(u[0] for u in units), int(year[1]), m.group(2))


def session_style(env: dict[str, str]) -> DateStyle:
    """The DATE format of a login's environment: DBDATE, else GL_DATE, else
    the client locale's (MDY4/ for en_US; another locale's own format is not
    known to the emulator, so its DATE text is refused when used).
    Raises SqlError for a setting the emulator does not support."""
    century = env.get("DBCENTURY")
    if century and century != "R":
        raise _unsupported(f"DBCENTURY={century!r}")
    if env.get("DBDATE"):
        return parse_dbdate(env["DBDATE"])
    if env.get("GL_DATE"):
        return parse_gl_date(env["GL_DATE"])
    locale = env.get("CLIENT_LOCALE") or "en_US"
    if locale.lower().startswith("en_us"):
        return DEFAULT_STYLE
    return DateStyle("MDY", 4, "/", refusal=f"DATE text in the CLIENT_LOCALE {locale}'s own "
                     f"format is not supported by the emulator; set DBDATE or GL_DATE")


def login_style(env: dict[str, str]) -> tuple[DateStyle, str]:
    """``session_style``, or MDY4/ and why the login is refused."""
    try:
        return session_style(env), ""
    except SqlError as exc:
        return DEFAULT_STYLE, exc.message


def _unsupported(setting: str) -> SqlError:
    return SqlError(NOT_SUPPORTED, message=f"{setting} is not supported by the emulator")


_local = threading.local()


def current() -> DateStyle:
    """The style of the session whose request this thread is running
    (MDY4/ outside one)."""
    return getattr(_local, "style", DEFAULT_STYLE)


@contextlib.contextmanager
def in_effect(style: DateStyle) -> Iterator[None]:
    """Run a session's request with its DATE format."""
    before = current()
    _local.style = style
    try:
        yield
    finally:
        _local.style = before

"""Proleptic Gregorian calendar tables for the column-wise DATETIME paths
(decode in packed_columns.py, encode in put_images.py): a date <-> days
since 1970-01-01 by table lookups instead of per-value arithmetic with
several divisions.

The plain reference is Python's own ``datetime.date`` (toordinal /
fromordinal), which the differential tests of both paths hold these to.
"""

from __future__ import annotations

MONTH_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
FIRST_DAY, LAST_DAY = -719162, 2932896          # 0001-01-01 and 9999-12-31
_TABLES = None
_DAY_OF_YEAR = None
_MONTHS = None


def day_tables(np):
    """(days from 1970-01-01 to January 1st of each year 0..10000, whether
    each year is leap, the first day of each month of a common year as a
    day of the year (index 1..12), each month's days (index 1..12))."""
    global _TABLES
    if _TABLES is None:
        years = np.arange(10001)
        leap = (years % 4 == 0) & ((years % 100 != 0) | (years % 400 == 0))
        y = years - 1
        starts = y * 365 + y // 4 - y // 100 + y // 400 + FIRST_DAY
        month_start = np.concatenate([[0, 0], np.cumsum(MONTH_DAYS[1:12])]).astype(np.int64)
        _TABLES = (starts.astype(np.int64), leap, month_start,
                   np.asarray(MONTH_DAYS, np.int64))
    return _TABLES


def month_tables(np):
    """(days from 1970-01-01 to the day before each month's first, days in
    the month), both indexed by ``year * 16 + month``: 0 days for month 0,
    13..15 and year 0, so that one ``day <= days`` check also checks the
    year and the month."""
    global _MONTHS
    if _MONTHS is None:
        starts, leap, month_start, month_days = day_tables(np)
        base = np.zeros((10000, 16), np.int64)
        days = np.zeros((10000, 16), np.int64)
        base[:, 1:13] = starts[:10000, None] + month_start[None, 1:13] - 1
        base[:, 3:13] += leap[:10000, None]
        days[:, 1:13] = month_days[None, 1:13]
        days[:, 2] += leap[:10000]
        days[0] = 0
        _MONTHS = (base.reshape(-1), days.reshape(-1).astype(np.int8))
    return _MONTHS


def _day_of_year_tables(np):
    """(month, day) of each day of the year 0..365, for a common year
    (rows 0..365) and a leap year (rows 366..731)."""
    global _DAY_OF_YEAR
    if _DAY_OF_YEAR is None:
        months, days = [], []
        for leap in (False, True):
            for month in range(1, 13):
                count = MONTH_DAYS[month] + (leap and month == 2)
                months += [month] * count
                days += range(1, count + 1)
            if not leap:
                months.append(12)           # day 365 of a common year: never read
                days.append(31)
        _DAY_OF_YEAR = (np.asarray(months, np.int64), np.asarray(days, np.int64))
    return _DAY_OF_YEAR


_ERA = None
ERA_DAYS = 146097                               # days in 400 Gregorian years


def era_tables(np):
    """For each day 0..146096 of a 400-year era starting on January 1st of
    year 1 (mod 400): the date part of a DATETIME cell as a little-endian
    uint64, the year's pairs at bytes 1 (century within the era, 0..4) and 2
    (year mod 100, the same in every era), month at byte 3, day at byte 4.
    Adding ``era << 10`` (4 centuries an era) to byte 1 makes it any day's:
    one gather and an add instead of several passes per field (the encode
    half of put_cells.py)."""
    global _ERA
    if _ERA is None:
        # built a year at a time: whole-era temporaries (a dozen arrays of
        # 146,097 int64) would raise a load's RSS by megabytes it never
        # gives back (bench/memory's load check), for a 1.2 MB table
        u = np.uint64
        months, month_days = _day_of_year_tables(np)
        dates = (months.astype(u) << u(24)) | (month_days.astype(u) << u(32))
        era = np.empty(ERA_DAYS, u)
        at = 0
        for year in range(1, 401):
            leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
            length = 365 + leap
            first = 366 * leap                  # the leap year's days follow the common one's
            century, yy = divmod(year, 100)
            np.bitwise_or(dates[first:first + length], u((century << 8) | (yy << 16)),
                          out=era[at:at + length])
            at += length
        _ERA = era
    return _ERA



_PAIR_TABLES = None


def pair_tables(np):
    """Two base-100 pairs read as one big-endian uint16 (first pair in the
    high byte) -> (the year ``p0 * 100 + p1`` times 16, the row of
    month_tables' year; 0 when a pair is over 99, a row whose months have
    no days, so the day check refuses it), and -> (the seconds of hour p0
    and minute p1; -1 when p0 > 23 or p1 > 59).  One gather of a 256 KB
    table each instead of a pass per pair and per check."""
    global _PAIR_TABLES
    if _PAIR_TABLES is None:
        high, low = np.divmod(np.arange(65536, dtype=np.int32), 256)
        year16 = np.where((high <= 99) & (low <= 99), (high * 100 + low) * 16, 0)
        seconds = np.where((high <= 23) & (low <= 59), high * 3600 + low * 60, -1)
        _PAIR_TABLES = (year16.astype(np.int32), seconds.astype(np.int32))
    return _PAIR_TABLES

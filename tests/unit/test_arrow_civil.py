"""arrow/civil.py's calendar tables against Python's own calendar, over
every day of years 1..9999 (the whole domain, so no sample can miss a
year boundary the mean-year-length guess gets wrong)."""

from __future__ import annotations

import datetime as dt

import pytest

np = pytest.importorskip("numpy", reason="the arrow extra (numpy, pyarrow) is not installed")

from informix_stream.arrow import civil  # noqa: E402

_EPOCH = dt.date(1970, 1, 1).toordinal()


def test_the_domain_is_python_dates():
    assert civil.FIRST_DAY == dt.date(1, 1, 1).toordinal() - _EPOCH
    assert civil.LAST_DAY == dt.date(9999, 12, 31).toordinal() - _EPOCH


def test_every_day_converts_like_numpy_datetime64():
    days = np.arange(civil.FIRST_DAY, civil.LAST_DAY + 1)
    year, month, day = civil.civil_from_days(np, days)
    moments = days.astype("datetime64[D]")
    years = moments.astype("datetime64[Y]")
    months = moments.astype("datetime64[M]")
    assert (year == years.astype(np.int64) + 1970).all()
    assert (month == (months - years).astype(np.int64) + 1).all()
    assert (day == (moments - months).astype(np.int64) + 1).all()


@pytest.mark.parametrize("when", [dt.date(1, 1, 1), dt.date(1600, 2, 29), dt.date(1900, 3, 1),
                                  dt.date(2000, 12, 31), dt.date(9999, 12, 31)])
def test_tables_give_python_ordinals(when):
    starts, leap, month_start, _ = civil.day_tables(np)
    days = int(starts[when.year] + month_start[when.month]
               + (leap[when.year] and when.month > 2) + when.day - 1)
    assert days == when.toordinal() - _EPOCH
    assert tuple(int(v[0]) for v in civil.civil_from_days(np, np.array([days]))) == \
        (when.year, when.month, when.day)


def test_month_tables_give_every_month_and_refuse_the_rest():
    import calendar
    before, days = civil.month_tables(np)
    for year in range(10000):
        for month in range(16):
            key = year * 16 + month
            if year and 1 <= month <= 12:
                first = dt.date(year, month, 1).toordinal() - _EPOCH
                assert (int(before[key]) + 1, int(days[key])) == \
                    (first, calendar.monthrange(year, month)[1])
            else:
                assert days[key] == 0


def test_pair_tables_are_the_plain_pair_arithmetic():
    year16, hour_minute = civil.pair_tables(np)
    for value in range(65536):
        high, low = divmod(value, 256)
        both = high <= 99 and low <= 99
        assert year16[value] == ((high * 100 + low) * 16 if both else 0)
        time_ok = high <= 23 and low <= 59
        assert hour_minute[value] == (high * 3600 + low * 60 if time_ok else -1)

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


def _numpy_fields(days):
    moments = days.astype("datetime64[D]")
    years = moments.astype("datetime64[Y]")
    months = moments.astype("datetime64[M]")
    return (years.astype(np.int64) + 1970, (months - years).astype(np.int64) + 1,
            (moments - months).astype(np.int64) + 1)


def test_every_day_of_the_era_tables_is_numpy_datetime64s():
    # every day of years 1..9999 as put_cells reads it: the era's table
    # entry, its centuries added to byte 1
    days = np.arange(civil.FIRST_DAY, civil.LAST_DAY + 1)
    era, day_of_era = np.divmod(days - civil.FIRST_DAY, civil.ERA_DAYS)
    words = civil.era_tables(np).take(day_of_era) + (era.astype(np.uint64) << np.uint64(10))
    cells = words.astype("<u8").view(np.uint8).reshape(-1, 8)
    year, month, day = _numpy_fields(days)
    assert (cells[:, 1] == year // 100).all() and (cells[:, 2] == year % 100).all()
    assert (cells[:, 3] == month).all() and (cells[:, 4] == day).all()
    assert not cells[:, [0, 5, 6, 7]].any()


@pytest.mark.parametrize("when", [dt.date(1, 1, 1), dt.date(1600, 2, 29), dt.date(1900, 3, 1),
                                  dt.date(2000, 12, 31), dt.date(9999, 12, 31)])
def test_tables_give_python_ordinals(when):
    starts, leap, month_start, _ = civil.day_tables(np)
    days = int(starts[when.year] + month_start[when.month]
               + (leap[when.year] and when.month > 2) + when.day - 1)
    assert days == when.toordinal() - _EPOCH


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

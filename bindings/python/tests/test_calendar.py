"""Calendar alarms through the binding: occurrences against Python's
zoneinfo (a second oracle beside systemd-analyze, used in the Swift tests),
the timer on a manual clock, and bad input."""

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

import tocsin
from tocsin import EventKind, State

UTC = timezone.utc
# 2027-03-26, a Friday, 06:00 UTC.
FRIDAY_0600 = 1806040800.0
HOUR, DAY = 3600.0, 86400.0


def first_instant(local: datetime, zone: ZoneInfo) -> float:
    """When the zone's clocks first read ``local``: the earlier of a repeated
    time; for a skipped one, the moment of the change."""
    early = local.replace(tzinfo=zone, fold=0).timestamp()
    late = local.replace(tzinfo=zone, fold=1).timestamp()
    if datetime.fromtimestamp(early, zone).replace(tzinfo=None) == local:
        return min(early, late) if datetime.fromtimestamp(late, zone).replace(tzinfo=None) == local else early
    low, high = int(min(early, late)), int(max(early, late))  # skipped: the change lies between
    offset = datetime.fromtimestamp(high, zone).utcoffset()
    while low < high:
        middle = (low + high) // 2
        if datetime.fromtimestamp(middle, zone).utcoffset() == offset:
            high = middle
        else:
            low = middle + 1
    return float(low)


ZONES = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe",
         "America/Sao_Paulo", "Asia/Tehran", "Pacific/Chatham", "Africa/Casablanca", "UTC"]
TIMES = [(2, 30), (7, 0), (0, 15)]


@pytest.mark.parametrize("zone_name", ZONES)
def test_daily_occurrences_match_zoneinfo_for_two_years(zone_name):
    zone = ZoneInfo(zone_name)
    start, days = date(2026, 1, 1), 2 * 365 + 30
    compared = 0
    for hour, minute in TIMES:
        spec = f"*-*-* {hour:02d}:{minute:02d} {zone_name}"
        expected = sorted(
            first_instant(datetime.combine(start + timedelta(days=day), datetime.min.time()).replace(hour=hour, minute=minute), zone)
            for day in range(days))
        moment = expected[0] - 1
        for want in expected:
            moment = tocsin.calendar_next(spec, moment)
            assert moment == want, (spec, datetime.fromtimestamp(want, UTC))
            compared += 1
    assert compared == len(TIMES) * days


def test_calendar_next_takes_and_gives_datetimes():
    berlin = ZoneInfo("Europe/Berlin")
    after = datetime(2027, 3, 26, 8, 0, tzinfo=berlin)
    following = tocsin.calendar_next("Mon..Fri 07:00 Europe/Berlin", after)
    assert following == datetime(2027, 3, 29, 7, 0, tzinfo=berlin) and following.tzinfo is berlin
    assert tocsin.calendar_next("*:0/15 UTC", FRIDAY_0600) == FRIDAY_0600 + 15 * 60
    assert tocsin.calendar_next("minutely") > datetime.now().timestamp()
    naive = tocsin.calendar_next("daily", datetime(2030, 5, 5, 12, 0))
    assert naive.tzinfo is None and naive == datetime(2030, 5, 6, 0, 0)


def test_bad_specs_say_what_and_where():
    with pytest.raises(tocsin.CalendarSpecError) as caught:
        tocsin.calendar_next("Mon..Fri 07:00 Mars/Olympus")
    assert caught.value.column == 16 and "unknown time zone 'Mars/Olympus'" in str(caught.value)
    assert isinstance(caught.value, tocsin.InvalidArgumentError) and isinstance(caught.value, ValueError)
    with pytest.raises(tocsin.CalendarSpecError) as caught:
        tocsin.calendar_check("Mon 25:00")
    assert caught.value.column == 5 and str(caught.value).startswith("bad calendar spec 'Mon 25:00': column 5: ")
    # A long spec is cut in the message (issue 58: 5,000 characters echoed), kept whole in .spec.
    long = "Mon " + "x" * 5000
    with pytest.raises(tocsin.CalendarSpecError) as caught:
        tocsin.calendar_check(long)
    assert len(str(caught.value)) < 200 and "(5,004 characters)" in str(caught.value) and caught.value.spec == long
    for bad in ["", "Mun", "*-13-01", "07:00:00.5", "a\0b"]:
        with pytest.raises(tocsin.CalendarSpecError):
            tocsin.calendar_check(bad)
    with pytest.raises(tocsin.InvalidArgumentError):
        tocsin.calendar_next(7)  # type: ignore[arg-type]
    with pytest.raises(tocsin.InvalidArgumentError, match="not a time"):
        tocsin.calendar_next("daily", float("nan"))
    with pytest.raises(tocsin.NoOccurrenceError, match=r"^calendar_next\(\): '2020-01-01 00:00' has no occurrence after 2"):
        tocsin.calendar_next("2020-01-01 00:00")
    with pytest.raises(tocsin.NoOccurrenceError, match="has no occurrence after 2021-01-01 00:00:00 UTC$"):
        tocsin.calendar_next("2020-01-01 00:00 UTC", 1609459200)
    assert tocsin.calendar_check("mon..fri 7:00") == "Mon..Fri *-*-* 07:00:00"
    assert tocsin.calendar_check("quarterly Europe/Berlin") == "*-01,04,07,10-01 00:00:00 Europe/Berlin"


def test_a_calendar_alarm_rings_every_weekday_on_a_manual_clock(manual):
    manual.set_wall_clock(FRIDAY_0600)
    alarm = manual.calendar("Mon..Fri 07:00 UTC", label="Wake")
    assert alarm.calendar == "Mon..Fri *-*-* 07:00:00 UTC" and alarm.label == "Wake"
    assert alarm.alarm_time == FRIDAY_0600 + HOUR and alarm.state is State.IDLE
    rings = []
    alarm.on_finish(rings.append)
    alarm.start()
    manual.advance(HOUR - 1)
    assert rings == []
    manual.advance(1)
    assert len(rings) == 1 and rings[0].state is State.RUNNING and rings[0].kind is EventKind.FINISH
    assert rings[0].remaining == 3 * DAY and rings[0].missed == 0
    assert alarm.state is State.RUNNING and alarm.alarm_time == FRIDAY_0600 + HOUR + 3 * DAY
    alarm.suspend()
    manual.advance(4 * DAY + HOUR)  # to Tuesday 08:00: Monday and Tuesday pass while suspended
    assert len(rings) == 1
    alarm.resume()
    manual.advance(0)
    assert len(rings) == 2 and rings[1].missed == 1 and rings[1].remaining == DAY - HOUR
    with pytest.raises(tocsin.InvalidArgumentError):
        alarm.adjust(60)
    assert manual.countdown(5).calendar is None


def test_skipped_rings_do_not_ring_and_a_skip_until_a_date_in_another_zone(manual):
    manual.set_wall_clock(FRIDAY_0600)
    alarm = manual.calendar("Mon..Fri 07:00 UTC", label="Wake")
    rings = []
    alarm.on_finish(rings.append)
    alarm.start()
    assert alarm.skipped_until is None
    alarm.skip()  # Friday's
    assert alarm.alarm_time == FRIDAY_0600 + HOUR + 3 * DAY == alarm.skipped_until
    alarm.skip(2)  # and Monday's and Tuesday's
    manual.advance(5 * DAY + HOUR - 1)
    assert rings == []
    manual.advance(1)
    assert len(rings) == 1 and rings[0].missed == 0 and alarm.skipped_until is None  # Wednesday's
    # A holiday until Tuesday after next, 00:00 in Tokyo (Monday 15:00 UTC):
    # Tuesday's 07:00 UTC is the first ring after it.
    back = datetime(2027, 4, 6, tzinfo=ZoneInfo("Asia/Tokyo"))
    alarm.skip_until(back)
    assert alarm.skipped_until == back.timestamp() and alarm.alarm_time == FRIDAY_0600 + HOUR + 11 * DAY
    alarm.clear_skip()
    assert alarm.skipped_until is None and alarm.alarm_time == FRIDAY_0600 + HOUR + 6 * DAY  # Thursday's
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.countdown(5).skip()
    with pytest.raises(tocsin.InvalidArgumentError):
        alarm.skip_until(FRIDAY_0600)  # not after now
    with pytest.raises(tocsin.NoOccurrenceError):
        manual.calendar("2027-04-02 07:00 UTC").skip()
    with pytest.raises(tocsin.InvalidArgumentError) as caught:  # a TocsinError as the README's Errors says (and a ValueError)
        alarm.skip(0)
    assert isinstance(caught.value, ValueError) and str(caught.value) == "Timer.skip(): count must be at least 1, got 0"


def test_calendar_alarm_bad_input(manual):
    with pytest.raises(tocsin.CalendarSpecError) as caught:
        manual.calendar("Mon..Fry 07:00")
    assert caught.value.column == 6 and "'Fry' is not a weekday" in str(caught.value)
    with pytest.raises(tocsin.NoOccurrenceError, match=r"^Engine\.calendar\(\): '1970-01-01 00:00:00 UTC' has no occurrence"):
        manual.calendar("1970-01-01 00:00:00 UTC")  # the manual wall clock reads 0
    manual.close()
    with pytest.raises(tocsin.EngineClosedError):
        manual.calendar("daily")


def test_the_local_zone_is_looked_up_afresh(monkeypatch):
    after = 1800000000.0  # 2027-01-15 08:00 UTC
    monkeypatch.setenv("TZ", "UTC")
    assert tocsin.calendar_next("daily", after) == 1800057600.0  # 2027-01-16 00:00 UTC
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    assert tocsin.calendar_next("daily", after) == 1800057600.0 - 9 * HOUR  # midnight in Tokyo
    monkeypatch.setenv("TZ", "<-03>3")  # a POSIX rule
    assert tocsin.calendar_next("daily", after) == 1800057600.0 + 3 * HOUR  # midnight at -03: 03:00 UTC


def test_a_replaced_zone_file_is_read_again(monkeypatch, tmp_path):
    import shutil
    import time

    folder = tmp_path / "zoneinfo"
    (folder / "Test").mkdir(parents=True)
    shutil.copy("/usr/share/zoneinfo/Europe/Berlin", folder / "Test/Zone")
    monkeypatch.setenv("TZDIR", str(folder))
    after = 1800000000.0  # 2027-01-15 08:00 UTC: 09:00 in Berlin, 17:00 in Tokyo
    assert tocsin.calendar_next("*-*-* 12:00 Test/Zone", after) == after + 3 * HOUR  # noon in Berlin
    shutil.copy("/usr/share/zoneinfo/Asia/Tokyo", folder / "Test/Zone.new")
    (folder / "Test/Zone.new").rename(folder / "Test/Zone")  # as a tzdata upgrade replaces it
    time.sleep(1.1)  # a file is looked at again at most once a second
    assert tocsin.calendar_next("*-*-* 12:00 Test/Zone", after) == after + 19 * HOUR  # noon in Tokyo, the 16th

"""The controller's pure parts in process: schedules, the target rule, archive checks, the fleet's
sync groups and clock offsets."""
from __future__ import annotations

import datetime as dt
import io
import stat
import zipfile
from zoneinfo import ZoneInfo

import pytest

from svc_controller.archive import ArchiveError, verify_archive
from svc_controller.backups import default_cron, next_run_ms
from svc_controller.fleet import clock_offset, mark_sync
from svc_controller.targets import TargetPolicy, parse_display_url
from svc_host.http.errors import ApiError
from tests.controller.archives import make_archive


@pytest.mark.parametrize("existing, expected", [
    (0, "0 2 * * 0"), (1, "5 2 * * 0"), (12, "0 3 * * 0"), (264, "0 0 * * 1"), (288, "0 2 * * 1"),
    (288 * 7, "0 2 * * 0"),
])
def test_default_schedules_stagger_by_five_minutes_across_hours_and_days(existing, expected):
    assert default_cron(existing) == expected


def test_next_runs_follow_the_zone_across_a_daylight_saving_change():
    paris = ZoneInfo("Europe/Paris")
    before = dt.datetime(2026, 3, 28, 12, 0, tzinfo=paris)  # Saturday; clocks go forward Sunday 02:00
    first = dt.datetime.fromtimestamp(next_run_ms("30 3 * * 0", "Europe/Paris", int(before.timestamp() * 1000))
                                      / 1000, paris)
    assert (first.date(), first.hour, first.minute, first.utcoffset()) == (
        dt.date(2026, 3, 29), 3, 30, dt.timedelta(hours=2))
    after = next_run_ms("30 3 * * 0", "Europe/Paris", int(first.timestamp() * 1000))
    assert after - int(first.timestamp() * 1000) == 7 * 24 * 3600 * 1000


def resolver(answers):
    def resolve(name):
        if name not in answers:
            raise OSError("no such name")
        return answers[name]
    return resolve


def test_the_target_rule_checks_every_answer_and_names_the_address_to_connect_to():
    policy = TargetPolicy(["displays.example.org"], resolver({
        "lobby.lan": ["192.168.1.20"], "rebind.example": ["192.168.1.20", "93.184.216.34"],
        "screen.local": ["10.0.0.7"], "displays.example.org": ["93.184.216.34"], "localhost": ["127.0.0.1", "::1"],
    }))
    assert policy.address_for("lobby.lan") == "192.168.1.20"
    assert policy.address_for("screen.local") == "10.0.0.7"
    assert policy.address_for("displays.example.org") == "93.184.216.34"  # listed
    assert policy.address_for("localhost") == "127.0.0.1"
    for address in ("127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.0.1", "169.254.1.1", "::1", "fe80::1"):
        assert policy.address_for(address) == address
    for refused in ("rebind.example", "gone.example", "8.8.8.8", "172.32.0.1", "100.64.0.1", "2001:db8::1"):
        with pytest.raises(ApiError) as caught:
            policy.address_for(refused)
        assert caught.value.status == 403 and caught.value.code == "proxy_target_forbidden"


def test_display_urls_keep_scheme_port_and_prefix():
    url = parse_display_url("https://Screen.LOCAL:8787/base/")
    assert (url.scheme, url.host, url.port, url.base_path, url.netloc) == (
        "https", "screen.local", 8787, "/base", "screen.local:8787")
    assert parse_display_url("http://[fe80::1]").netloc == "[fe80::1]"


def test_archives_with_links_unsafe_paths_or_cut_short_are_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("manifest.json", '{"format": "svc-display-backup", "format_version": 1, "files": []}')
        link = zipfile.ZipInfo("media/link")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    path = tmp_path / "link.zip"
    path.write_bytes(buffer.getvalue())
    with pytest.raises(ArchiveError) as refused:
        verify_archive(path)
    assert refused.value.reason == "link_member"
    for name, data in {"truncated.tgz": make_archive(files={"a": b"1"})[:-20],
                       "absolute.tgz": make_archive({"/etc/x": b"1"})}.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ArchiveError):
            verify_archive(tmp_path / name)
    good = tmp_path / "good.zip"
    good.write_bytes(make_archive(kind="zip", schema_version=4))
    info = verify_archive(good)
    assert (info.kind, info.schema_version, info.files) == ("zip", 4, 2)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".check-")] == []  # the scratch folder is gone


def test_cloud_metadata_addresses_are_refused_unless_listed_by_address():
    """Link-local stays allowed (zero-configuration displays); the metadata services do not,
    as literals, IPv4-mapped, or as any answer of a name (a listed name is not enough)."""
    answers = {"metadata.google.internal": ["169.254.169.254"], "meta.local": ["169.254.169.254"],
               "mixed.lan": ["192.168.1.9", "fd00:ec2::254"], "aws6.example": ["fd00:ec2::254"]}
    policy = TargetPolicy(["metadata.google.internal", "aws6.example"], resolver(answers))
    for refused in ("169.254.169.254", "fd00:ec2::254", "::ffff:169.254.169.254", "metadata.google.internal",
                    "meta.local", "mixed.lan", "aws6.example"):
        with pytest.raises(ApiError) as caught:
            policy.address_for(refused)
        assert caught.value.status == 403 and caught.value.code == "proxy_target_forbidden", refused
        assert "metadata" in caught.value.message
    assert policy.address_for("169.254.169.1") == "169.254.169.1"
    listed = TargetPolicy(["169.254.169.254", "aws6.example", "fd00:ec2::254"], resolver(answers))
    assert listed.address_for("169.254.169.254") == "169.254.169.254"
    assert listed.address_for("meta.local") == "169.254.169.254"
    assert listed.address_for("aws6.example") == "fd00:ec2::254"


def fleet_item(n: int, group: str | None, program: str | None, state: str = "online") -> dict:
    return {"id": f"d{n}", "name": f"D{n}", "status": {
        "state": state, "problems": [], "sync": {"group": group, "program_hash": program, "cycle_ms": 1000}}}


def test_a_sync_group_of_hundreds_names_a_few_members_in_each_problem():
    items = [fleet_item(n, "hall", "a" * 64) for n in range(300)] + [fleet_item(300, "hall", "b" * 64)]
    items += [fleet_item(301, "hall", "c" * 64, "unreachable"), fleet_item(302, "", "c" * 64),
              fleet_item(303, "yard", None)]
    groups = mark_sync(items)
    assert [(g["group"], len(g["displayIds"]), g["programsDiffer"]) for g in groups] == [
        ("hall", 301, True), ("yard", 1, False)]
    assert [p["programHash"] for p in groups[0]["programs"]] == ["a" * 64, "b" * 64]
    [odd] = items[300]["status"]["problems"]
    assert odd == {"code": "programs_differ", "message": "programs differ in sync group hall: this display runs "
                                                         "bbbbbbbb; D0, D1, D2 and 297 more run aaaaaaaa"}
    assert items[0]["status"]["problems"][0]["message"].endswith("; D300 runs bbbbbbbb")
    assert all(i["status"]["problems"] == [] for i in items[301:])  # unreachable, no group, agreeing alone


@pytest.mark.parametrize("date, timing, expected", [
    # Date 12:00:00 names [12:00:00, 12:00:02) as the display answered; asked 11:59:59.900-12:00:00.100
    ("Sun, 06 Dec 2026 12:00:00 GMT", (-100, 100), {"offset_ms": 1000, "error_ms": 1100}),
    ("Sun, 06 Dec 2026 12:00:10 GMT", (0, 0), {"offset_ms": 11_000, "error_ms": 1000}),
    ("Sun, 06 Dec 2026 11:59:00 GMT", (-2, 0), {"offset_ms": -58_999, "error_ms": 1001}),
    ("not a date", (0, 0), None), (None, (0, 0), None), ("Sun, 06 Dec 2026 12:00:00 GMT", None, None),
])
def test_the_clock_offset_is_the_middle_of_what_the_date_and_the_request_allow(date, timing, expected):
    noon = int(dt.datetime(2026, 12, 6, 12, tzinfo=dt.timezone.utc).timestamp() * 1000)
    assert clock_offset(date, timing and (noon + timing[0], noon + timing[1])) == expected


@pytest.mark.parametrize("clock_ms, timing, expected", [
    # the display's own milliseconds (noon + the number), read between the request's start and its answer
    (12, (-10, 10), {"offset_ms": 12, "error_ms": 10}),
    (-300, (0, 0), {"offset_ms": -300, "error_ms": 0}),
    (0, (-2, 1), {"offset_ms": 1, "error_ms": 2}),
    # not a count of milliseconds: the Date (noon, whole seconds) is read instead
    ("-5", (0, 0), {"offset_ms": 1000, "error_ms": 1000}),
    ("1e3", (0, 0), {"offset_ms": 1000, "error_ms": 1000}),
    ("9" * 17, (0, 0), {"offset_ms": 1000, "error_ms": 1000}),
    (12, None, None),
])
def test_the_clock_offset_from_the_displays_milliseconds_is_within_half_the_round_trip(clock_ms, timing, expected):
    noon = int(dt.datetime(2026, 12, 6, 12, tzinfo=dt.timezone.utc).timestamp() * 1000)
    header = str(noon + clock_ms) if isinstance(clock_ms, int) else clock_ms
    assert clock_offset("Sun, 06 Dec 2026 12:00:00 GMT", timing and (noon + timing[0], noon + timing[1]),
                        header) == expected

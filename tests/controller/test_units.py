"""The controller's pure parts in process: schedules, the target rule, archive checks."""
from __future__ import annotations

import datetime as dt
import io
import stat
import zipfile
from zoneinfo import ZoneInfo

import pytest

from svc_controller.archive import ArchiveError, verify_archive
from svc_controller.backups import default_cron, next_run_ms
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

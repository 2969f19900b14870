"""``register_settings``: a plugin declares its environment variables; the host reads and checks
them once at start, names the plugin at fault, lists them in ``serve --help`` and the docs."""
import subprocess
import sys
from pathlib import Path

import pytest

from hookspecs import Setting, hookimpl
from svc_host.config import ConfigError, declared_settings, environment_markdown, load_settings, \
    read_plugin_settings
from svc_host.plugins import load_plugins
from tests.distributions import run_cli, write_distribution

REPO = Path(__file__).resolve().parents[2]

CHIME = """
from pathlib import Path
from hookspecs import Setting, hookimpl

@hookimpl
def register_settings():
    return [Setting("SVC_CHIME_VOLUME", int, 5, "how loud the chime is", low=0, high=11),
            Setting("SVC_CHIME_SOUND", str, "bell", "which sound", choices=("bell", "gong"))]
"""


class Chime:
    """The same declarations, in process; ``startup`` keeps what the host gave it."""

    def __init__(self):
        self.seen = None

    @hookimpl
    def register_settings(self):
        return [Setting("SVC_CHIME_VOLUME", int, 5, "how loud the chime is", low=0, high=11),
                Setting("SVC_CHIME_SOUND", str, "bell", "which sound", choices=("bell", "gong"))]

    @hookimpl
    def startup(self, host):
        self.seen = host.settings.plugin_values("chime")


def test_hook_register_settings(svc_display_host, svc_display_plugin):
    chime = svc_display_plugin(Chime(), name="chime")
    svc_display_host(env={"SVC_CHIME_VOLUME": "11", "SVC_CHIME_SOUND": "GONG"})
    assert dict(chime.seen) == {"chime_volume": 11, "chime_sound": "gong"}
    assert chime.seen.chime_volume == 11
    with pytest.raises(AttributeError):
        chime.seen.chime_volume = 3


def test_unset_gives_the_default(svc_display_host, svc_display_plugin):
    chime = svc_display_plugin(Chime(), name="chime")
    svc_display_host()
    assert dict(chime.seen) == {"chime_volume": 5, "chime_sound": "bell"}


@pytest.mark.parametrize("variable, value, expected", [
    ("SVC_CHIME_VOLUME", "12", "an integer from 0 to 11"),
    ("SVC_CHIME_VOLUME", "loud", "an integer from 0 to 11"),
    ("SVC_CHIME_SOUND", "horn", "one of bell, gong"),
])
def test_a_bad_value_stops_the_start_naming_variable_and_plugin(tmp_path, variable, value, expected):
    plugins = load_plugins(extra=[("chime", Chime())])
    settings = load_settings({"SVC_DISPLAY_DATA_DIR": str(tmp_path), variable: value})
    with pytest.raises(ConfigError) as caught:
        read_plugin_settings(settings, plugins)
    assert str(caught.value) == f"{variable}: expected {expected} (got {value!r}) [declared by plugin 'chime']"
    assert caught.value.plugin == "chime"


def test_a_variable_the_host_reads_cannot_be_declared_again(tmp_path):
    class Thief:
        @hookimpl
        def register_settings(self):
            return [Setting("SVC_DISPLAY_HTTP_PORT", int, 80, "steals the port")]

    with pytest.raises(ConfigError, match=r"SVC_DISPLAY_HTTP_PORT: .*the host.*plugin 'thief'"):
        declared_settings(load_plugins(extra=[("thief", Thief())]))


def test_the_cli_exits_2_naming_the_plugin_and_help_lists_it(tmp_path):
    path = write_distribution(tmp_path / "site", "chime", CHIME)
    env = {"SVC_DISPLAY_DATA_DIR": str(tmp_path / "data"), "SVC_DISPLAY_HEADLESS": "1"}
    shown = run_cli(env, path, "serve", "--help")
    assert shown.returncode == 0, shown.stderr
    host_part, _, chime_part = shown.stdout.partition(" plugin chime:")
    assert "SVC_DISPLAY_HTTP_PORT [8787]" in host_part and " plugin power:" in host_part
    assert "SVC_CHIME_VOLUME [5]\n      how loud the chime is" in chime_part
    bad = run_cli({**env, "SVC_CHIME_VOLUME": "99"}, path, "serve")
    assert bad.returncode == 2
    assert ("svc-display: configuration error: SVC_CHIME_VOLUME: expected an integer from 0 to 11 (got '99') "
            "[declared by plugin 'chime']") in bad.stderr
    assert not (tmp_path / "data" / "svc_display.sqlite3").exists()  # stopped before anything ran


def test_a_builtin_declaration_is_checked_at_start_too(tmp_path):
    env = {"SVC_DISPLAY_DATA_DIR": str(tmp_path / "data"), "SVC_DISPLAY_HEADLESS": "1",
           "SVC_DISPLAY_POWER_BACKEND": "hdmi"}
    out = subprocess.run([sys.executable, "-m", "svc_host", "migrate"], capture_output=True, text=True,
                         env={**env, "PATH": "/usr/bin:/bin"}, timeout=120, cwd=REPO)
    assert out.returncode == 2
    assert "SVC_DISPLAY_POWER_BACKEND: expected one of cec, vcgencmd, wlr, dpms, none (got 'hdmi') " \
           "[declared by plugin 'power']" in out.stderr


def test_the_docs_list_every_declaration():
    text = (REPO / "docs" / "configuration.md").read_text()
    expected = environment_markdown(declared_settings(load_plugins()))
    assert expected in text, ("docs/configuration.md is out of date: rewrite it with the command it gives "
                              "(svc_host.config.write_environment_docs)")


def test_builtin_values_reach_their_readers(svc_display_host):
    from types import SimpleNamespace

    from builtin_plugins.basic.display import _prepare_invite

    host = svc_display_host(env={"SVC_DISPLAY_CONTROLLER_PUBLIC_URL": "https://controller.example",
                                 "SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "3"})
    assert _prepare_invite(SimpleNamespace(host=host, config={})) == {"url": "https://controller.example"}
    assert host.settings.plugin_values("adoption").adoption_rate_per_min == 3
    assert "controller_public_url" not in {f for f in vars(host.settings)}  # the host keeps only its own

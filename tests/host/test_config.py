"""Configuration: every variable of spec 1.1 and CONTRACT, parsed once, failing fast."""
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from svc_host.config import DEPRECATED_KEY_VARIABLES, ConfigError, load_settings, read_plugin_settings, \
    warn_deprecated
from svc_host.plugins import load_plugins


def plugin_values(settings, plugin):
    """What the host gives ``plugin`` at start (its register_settings declarations, read)."""
    return read_plugin_settings(settings, load_plugins()).plugin_values(plugin)


def test_defaults(tmp_path):
    settings = load_settings({"SVC_DISPLAY_DATA_DIR": str(tmp_path)})
    assert settings.http_port == 8787
    assert settings.http_bind_ip == "0.0.0.0"
    assert settings.http_tls is True
    assert settings.tls_dir == tmp_path / "tls"
    assert settings.http_server == "uvicorn"
    preview = plugin_values(settings, "live_preview")
    assert (preview.live_preview_enabled, preview.live_preview_fps, preview.live_preview_width,
            preview.live_preview_quality) == (True, 10, 720, 50)
    assert plugin_values(settings, "adoption").adoption_rate_per_min == 10
    assert settings.database_url is None and settings.headless is False
    assert settings.sqlite_path.parent == tmp_path


def test_every_variable_is_read(tmp_path):
    env = {
        "SVC_DISPLAY_DATA_DIR": str(tmp_path),
        "SVC_DISPLAY_HTTP_PORT": "9000",
        "SVC_DISPLAY_HTTP_BIND_IP": "127.0.0.1",
        "SVC_DISPLAY_HTTP_TLS": "0",
        "SVC_DISPLAY_HTTP_TLS_DIR": str(tmp_path / "certs"),
        "SVC_DISPLAY_HTTP_TLS_CERT": "/x/cert.pem",
        "SVC_DISPLAY_HTTP_TLS_KEY": "/x/key.pem",
        "SVC_DISPLAY_HTTP_CORS_ORIGINS": "https://a.example:8443, http://b.local",
        "SVC_DISPLAY_CONTROLLER_PUBLIC_URL": "https://controller.example",
        "SVC_DISPLAY_DATABASE_URL": "postgres://u@127.0.0.1/db",
        "SVC_DISPLAY_PLUGINS_DIR": str(tmp_path / "plugins"),
        "SVC_DISPLAY_UPGRADE_SCRIPT": "/usr/local/bin/upgrade",
        "SVC_DISPLAY_LIVE_PREVIEW_ENABLED": "0",
        "SVC_DISPLAY_LIVE_PREVIEW_FPS": "5",
        "SVC_DISPLAY_LIVE_PREVIEW_WIDTH": "480",
        "SVC_DISPLAY_LIVE_PREVIEW_QUALITY": "80",
        "SVC_DISPLAY_WINDOW_XID": "0x3a00007",
        "SVC_DISPLAY_GOOGLE_CLIENT_ID": "g-id",
        "SVC_DISPLAY_MICROSOFT_CLIENT_ID": "m-id",
        "SVC_DISPLAY_HEADLESS": "1",
        "SVC_DISPLAY_HTTP_SERVER": "waitress",
        "SVC_DISPLAY_LOG_LEVEL": "debug",
        "SVC_DISPLAY_ADOPTION_RATE_PER_MIN": "0",
        "SVC_DISPLAY_DISABLE_PLUGINS": "a, b",
    }
    s = load_settings(env)
    assert (s.http_port, s.http_bind_ip, s.http_tls) == (9000, "127.0.0.1", False)
    assert s.tls_dir == tmp_path / "certs"
    assert (s.http_tls_cert, s.http_tls_key) == (Path("/x/cert.pem"), Path("/x/key.pem"))
    assert s.http_cors_origins == ("https://a.example:8443", "http://b.local")
    assert plugin_values(s, "basic").controller_public_url == "https://controller.example"
    assert s.database_url == "postgres://u@127.0.0.1/db" and s.uses_external_database
    assert plugin_values(s, "folder_plugins").plugins_dir == tmp_path / "plugins"
    assert plugin_values(s, "maintenance").upgrade_script == Path("/usr/local/bin/upgrade")
    preview = plugin_values(s, "live_preview")
    assert (preview.live_preview_enabled, preview.live_preview_fps, preview.live_preview_width,
            preview.live_preview_quality) == (False, 5, 480, 80)
    assert s.window_xid == "0x3a00007"
    assert (plugin_values(s, "integrations").google_client_id,
            plugin_values(s, "integrations").microsoft_client_id) == ("g-id", "m-id")
    assert s.headless and s.http_server == "waitress" and s.log_level == "DEBUG"
    assert plugin_values(s, "adoption").adoption_rate_per_min == 0
    assert s.disable_plugins == {"a", "b"}


@pytest.mark.parametrize("variable, value", [
    ("SVC_DISPLAY_HTTP_PORT", "http"),
    ("SVC_DISPLAY_HTTP_PORT", "70000"),
    ("SVC_DISPLAY_HTTP_BIND_IP", "everywhere"),
    ("SVC_DISPLAY_HTTP_TLS", "maybe"),
    ("SVC_DISPLAY_HTTP_CORS_ORIGINS", "https://*.example"),
    ("SVC_DISPLAY_HTTP_CORS_ORIGINS", "https://a.example/path"),
    ("SVC_DISPLAY_DATABASE_URL", "mysql://x/y"),
    ("SVC_DISPLAY_CONTROLLER_PUBLIC_URL", "controller"),
    ("SVC_DISPLAY_LIVE_PREVIEW_QUALITY", "0"),
    ("SVC_DISPLAY_LIVE_PREVIEW_QUALITY", "101"),
    ("SVC_DISPLAY_LIVE_PREVIEW_FPS", "fast"),
    ("SVC_DISPLAY_HTTP_SERVER", "gunicorn"),
    ("SVC_DISPLAY_LOG_LEVEL", "loud"),
    ("SVC_DISPLAY_HEADLESS", "2"),
    ("SVC_DISPLAY_HTTP_TLS_CERT", "/only/cert.pem"),
])
def test_invalid_value_names_the_variable(tmp_path, variable, value):
    with pytest.raises(ConfigError) as info:
        plugin_values(load_settings({"SVC_DISPLAY_DATA_DIR": str(tmp_path), variable: value}), "live_preview")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("SVC_DISPLAY_HTTP_TLS_KEY" if variable.endswith("_CERT") else variable)
    assert "expected" in message


def test_saas_mode_requires_all_four_variables(tmp_path):
    base = {"SVC_DISPLAY_DATA_DIR": str(tmp_path), "SVC_SAAS_MODE": "1"}
    full = {**base, "SVC_SAAS_API_URL": "https://feed.example", "SVC_SAAS_DISPLAY_ID": "d1",
            "SVC_SAAS_API_KEY": "cloud-secret-42"}
    assert load_settings(full).saas_mode is True
    assert plugin_values(load_settings(full), "cloud_feed").saas_api_key == "cloud-secret-42"
    for missing in ("SVC_SAAS_API_URL", "SVC_SAAS_DISPLAY_ID", "SVC_SAAS_API_KEY"):
        partial = {k: v for k, v in full.items() if k != missing}
        with pytest.raises(ConfigError, match=f"{missing}: expected a value because SVC_SAAS_MODE=1 "
                                              "\\[declared by plugin 'cloud_feed'\\]"):
            plugin_values(load_settings(partial), "cloud_feed")
    loaded = read_plugin_settings(load_settings(full), load_plugins())
    assert "cloud-secret-42" not in repr(loaded) + repr(loaded.plugin_values("cloud_feed"))


def test_deprecated_provider_keys_are_ignored_with_one_warning_each(tmp_path, caplog):
    env = {"SVC_DISPLAY_DATA_DIR": str(tmp_path), **{name: "secret-value" for name in DEPRECATED_KEY_VARIABLES}}
    settings = load_settings(env)
    with caplog.at_level(logging.WARNING):
        warn_deprecated(settings)
    warnings = [r.getMessage() for r in caplog.records if "deprecated" in r.getMessage()]
    assert len(warnings) == len(DEPRECATED_KEY_VARIABLES)
    assert all("secret-value" not in w for w in warnings)


def test_the_window_xid_is_said_to_be_ignored(tmp_path, caplog):
    """It was read and never used, its help said it embedded the canvas: now help and a warning
    say it is ignored (the live preview reads the canvas's own pixels)."""
    from svc_host.config import environment_help

    with caplog.at_level(logging.WARNING):
        warn_deprecated(load_settings({"SVC_DISPLAY_DATA_DIR": str(tmp_path), "SVC_DISPLAY_WINDOW_XID": "0x3a00007"}))
    assert [r.getMessage() for r in caplog.records] == [
        "SVC_DISPLAY_WINDOW_XID is ignored: the live preview is read from the canvas itself, no X window is captured"]
    assert "SVC_DISPLAY_WINDOW_XID [unset]\n      ignored" in environment_help()


def test_cli_stops_with_one_line_on_a_bad_value(tmp_path):
    out = subprocess.run([sys.executable, "-m", "svc_host", "serve"], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "SVC_DISPLAY_DATA_DIR": str(tmp_path),
                              "SVC_DISPLAY_HTTP_PORT": "eighty"}, timeout=60)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "SVC_DISPLAY_HTTP_PORT" in lines[0]


def test_cli_saas_mode_without_variables_is_fatal(tmp_path):
    out = subprocess.run([sys.executable, "-m", "svc_host", "serve"], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "SVC_DISPLAY_DATA_DIR": str(tmp_path), "SVC_SAAS_MODE": "1"},
                         timeout=60)
    assert out.returncode == 2 and "SVC_SAAS_" in out.stderr


def test_an_empty_data_dir_variable_is_refused_not_the_default_dir(tmp_path):
    with pytest.raises(ConfigError, match=r"^SVC_DISPLAY_DATA_DIR: expected a folder path \(unset the variable"):
        load_settings({"SVC_DISPLAY_DATA_DIR": " "})


def _serve(env):
    return subprocess.run([sys.executable, "-m", "svc_host", "serve"], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "SVC_DISPLAY_HEADLESS": "1", **env}, timeout=120)


def test_a_data_dir_under_a_file_is_blamed_on_the_variable_not_a_plugin(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    out = _serve({"SVC_DISPLAY_DATA_DIR": str(tmp_path / "file" / "data")})
    assert out.returncode == 2, out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("svc-display: configuration error: SVC_DISPLAY_DATA_DIR: expected a folder this "
                           "user can create (Not a directory: "), last
    assert "plugin" not in out.stderr


def test_a_misspelled_plugin_to_disable_is_refused_naming_the_plugins(tmp_path, make_host):
    out = _serve({"SVC_DISPLAY_DATA_DIR": str(tmp_path / "data"), "SVC_DISPLAY_DISABLE_PLUGINS": "weather,wether"})
    assert out.returncode == 2, out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("svc-display: configuration error: SVC_DISPLAY_DISABLE_PLUGINS: expected names of "
                           "installed plugins (one of "), last
    assert "weather" in last and last.endswith("(got 'wether')")
    # with a plugins dir, a name may be a folder plugin's id; one that is neither is still refused
    (tmp_path / "plugins").mkdir()
    # (the host checks it once, against the entry points and what describe_plugins lists)
    with pytest.raises(ConfigError, match="SVC_DISPLAY_DISABLE_PLUGINS: .*got 'wether'"):
        make_host({"SVC_DISPLAY_PLUGINS_DIR": str(tmp_path / "plugins"), "SVC_DISPLAY_DISABLE_PLUGINS": "wether"})

"""The plugin tutorial (``docs/plugins.md``), run as a reader would: its ```sh blocks in order, offline.

The reader's checkout is a folder of the test's own whose ``.venv`` is a throwaway environment
that sees this checkout's packages (a ``.pth`` file), so ``.venv/bin/pip install -e`` installs
the new plugin there and never into the checkout's ``.venv``. ``make run`` is the test's own
server, on that environment's packages; the port, the data dir and the upstream's port and
folder are swapped like the README tour's test does.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from svc_display.testing import ServerProcess, free_port
from tests import REPO

pytestmark = pytest.mark.slow


def sh_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", (REPO / "docs" / "plugins.md").read_text(), re.DOTALL)


def throwaway_venv(path: Path) -> Path:
    """A venv whose site-packages is its own (pip installs there) and that also sees the checkout's."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=60)
    site = Path(subprocess.run([path / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # addsitedir, not a path line: the checkout's own .pth files (its editable install) count too
    (site / "checkout-venv.pth").write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    for script in ("svc-display", "pip"):  # the checkout's console scripts, on this interpreter
        text = (Path(sys.executable).parent / script).read_text().split("\n", 1)[1]
        (path / "bin" / script).write_text(f"#!{path / 'bin' / 'python'}\n{text}")
        (path / "bin" / script).chmod(0o755)
    return site


def run(script: str, cwd: Path, env: dict[str, str], log: Path, timeout: float) -> str:
    """``script`` under ``set -e``, its stdout; its background jobs (the upstream) are ended with it."""
    err_log = log.with_suffix(".err")
    with open(log, "w") as out, open(err_log, "w") as err:  # files: a background job keeps pipes open
        process = subprocess.Popen(["bash", "-ec", script], cwd=cwd, stdout=out, stderr=err,
                                   text=True, env=env, start_new_session=True)
        try:
            process.wait(timeout=timeout)
        finally:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    output = log.read_text()
    assert process.returncode == 0, output[-3000:] + err_log.read_text()[-3000:]
    return output


def json_answers(text: str) -> list:
    """The JSON documents curl printed one after another (with no newline between them)."""
    decoder, answers, position = json.JSONDecoder(), [], 0
    while (position := text.find("{", position)) >= 0:
        answer, position = decoder.raw_decode(text, position)
        answers.append(answer)
    return answers


def test_the_tutorial_stays_on_this_machine():
    urls = re.findall(r"https?://[^\s'\"]+", "\n".join(sh_blocks()))
    assert urls and all(re.match(r"https?://(localhost|127\.0\.0\.1)[:/]", url) for url in urls), urls


def test_the_plugin_tutorial_works_as_written(tmp_path):
    create, test, install, configure = sh_blocks()
    checkout, data = tmp_path / "svc-display", tmp_path / "data"
    checkout.mkdir()
    site = throwaway_venv(tmp_path / "venv")
    (checkout / ".venv").symlink_to(tmp_path / "venv")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SVC_DISPLAY_", "PYTHON"))}
    env.update({"SVC_DISPLAY_DATA_DIR": str(data), "SVC_DISPLAY_HEADLESS": "1",
                # offline: the plugin builds with the setuptools at hand, its dependency is installed
                "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})

    # 1, 8 and 9: create the plugin, run its tests, install it (the test's server stands for `make run`)
    assert "make run" in install
    steps = "\n".join([create, test, install.replace("make run", "true  ")])
    out = run(steps, checkout, env, tmp_path / "steps.log", timeout=300)
    assert re.search(r"\b1 passed\b", out), out[-3000:]
    assert re.search(r"^lunchmenu\s+0\.1\.0\s+third-party\s+stopped\s", out, re.MULTILINE), out[-3000:]
    plugin = tmp_path / "svc-display-lunchmenu"
    installed = [path.name for path in Path(sysconfig.get_paths()["purelib"]).iterdir() if "lunchmenu" in path.name]
    assert installed == [], "the tutorial's install reached this checkout's .venv"
    assert [path.name for path in site.iterdir() if "lunchmenu" in path.name], "not installed in the throwaway .venv"
    assert (plugin / "lunchmenu_plugin" / "__init__.py").exists()

    server = ServerProcess({"SVC_DISPLAY_DATA_DIR": str(data), "SVC_DISPLAY_HEADLESS": "1"},
                           [str(site), str(plugin)]).start()  # the throwaway venv's packages, as make run there
    try:
        upstream_port = free_port()
        script = (configure
                  .replace("DATA=~/.local/share/svc-display", f"DATA={data}")
                  .replace(":8787", f":{server.port}")
                  .replace("8001", str(upstream_port))
                  .replace("/tmp/greetings", str(tmp_path / "greetings")))
        assert "/tmp/greetings" not in script and ":8787" not in script and "8001" not in script
        out = run(script, checkout, env, tmp_path / "configure.log", timeout=300)
        answers = json_answers(out)
        assert not [answer for answer in answers if "code" in answer], out  # no error answer
        greeting, integration, result, slide, tape, overlay, items = answers  # in the tutorial's order
        assert greeting == {"id": "1", "text": "bonjour", "lang": "fr"}, out  # the upstream answers
        assert integration["enabled"] and integration["config_json"]["baseUrl"].endswith(f":{upstream_port}")
        assert (result["status"], result["message"]) == ("ok", "1 greetings"), out
        assert (slide["id"], slide["screen_type"], slide["config_json"]) == ("greeting", "lunchmenu",
                                                                             {"color": "#ffcc00"})
        assert (tape["id"], tape["ticker_type"]) == ("greetings", "lunchmenu")
        assert (overlay["id"], overlay["overlay_type"], overlay["enabled"]) == ("note", "lunchmenu_note", True)
        assert items["items"] == [{"ordinal": 0, "kind": "lunchmenu", "body": "bonjour (fr)"}], out
        assert "Traceback" not in server.log
    finally:
        server.stop()

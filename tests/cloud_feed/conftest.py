"""The reference feed server (examples/cloud-feed) started on 127.0.0.1 for a test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

SERVER = Path(__file__).resolve().parents[2] / "examples" / "cloud-feed" / "feed_server.py"
KEY = "feed-key-123"


class FeedServer:
    """The reference server as a process that can be stopped and started again on its port."""

    def __init__(self, script: Path, media_dir: Path | None = None):
        self.script = script
        self.media_dir = media_dir
        self.port = 0  # the server's choice at the first start (its banner names it), kept by a restart
        self.base = ""
        self.process: subprocess.Popen | None = None

    def start(self) -> "FeedServer":
        command = [sys.executable, str(SERVER), "--script", str(self.script), "--port", str(self.port),
                   "--display-id", "lobby", "--api-key", KEY, "--heartbeat", "1"]
        if self.media_dir is not None:
            command += ["--media-dir", str(self.media_dir)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        banner = self.process.stdout.readline().decode()  # listening (or why not)
        assert banner.startswith("feed server on"), banner
        self.port = urlsplit(banner.split()[3]).port
        self.base = f"http://127.0.0.1:{self.port}"
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


@pytest.fixture
def feed_server(tmp_path):
    script = tmp_path / "feed.jsonl"
    script.write_text("")
    server = FeedServer(script).start()
    yield server
    server.stop()


@pytest.fixture
def feed(feed_server):
    return feed_server.script, feed_server.base


def write(script: Path, *entries: dict) -> None:
    with script.open("a", encoding="utf-8") as handle:
        for entry in entries:
            handle.write(json.dumps(entry) + "\n")

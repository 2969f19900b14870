"""Backup and restore of a large display: time against ``tar czf`` and the server's memory.

Starts a real ``svc-display serve`` process (HTTPS, SQLite, headless) on a temporary data
dir, fills it with ``--media-mib`` of media (incompressible, like JPEG and MP4 files, in
``--files`` blobs with their metadata) and a database grown to ``--db-mb`` (a filler table
of half-compressible text), then:

1. runs a tgz backup job over HTTP and times it from POST to ``ready``; runs ``tar czf`` of
   the same files (database and ``media/``) as the baseline and prints the ratio
   (goal: at most 1.5);
2. runs a zip backup job (media stored, not deflated) and times it;
3. downloads the tgz archive (streamed to disk) and uploads it to a second, fresh server's
   restore route, timing the upload and checks (202) and the restart on the restored data;
4. samples the RSS of each server process every 50 ms during jobs, download and restore and
   prints the growth over the RSS just before (goal: under 64 MiB whatever the size).

    .venv/bin/python benchmarks/backup.py [--media-mib 1024] [--db-mb 200] [--files 256]
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import requests

REPO = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024
GOAL_RATIO = 1.5
GOAL_RSS_MIB = 64


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    def __init__(self, folder: Path):
        self.folder = folder
        self.data_dir = folder / "data"
        self.port = free_port()
        self.env = {**os.environ, "SVC_DISPLAY_DATA_DIR": str(self.data_dir), "SVC_DISPLAY_HEADLESS": "1",
                    "SVC_DISPLAY_HTTP_PORT": str(self.port), "SVC_DISPLAY_HTTP_BIND_IP": "127.0.0.1",
                    "SVC_DISPLAY_LOG_LEVEL": "WARNING", "PYTHONPATH": str(REPO)}
        self.env.pop("SVC_DISPLAY_DATABASE_URL", None)
        self.url = f"https://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.key = ""

    @property
    def verify(self) -> str:
        return str(self.data_dir / "tls" / "display-cert.pem")

    def start(self) -> float:
        began = time.monotonic()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.folder / "server.log", "ab")
        self.process = subprocess.Popen([sys.executable, "-m", "svc_host", "serve"], env=self.env, stdout=log,
                                        stderr=subprocess.STDOUT, cwd=self.folder)
        while True:
            if self.process.poll() is not None:
                raise RuntimeError((self.folder / "server.log").read_text()[-3000:])
            try:
                if requests.get(self.url + "/v1/health", verify=self.verify, timeout=2).status_code == 200:
                    return time.monotonic() - began
            except (requests.RequestException, OSError):
                time.sleep(0.1)

    def make_key(self) -> None:
        out = subprocess.run([sys.executable, "-m", "svc_host", "keys", "create", "--identifier", "bench",
                              "--role", "admin"], env=self.env, capture_output=True, text=True, check=True)
        import json

        self.key = json.loads(out.stdout)["api_key"]

    def request(self, method: str, path: str, **kwargs):
        # one keep-alive session: polling must not cost a TLS handshake per request
        if not hasattr(self, "session"):
            self.session = requests.Session()
        return self.session.request(method, self.url + path, headers={"Authorization": f"Bearer {self.key}"},
                                    verify=self.verify, timeout=3600, **kwargs)

    def stop(self) -> None:
        if hasattr(self, "session"):
            self.session.close()
            del self.session
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()


class RssSampler:
    """Peak RSS of one process over a block, against the RSS when it began."""

    def __init__(self, pid: int):
        self.process = psutil.Process(pid)

    def __enter__(self) -> "RssSampler":
        self.start = self.peak = self.process.memory_info().rss
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self) -> None:
        while not self.stopping.wait(0.05):
            try:
                self.peak = max(self.peak, self.process.memory_info().rss)
            except psutil.Error:
                return

    def __exit__(self, *_exc) -> None:
        self.stopping.set()
        self.thread.join()

    @property
    def growth_mib(self) -> float:
        return (self.peak - self.start) / MIB


def fill(data_dir: Path, media_mib: int, db_mb: int, files: int) -> None:
    media = data_dir / "media" / "bench"
    media.mkdir(parents=True, exist_ok=True)
    per_file = max(1, media_mib * MIB // files)
    for n in range(files):
        (media / f"{n:05d}.jpg").write_bytes(os.urandom(per_file))
        (media / f"{n:05d}.jpg.meta.json").write_text(
            f'{{"content_type": "image/jpeg", "size": {per_file}, "created_at_ms": 0}}')
    conn = sqlite3.connect(data_dir / "svc_display.sqlite3", timeout=30)
    conn.execute("CREATE TABLE IF NOT EXISTS bench_filler (id INTEGER PRIMARY KEY, body TEXT)")
    row = 64 * 1024
    for _ in range(db_mb * 1_000_000 // row):
        conn.execute("INSERT INTO bench_filler (body) VALUES (?)", (os.urandom(row // 4).hex() + "a" * (row // 2),))
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def run_job(server: Server, fmt: str) -> tuple[float, float, str]:
    with RssSampler(server.process.pid) as rss:
        began = time.monotonic()
        job_id = server.request("POST", f"/v1/display/backup/jobs?format={fmt}").json()["job_id"]
        while (job := server.request("GET", f"/v1/display/backup/jobs/{job_id}").json())["status"] not in (
                "ready", "failed"):
            time.sleep(0.25)
        elapsed = time.monotonic() - began
    assert job["status"] == "ready", job
    return elapsed, rss.growth_mib, job_id


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--media-mib", type=int, default=1024)
    parser.add_argument("--db-mb", type=int, default=200)
    parser.add_argument("--files", type=int, default=256)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="svc-backup-bench-"))
    source = Server(folder / "source")
    target = Server(folder / "target")
    try:
        source.start()
        source.make_key()
        print(f"filling: {args.media_mib} MiB of media in {args.files} blobs, a {args.db_mb} MB database ...")
        fill(source.data_dir, args.media_mib, args.db_mb, args.files)
        db_bytes = (source.data_dir / "svc_display.sqlite3").stat().st_size
        print(f"database {db_bytes / MIB:.0f} MiB, media {args.media_mib} MiB")

        began = time.monotonic()
        subprocess.run(["tar", "czf", str(folder / "baseline.tar.gz"), "-C", str(source.data_dir),
                        "svc_display.sqlite3", "media"], check=True)
        tar_seconds = time.monotonic() - began
        baseline_bytes = (folder / "baseline.tar.gz").stat().st_size
        (folder / "baseline.tar.gz").unlink()

        tgz_seconds, tgz_rss, tgz_job = run_job(source, "tgz")
        zip_seconds, zip_rss, _zip_job = run_job(source, "zip")

        archive = folder / "backup.tar.gz"
        with RssSampler(source.process.pid) as download_rss:
            began = time.monotonic()
            with source.request("GET", f"/v1/display/backup/jobs/{tgz_job}/download", stream=True) as response, \
                    open(archive, "wb") as out:
                for chunk in response.iter_content(MIB):
                    out.write(chunk)
            download_seconds = time.monotonic() - began
        source.stop()

        target.start()
        target.make_key()
        with RssSampler(target.process.pid) as restore_rss:
            began = time.monotonic()
            with open(archive, "rb") as body:
                answer = target.request("POST", "/v1/display/backup/restore?confirm=yes", data=body)
            restore_seconds = time.monotonic() - began
        assert answer.status_code == 202, answer.text
        target.process.wait(120)
        restart_seconds = target.start()
        restored = (target.data_dir / "svc_display.sqlite3").stat().st_size

        ratio = tgz_seconds / tar_seconds
        print()
        print(f"tar czf (baseline)         {tar_seconds:7.1f} s   {baseline_bytes / MIB:7.0f} MiB")
        print(f"backup job tgz             {tgz_seconds:7.1f} s   {archive.stat().st_size / MIB:7.0f} MiB   "
              f"ratio {ratio:.2f} (goal <= {GOAL_RATIO})")
        print(f"backup job zip             {zip_seconds:7.1f} s")
        print(f"download (streamed)        {download_seconds:7.1f} s")
        print(f"restore upload + checks    {restore_seconds:7.1f} s   (202)")
        print(f"restart on restored data   {restart_seconds:7.1f} s   database {restored / MIB:.0f} MiB")
        print(f"server RSS growth: tgz job {tgz_rss:.1f} MiB, zip job {zip_rss:.1f} MiB, download "
              f"{download_rss.growth_mib:.1f} MiB, restore {restore_rss.growth_mib:.1f} MiB (goal < {GOAL_RSS_MIB})")
        ok = ratio <= GOAL_RATIO and max(tgz_rss, zip_rss, download_rss.growth_mib,
                                         restore_rss.growth_mib) < GOAL_RSS_MIB
        print("goals met" if ok else "goals NOT met")
        return 0 if ok else 1
    finally:
        source.stop()
        target.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

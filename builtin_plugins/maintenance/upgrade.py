"""In-band upgrade (CONTRACT "Maintenance"): download over verified HTTPS, check the optional
Ed25519 signature, run the upgrade helper with a time limit. One job at a time.

States: ``pending`` -> ``downloading`` -> ``verifying`` -> ``installing`` -> ``succeeded``,
or ``failed`` from any of them with ``error`` saying why.

TLS: the system's CA store, as OpenSSL finds it (``ssl.create_default_context()``: on Debian
``/etc/ssl/certs``, ``SSL_CERT_FILE``/``SSL_CERT_DIR`` honoured), or only the PEM bundle of
``SVC_DISPLAY_UPGRADE_CA_FILE``; never a bundle shipped with a Python package (certifi), so
the device's administrator decides whom it trusts. httpx takes that context as it is.
Redirects are followed by hand, at most :data:`MAX_REDIRECTS`, each target checked to be
``https://`` before it is requested: a redirect to plain http is refused, never followed.

Before the helper runs (spec 9, "back up before upgrades"), a database-only backup job is
made and waited for on a display with the default database; its job id opens ``log_tail``.
If it fails, the helper does not run.
"""
from __future__ import annotations

import base64
import binascii
import logging
import mmap
import os
import platform
import signal
import ssl
import subprocess
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlparse

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from builtin_plugins.maintenance.archive import CHUNK, create_private
from svc_host.http.core_routes import platform_arch

log = logging.getLogger("builtin_plugins.maintenance")

UPGRADE_DIR = "upgrade"
LOG_TAIL_BYTES = 8192
MAX_SIGNATURE_BYTES = 4096
TIMEOUT = {"timeout": 60, "connect": 15}  # httpx.Timeout's: 60 s between bytes
MAX_REDIRECTS = 5
BACKUP_WAIT_S = 30 * 60  # the pre-upgrade backup may wait behind another job
BACKUP_POLL_S = 0.2


class UpgradeFailed(Exception):
    pass


@dataclass
class UpgradeJob:
    job_id: str
    status: str
    download_url: str
    bytes_downloaded: int = 0
    bytes_total: int | None = None
    started_at_ms: int | None = None
    finished_at_ms: int | None = None
    error: str | None = None
    log_tail: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Upgrades:
    def __init__(self, host: Any):
        self.host = host
        self.settings = host.settings
        self.values = host.settings.plugin_values("maintenance")
        self.dir = host.settings.data_dir / UPGRADE_DIR
        self.jobs: dict[str, UpgradeJob] = {}
        self.lock = threading.Lock()
        self.active: str | None = None

    def start(self, download_url: str) -> UpgradeJob | None:
        """A new job, or None when one is already pending or running."""
        with self.lock:
            if self.active is not None:
                return None
            job = UpgradeJob(uuid.uuid4().hex, "pending", download_url)
            self.jobs[job.job_id] = job
            self.active = job.job_id
        threading.Thread(target=self._run, args=(job,), name="upgrade", daemon=True).start()
        return job

    def get(self, job_id: str) -> UpgradeJob | None:
        return self.jobs.get(job_id)

    def _run(self, job: UpgradeJob) -> None:
        job.started_at_ms = self.host.clock.now_ms()
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        target = self.dir / f"{job.job_id}.download"
        try:
            job.status = "downloading"
            self._download(job, target)
            job.status = "verifying"
            self._verify(job, target)
            job.status = "installing"
            backed_up = self._back_up(job)
            self._install(job, target, backed_up)
            job.status = "succeeded"
            log.info("upgrade %s: the helper succeeded", job.job_id)
        except UpgradeFailed as exc:
            job.status, job.error = "failed", str(exc)
            log.warning("upgrade %s failed: %s", job.job_id, exc)
        except Exception as exc:  # noqa: BLE001 - the job reports it; never a dead "downloading" job
            job.status, job.error = "failed", f"{type(exc).__name__}: {exc}"
            log.exception("upgrade %s failed", job.job_id)
        finally:
            target.unlink(missing_ok=True)
            job.finished_at_ms = self.host.clock.now_ms()
            with self.lock:
                self.active = None

    # -- steps -------------------------------------------------------------------------
    def tls_context(self) -> ssl.SSLContext:
        """The system CA store, or only ``SVC_DISPLAY_UPGRADE_CA_FILE``."""
        ca_file = self.values.upgrade_ca_file
        return ssl.create_default_context(cafile=str(ca_file)) if ca_file else ssl.create_default_context()

    @contextmanager
    def _get(self, url: str) -> Iterator[httpx.Response]:
        """The 200 answer for ``url`` (streamed), following https redirects only."""
        # identity: the bytes counted against the cap and Content-Length are the file's bytes
        headers = {"Accept-Encoding": "identity"}
        import httpx  # imported on first use: the serve process starts without it (issue 29, RSS)

        with httpx.Client(verify=self.tls_context(), timeout=httpx.Timeout(**TIMEOUT), follow_redirects=False,
                          headers=headers) as client:
            for _hop in range(MAX_REDIRECTS + 1):
                try:
                    response = client.send(client.build_request("GET", url), stream=True)
                except httpx.HTTPError as exc:
                    if _tls_failure(exc):
                        raise UpgradeFailed(f"TLS certificate verification failed for {_host(url)}: "
                                            f"{_tls_failure(exc)}") from None
                    raise UpgradeFailed(f"download from {_host(url)} failed: {type(exc).__name__}") from None
                if response.is_redirect:
                    following = response.next_request
                    response.close()
                    if following is None or following.url.scheme != "https":
                        raise UpgradeFailed(f"{_host(url)} redirected the download to a URL that is not "
                                            "https://; it was not followed")
                    url = str(following.url)
                    continue
                try:
                    if response.status_code != 200:
                        raise UpgradeFailed(f"{_host(url)} answered HTTP {response.status_code}")
                    yield response
                finally:
                    response.close()
                return
        raise UpgradeFailed(f"the download was redirected more than {MAX_REDIRECTS} times")

    def _download(self, job: UpgradeJob, target: Path) -> None:
        import httpx

        cap = self.values.upgrade_max_bytes
        with self._get(job.download_url) as response:
            length = response.headers.get("Content-Length")
            if length and length.isdigit():
                job.bytes_total = int(length)
                if job.bytes_total > cap:
                    raise UpgradeFailed(f"the download is {job.bytes_total} bytes, more than the {cap} allowed")
            with create_private(target) as out:
                try:
                    for chunk in response.iter_raw(CHUNK):
                        job.bytes_downloaded += len(chunk)
                        if job.bytes_downloaded > cap:
                            raise UpgradeFailed(f"the download exceeds the {cap} bytes allowed")
                        out.write(chunk)
                except httpx.HTTPError as exc:
                    raise UpgradeFailed(f"download interrupted: {type(exc).__name__}") from None
        if job.bytes_total is not None and job.bytes_downloaded != job.bytes_total:
            raise UpgradeFailed("the download ended before Content-Length bytes arrived")
        job.bytes_total = job.bytes_downloaded

    def _verify(self, job: UpgradeJob, target: Path) -> None:
        import httpx

        key_path = self.values.upgrade_public_key
        if key_path is None:
            return
        try:
            key = load_pem_public_key(key_path.read_bytes())
        except (OSError, ValueError) as exc:
            raise UpgradeFailed(f"SVC_DISPLAY_UPGRADE_PUBLIC_KEY cannot be read: {exc}") from None
        if not isinstance(key, Ed25519PublicKey):
            raise UpgradeFailed("SVC_DISPLAY_UPGRADE_PUBLIC_KEY is not an Ed25519 public key")
        try:
            with self._get(job.download_url + ".sig") as response:
                raw = b""
                for chunk in response.iter_raw(MAX_SIGNATURE_BYTES + 1):
                    raw += chunk
                    if len(raw) > MAX_SIGNATURE_BYTES:
                        break
        except UpgradeFailed as exc:
            raise UpgradeFailed(f"a signature is required (SVC_DISPLAY_UPGRADE_PUBLIC_KEY is set) and "
                                f"<download_url>.sig could not be fetched: {exc}") from None
        except httpx.HTTPError as exc:
            raise UpgradeFailed(f"the signature download was interrupted: {type(exc).__name__}") from None
        signature = _signature_bytes(raw)
        if signature is None:
            raise UpgradeFailed("the signature file is not a 64-byte Ed25519 signature (raw or base64)")
        # Ed25519 signs the whole message: map the file instead of reading it into memory.
        with open(target, "rb") as handle:
            if os.fstat(handle.fileno()).st_size == 0:
                data: Any = b""
                mapped = None
            else:
                mapped = data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            try:
                key.verify(signature, data)
            except InvalidSignature:
                raise UpgradeFailed("the Ed25519 signature does not verify: the download is not installed") from None
            finally:
                if mapped is not None:
                    mapped.close()

    def _back_up(self, job: UpgradeJob) -> str:
        """A database-only backup job, waited for; the line that opens ``log_tail``."""
        if self.settings.uses_external_database:
            return ("pre-upgrade backup: none (SVC_DISPLAY_DATABASE_URL is set: back the database up with "
                    "its own tools)")
        from builtin_plugins.maintenance.jobs import jobs_of

        jobs = jobs_of(self.host)
        backup = jobs.create("tgz", include_database=True, include_blobs=False)
        job.log_tail = f"pre-upgrade backup: job {backup.job_id} running"
        deadline = time.monotonic() + BACKUP_WAIT_S
        while backup.status in ("pending", "running") and time.monotonic() < deadline:
            if jobs.get(backup.job_id) is None:  # deleted meanwhile
                break
            time.sleep(BACKUP_POLL_S)
        if backup.status != "ready" or jobs.get(backup.job_id) is None:
            raise UpgradeFailed(f"the pre-upgrade backup job {backup.job_id} did not complete "
                                f"({backup.status}{': ' + backup.error if backup.error else ''}): "
                                "the helper was not run")
        log.info("upgrade %s: pre-upgrade backup job %s ready", job.job_id, backup.job_id)
        return (f"pre-upgrade backup: job {backup.job_id} ready ({backup.size_bytes} bytes, database only): "
                f"GET /v1/display/backup/jobs/{backup.job_id}/download within 24 h")

    def _install(self, job: UpgradeJob, target: Path, first_line: str) -> None:
        script = self.values.upgrade_script
        log_path = self.dir / f"{job.job_id}.log"
        limit = self.values.upgrade_timeout_seconds
        try:
            with create_private(log_path) as out:
                process = subprocess.Popen([str(script), str(target)], stdout=out, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, cwd=self.dir, start_new_session=True)
                try:
                    code = process.wait(limit)
                except subprocess.TimeoutExpired:
                    _stop_group(process)
                    raise UpgradeFailed(f"the upgrade helper ran longer than {limit} s and was stopped") from None
        finally:
            job.log_tail = first_line + "\n" + _tail(log_path, LOG_TAIL_BYTES - len(first_line) - 1)
            log_path.unlink(missing_ok=True)
        if code != 0:
            raise UpgradeFailed(f"the upgrade helper exited with status {code}")


def _stop_group(process: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _tail(path: Path, limit: int = LOG_TAIL_BYTES) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - max(0, limit)))
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _signature_bytes(raw: bytes) -> bytes | None:
    if len(raw) == 64:
        return raw
    try:
        decoded = base64.b64decode(raw.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None
    return decoded if len(decoded) == 64 else None


def _tls_failure(exc: BaseException) -> str | None:
    """The certificate error behind an httpx error, if that is what it is."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return seen.verify_message or str(seen)
        if isinstance(seen, ssl.SSLError):
            return str(seen)
        seen = seen.__cause__ or seen.__context__
    return None


def _host(url: str) -> str:
    return urlparse(url).hostname or "the server"


def upgrade_capable(settings: Any) -> bool:
    """CONTRACT: Linux on arm64 (any architecture with SVC_DISPLAY_UPGRADE_ANY_ARCH=1) with an
    executable SVC_DISPLAY_UPGRADE_SCRIPT (GET /v1/health ``upgrade_capable``)."""
    values = settings.plugin_values("maintenance")
    script = values.get("upgrade_script")
    return (platform.system() == "Linux" and (platform_arch() == "arm64" or values.get("upgrade_any_arch"))
            and script is not None and script.is_file() and os.access(script, os.X_OK))

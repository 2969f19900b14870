"""Provider secrets, encrypted at rest (spec 2.7, 5.15).

Values are encrypted with Fernet (AES-128-CBC + HMAC-SHA256). The Fernet key lives in
the operating-system secret store through ``keyring`` (service ``svc-display``, one
entry per data dir). When no usable keyring backend exists (a headless Linux box
without a Secret Service, which is what the tests run on), the key is kept in
``<data dir>/integration-secrets.key`` with mode 0600 instead. Once a key file exists
it keeps being used, so a keyring that appears later does not orphan stored secrets.

Plaintext never reaches the database, a response or a log line. The host's, because the
integrations plugin stores with it and the controller's archives (``svc_controller/backups.py``)
read a display's secrets with it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

log = logging.getLogger(__name__)

KEYRING_SERVICE = "svc-display"
KEY_FILE = "integration-secrets.key"


def keyring_usable() -> bool:
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
    except Exception:  # noqa: BLE001 - any import/backend problem means "no keyring"
        return False
    if isinstance(backend, fail.Keyring):
        return False
    if type(backend).__name__ == "ChainerBackend":
        return bool(getattr(backend, "backends", ()))
    return True


def keyring_get(name: str) -> str | None:
    import keyring

    try:
        return keyring.get_password(KEYRING_SERVICE, name)
    except Exception:  # noqa: BLE001
        return None


def keyring_set(name: str, value: str) -> bool:
    import keyring

    try:
        keyring.set_password(KEYRING_SERVICE, name, value)
        return True
    except Exception:  # noqa: BLE001
        return False


def keyring_delete(name: str) -> None:
    import keyring

    try:
        keyring.delete_password(KEYRING_SERVICE, name)
    except Exception:  # noqa: BLE001
        pass


def scope_name(data_dir: Path, purpose: str) -> str:
    """Keyring entry name for ``purpose`` of one data dir (several displays may share a user)."""
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:16]
    return f"{purpose}:{digest}"


class SecretBox:
    """Encrypt and decrypt provider secrets with the display's Fernet key."""

    def __init__(self, data_dir: Path, key_file: str = KEY_FILE):
        self.data_dir = data_dir
        self.key_file = key_file  # the controller keeps its own key file (svc_controller.backups)
        self._fernet: Fernet | None = None
        self._lock = threading.Lock()
        self.key_location = ""

    def _load_key(self) -> bytes:
        path = self.data_dir / self.key_file
        if path.exists():
            self.key_location = "file"
            return path.read_bytes().strip()
        entry = scope_name(self.data_dir, "fernet-key" if self.key_file == KEY_FILE else self.key_file)
        if keyring_usable():
            stored = keyring_get(entry)
            if stored:
                self.key_location = "keyring"
                return stored.encode()
            key = Fernet.generate_key()
            if keyring_set(entry, key.decode()) and keyring_get(entry) == key.decode():
                self.key_location = "keyring"
                return key
        key = Fernet.generate_key()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key + b"\n")
        self.key_location = "file"
        log.info("integration secrets: no OS keyring backend, key kept in %s (mode 0600)", path.name)
        return key

    def _box(self) -> Fernet:
        with self._lock:
            if self._fernet is None:
                self._fernet = Fernet(self._load_key())
            return self._fernet

    def encrypt(self, plaintext: str) -> str:
        return self._box().encrypt(plaintext.encode()).decode()

    def decrypt(self, token: str) -> str | None:
        try:
            return self._box().decrypt(token.encode()).decode()
        except (InvalidToken, ValueError):
            log.warning("integration secrets: a stored value could not be decrypted (key changed?)")
            return None

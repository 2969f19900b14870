"""TLS on by default: a self-signed certificate in ``tls/``, reused until it expires."""
from __future__ import annotations

import datetime as dt
import ipaddress
import logging
import os
import socket
from pathlib import Path

import psutil
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from svc_host.storage import private_dir

log = logging.getLogger(__name__)

CERT_FILE = "display-cert.pem"
KEY_FILE = "display-key.pem"
VALIDITY_DAYS = 825
RENEW_BEFORE = dt.timedelta(days=7)


def local_ipv4_addresses() -> list[str]:
    """Every IPv4 address of this machine's interfaces, loopback first."""
    found: list[str] = []
    for addresses in psutil.net_if_addrs().values():
        for address in addresses:
            if address.family == socket.AF_INET and address.address not in found:
                found.append(address.address)
    return sorted(found, key=lambda a: (not ipaddress.ip_address(a).is_loopback, a))


def first_non_loopback_ipv4() -> str | None:
    """The address adoption URLs use (spec 1), or None on a machine with only loopback."""
    for address in local_ipv4_addresses():
        if not ipaddress.ip_address(address).is_loopback:
            return address
    return None


def _certificate_is_usable(cert_path: Path, key_path: Path) -> bool:
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        return False
    if cert.public_key().public_numbers() != key.public_key().public_numbers():
        return False
    return cert.not_valid_after_utc - RENEW_BEFORE > dt.datetime.now(dt.timezone.utc)


def generate_self_signed(cert_path: Path, key_path: Path, hostname: str, addresses: list[str]) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.timezone.utc)
    names: list[x509.GeneralName] = [x509.DNSName("localhost")]
    if hostname and hostname != "localhost":
        names.append(x509.DNSName(hostname))
    names += [x509.IPAddress(ipaddress.ip_address(a)) for a in addresses]
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname or "svc-display")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=VALIDITY_DAYS))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    private_dir(cert_path.parent)
    _write_private(key_path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    _write_private(cert_path, cert.public_bytes(serialization.Encoding.PEM))


def _write_private(path: Path, data: bytes) -> None:
    """``path`` holds ``data``, readable by this user only (whatever the process umask)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.chmod(path, 0o600)


def ensure_certificate(settings, name: str = "display") -> tuple[Path, Path]:  # noqa: ANN001
    """The (cert, key) paths to serve with: the overrides, or the generated pair in ``tls/``.

    ``name`` prefixes the generated files (``display-cert.pem``; the controller uses
    ``controller``); ``settings`` needs ``http_tls_cert``, ``http_tls_key`` and ``tls_dir``.
    """
    if settings.http_tls_cert and settings.http_tls_key:
        return settings.http_tls_cert, settings.http_tls_key
    cert_path, key_path = settings.tls_dir / f"{name}-cert.pem", settings.tls_dir / f"{name}-key.pem"
    if not _certificate_is_usable(cert_path, key_path):
        log.info("generating a self-signed TLS certificate in %s", settings.tls_dir)
        generate_self_signed(cert_path, key_path, socket.gethostname(), local_ipv4_addresses())
    # a folder or certificate an older release left readable by others is tightened
    private_dir(settings.tls_dir)
    for path in (cert_path, key_path):
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
    return cert_path, key_path


def certificate_fingerprint(cert_path: Path) -> str:
    """The SHA-256 fingerprint of a PEM certificate as ``AB:CD:...`` (what browsers show)."""
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    digest = cert.fingerprint(hashes.SHA256()).hex().upper()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))


def listening_urls(scheme: str, bind_ip: str, port: int) -> list[str]:
    """The URLs a client can use: every local IPv4 address when bound to all of them."""
    addresses = local_ipv4_addresses() if bind_ip in ("0.0.0.0", "::") else [bind_ip]
    return [f"{scheme}://{f'[{a}]' if ':' in a else a}:{port}" for a in addresses]

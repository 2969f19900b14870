"""Roles, digests, passwords, secrets at rest and the TLS material, for the plugins that sign
people and clients in or keep credentials.

A face: the host keeps the code in :mod:`svc_host.permissions`, :mod:`svc_host.auth`,
:mod:`svc_host.passwords`, :mod:`svc_host.secrets` and :mod:`svc_host.tls` (the host and the
controller use them too); a plugin imports these names from here.
"""
from svc_host.auth import same_digest, sha256_hex
from svc_host.passwords import (PASSWORD_MAX, PasswordError, check_password_policy, hash_password, read_password,
                                verify_password)
from svc_host.permissions import ROLES
from svc_host.secrets import SecretBox, keyring_delete, keyring_get, keyring_set, keyring_usable, scope_name
from svc_host.tls import ensure_certificate

__all__ = ["same_digest", "sha256_hex", "PASSWORD_MAX", "PasswordError", "check_password_policy", "hash_password",
           "read_password", "verify_password", "ROLES", "SecretBox", "keyring_delete", "keyring_get", "keyring_set",
           "keyring_usable", "scope_name", "ensure_certificate"]

"""Linked accounts: OAuth 2.0 device-code sign-in (Google, Microsoft), token storage and refresh.

- A sign-in starts with ``POST /v1/integrations/{id}/accounts/device-code``: the display
  asks the identity provider for a device code (public client id from
  ``SVC_DISPLAY_GOOGLE_CLIENT_ID`` / ``SVC_DISPLAY_MICROSOFT_CLIENT_ID``) and answers the
  ``user_code`` and ``verification_uri`` the operator opens elsewhere. The device code
  itself stays in memory on the display.
- ``POST /v1/integrations/{id}/accounts/device-code/{sign_in_id}/poll`` asks the token
  endpoint once (RFC 8628): ``pending``, ``slow_down``, ``denied``, ``expired`` or
  ``linked`` (with the new account).
- Token-only accounts (Trello member tokens) are linked with
  ``POST /v1/integrations/{id}/accounts`` ``{account_type, label, token}``.
- Tokens are kept in the OS secret store through keyring (one entry per account); when
  no keyring backend exists they are stored Fernet-encrypted in the account row instead.
  Access tokens are refreshed with the refresh token when they are within 60 s of expiry.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
import uuid
from dataclasses import dataclass
from typing import Any

from pony import orm

from hookspecs.collect import AccountError, HttpFailure
from svc_host.kit.security import (
    keyring_delete,
    keyring_get,
    keyring_set,
    keyring_usable,
    scope_name,
)

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
REFRESH_MARGIN_MS = 60_000
SIGN_IN_LIFETIME_MS = 30 * 60_000


@dataclass(frozen=True)
class Provider:
    account_type: str
    default_auth_base: str
    device_path: str
    token_path: str
    scope: str
    client_setting: str


PROVIDERS = {
    "google": Provider(
        "google",
        "https://oauth2.googleapis.com",
        "/device/code",
        "/token",
        "openid email https://www.googleapis.com/auth/calendar.readonly",
        "google_client_id",
    ),
    "microsoft": Provider(
        "microsoft",
        "https://login.microsoftonline.com",
        "/{tenant}/oauth2/v2.0/devicecode",
        "/{tenant}/oauth2/v2.0/token",
        "offline_access openid email Calendars.Read",
        "microsoft_client_id",
    ),
}


@dataclass
class SignIn:
    id: str
    integration_id: str
    account_type: str
    device_code: str
    expires_at_ms: int
    interval: int
    auth_base: str
    tenant: str


def _jwt_email(id_token: Any) -> str:
    """The ``email`` (or ``preferred_username``) claim of an id_token, used as a label only."""
    if not isinstance(id_token, str) or id_token.count(".") != 2:
        return ""
    try:
        payload = id_token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (ValueError, UnicodeDecodeError):
        return ""
    if not isinstance(claims, dict):
        return ""
    return str(claims.get("email") or claims.get("preferred_username") or "")[:300]


class AccountStore:
    """``host.services[ACCOUNTS]``."""

    def __init__(self, engine: Any):
        self.engine = engine
        self.host = engine.host
        self._sign_ins: dict[str, SignIn] = {}
        self._lock = threading.Lock()
        self._refresh_lock = threading.Lock()

    # ---- token storage ----------------------------------------------------------------
    def _entry(self, account_id: str) -> str:
        return scope_name(self.host.settings.data_dir, f"oauth-token:{account_id}")

    def save_token(self, account_id: str, token: dict[str, Any]) -> None:
        """Keep ``token`` in the keyring (or encrypted in the row without one). Needs a db_session."""
        row = self.host.db.IntegrationAccount[account_id]
        payload = json.dumps(token)
        if keyring_usable() and keyring_set(self._entry(account_id), payload):
            row.token_cipher = None
        else:
            row.token_cipher = self.engine.secret_box.encrypt(payload)

    def load_token(self, account_id: str) -> dict[str, Any] | None:
        with orm.db_session:
            row = self.host.db.IntegrationAccount.get(id=account_id)
            cipher = row.token_cipher if row is not None else None
            if row is None:
                return None
        payload = (
            self.engine.secret_box.decrypt(cipher)
            if cipher
            else keyring_get(self._entry(account_id)) if keyring_usable() else None
        )
        try:
            token = json.loads(payload) if payload else None
        except ValueError:
            return None
        return token if isinstance(token, dict) else None

    def link(
        self, integration_id: str, account_type: str, label: str, token: dict[str, Any]
    ) -> dict[str, Any]:
        """Create the account row and store its token. Needs a db_session."""
        row = self.host.db.IntegrationAccount(
            id=uuid.uuid4().hex,
            integration_id=integration_id,
            account_type=account_type,
            label=label[:300],
            created_at_ms=self.host.clock.now_ms(),
        )
        orm.flush()
        self.save_token(row.id, token)
        return {
            "id": row.id,
            "account_type": row.account_type,
            "label": row.label,
            "created_at_ms": row.created_at_ms,
        }

    def unlink(self, account_id: str) -> bool:
        """Delete the account row and its stored token. Needs a db_session."""
        row = self.host.db.IntegrationAccount.get(id=account_id)
        if row is None:
            return False
        row.delete()
        if keyring_usable():
            keyring_delete(self._entry(account_id))
        return True

    # ---- device-code sign-in ------------------------------------------------------------
    def _client_id(self, provider: Provider) -> str:
        client_id = self.host.settings.plugin_values("integrations").get(provider.client_setting)
        if not client_id:
            raise AccountError(
                "oauth_client_not_configured",
                f"set SVC_DISPLAY_{provider.account_type.upper()}_CLIENT_ID to sign in",
                503,
            )
        return client_id

    def _auth_base(self, integration_id: str, provider: Provider) -> tuple[str, str]:
        with orm.db_session:
            row = self.host.db.Integration.get(id=integration_id)
            config = dict(row.config_json or {}) if row is not None else {}
        base = config.get("authBaseUrl") if isinstance(config.get("authBaseUrl"), str) else None
        tenant = config.get("tenant") if isinstance(config.get("tenant"), str) else "common"
        return (base or provider.default_auth_base).rstrip("/"), tenant

    def start_device_sign_in(self, integration_id: str, account_type: str) -> dict[str, Any]:
        provider = PROVIDERS.get(account_type)
        if provider is None:
            raise AccountError(
                "device_sign_in_unsupported", f"{account_type} accounts have no device sign-in", 400
            )
        client_id = self._client_id(provider)
        base, tenant = self._auth_base(integration_id, provider)
        try:
            response = self.engine.http.request(
                "POST",
                base + provider.device_path.format(tenant=tenant),
                data={"client_id": client_id, "scope": provider.scope},
                accept="application/json",
                allow_error_status=True,
            )
            answer = response.json()
        except HttpFailure as exc:
            raise AccountError("identity_provider_unavailable", str(exc), 502) from None
        if (
            response.status >= 400
            or not isinstance(answer, dict)
            or not answer.get("device_code")
            or not answer.get("user_code")
        ):
            error = answer.get("error") if isinstance(answer, dict) else None
            raise AccountError(
                "identity_provider_error", f"the identity provider refused: {error or response.status}", 502
            )
        now = self.host.clock.now_ms()
        expires_in = answer.get("expires_in") if isinstance(answer.get("expires_in"), int) else 900
        interval = answer.get("interval") if isinstance(answer.get("interval"), int) else 5
        sign_in = SignIn(
            secrets.token_urlsafe(16),
            integration_id,
            account_type,
            str(answer["device_code"]),
            now + min(expires_in * 1000, SIGN_IN_LIFETIME_MS),
            max(1, interval),
            base,
            tenant,
        )
        with self._lock:
            self._sign_ins = {k: v for k, v in self._sign_ins.items() if v.expires_at_ms > now}
            self._sign_ins[sign_in.id] = sign_in
        return {
            "sign_in_id": sign_in.id,
            "account_type": account_type,
            "user_code": str(answer["user_code"]),
            "verification_uri": str(answer.get("verification_uri") or answer.get("verification_url") or ""),
            "verification_uri_complete": answer.get("verification_uri_complete"),
            "expires_at_ms": sign_in.expires_at_ms,
            "interval_seconds": sign_in.interval,
        }

    def poll_device_sign_in(self, integration_id: str, sign_in_id: str) -> dict[str, Any]:
        with self._lock:
            sign_in = self._sign_ins.get(sign_in_id)
        if sign_in is None or sign_in.integration_id != integration_id:
            raise AccountError("not_found", "sign-in not found", 404)
        if sign_in.expires_at_ms <= self.host.clock.now_ms():
            self._forget(sign_in_id)
            return {"status": "expired"}
        provider = PROVIDERS[sign_in.account_type]
        answer, status = self._token_request(
            provider,
            sign_in.auth_base,
            sign_in.tenant,
            {
                "grant_type": DEVICE_GRANT,
                "device_code": sign_in.device_code,
                "client_id": self._client_id(provider),
            },
        )
        if status < 400 and answer.get("access_token"):
            self._forget(sign_in_id)
            token = self._token_from(answer, {})
            label = _jwt_email(answer.get("id_token")) or f"{sign_in.account_type} account"
            with orm.db_session:
                account = self.link(integration_id, sign_in.account_type, label, token)
            return {"status": "linked", "account": account}
        error = answer.get("error")
        if error in ("authorization_pending", "slow_down"):
            if error == "slow_down":
                sign_in.interval += 5
            return {
                "status": "pending" if error == "authorization_pending" else "slow_down",
                "interval_seconds": sign_in.interval,
            }
        self._forget(sign_in_id)
        if error in ("access_denied", "authorization_declined"):
            return {"status": "denied"}
        if error in ("expired_token", "code_expired"):
            return {"status": "expired"}
        raise AccountError(
            "identity_provider_error", f"the identity provider answered {error or status}", 502
        )

    def _forget(self, sign_in_id: str) -> None:
        with self._lock:
            self._sign_ins.pop(sign_in_id, None)

    def _token_request(self, provider: Provider, base: str, tenant: str, form: dict) -> tuple[dict, int]:
        try:
            response = self.engine.http.request(
                "POST",
                base + provider.token_path.format(tenant=tenant),
                data=form,
                accept="application/json",
                allow_error_status=True,
            )
            answer = response.json()
        except HttpFailure as exc:
            raise AccountError("identity_provider_unavailable", str(exc), 502) from None
        if not isinstance(answer, dict):
            raise AccountError(
                "identity_provider_error", "the token endpoint did not answer a JSON object", 502
            )
        return answer, response.status

    def _token_from(self, answer: dict, previous: dict) -> dict[str, Any]:
        expires_in = answer.get("expires_in") if isinstance(answer.get("expires_in"), (int, float)) else 3600
        return {
            "access_token": answer["access_token"],
            "refresh_token": answer.get("refresh_token") or previous.get("refresh_token"),
            "token_type": answer.get("token_type", "Bearer"),
            "expires_at_ms": self.host.clock.now_ms() + int(expires_in * 1000),
        }

    # ---- use ----------------------------------------------------------------------------
    def access_token(self, account_id: str) -> dict[str, Any]:
        """A valid token dict for the account, refreshed first when it is about to expire."""
        with orm.db_session:
            row = self.host.db.IntegrationAccount.get(id=account_id)
            if row is None:
                raise AccountError("not_found", "account not found", 404)
            account_type, integration_id = row.account_type, row.integration_id
        token = self.load_token(account_id)
        if not token:
            raise AccountError("oauth_token_unavailable", "no token is stored for this account")
        provider = PROVIDERS.get(account_type)
        expires = token.get("expires_at_ms")
        if (
            provider is None
            or not isinstance(expires, int)
            or expires - REFRESH_MARGIN_MS > self.host.clock.now_ms()
        ):
            return token
        with self._refresh_lock:
            token = self.load_token(account_id) or token
            if token.get("expires_at_ms", 0) - REFRESH_MARGIN_MS > self.host.clock.now_ms():
                return token
            if not token.get("refresh_token"):
                raise AccountError(
                    "oauth_token_unavailable", "the access token expired and there is no refresh token"
                )
            base, tenant = self._auth_base(integration_id, provider)
            answer, status = self._token_request(
                provider,
                base,
                tenant,
                {
                    "grant_type": "refresh_token",
                    "refresh_token": token["refresh_token"],
                    "client_id": self._client_id(provider),
                },
            )
            if status >= 400 or not answer.get("access_token"):
                raise AccountError(
                    "oauth_token_unavailable",
                    f"refreshing the token failed: {answer.get('error') or status}; sign in again",
                )
            fresh = self._token_from(answer, token)
            with orm.db_session:
                self.save_token(account_id, fresh)
            return fresh

    def account(self, account_id: str) -> dict[str, Any] | None:
        """``{id, account_type, integration_id, config}`` of a linked account (``config``: its
        integration's ``config_json``); None when there is no such account."""
        with orm.db_session:
            account = self.host.db.IntegrationAccount.get(id=account_id)
            if account is None:
                return None
            integration = self.host.db.Integration.get(id=account.integration_id)
            config = dict(integration.config_json or {}) if integration is not None else {}
            return {"id": account.id, "account_type": account.account_type,
                    "integration_id": account.integration_id, "config": config}

    def bearer(self, account_id: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access_token(account_id)['access_token']}"}

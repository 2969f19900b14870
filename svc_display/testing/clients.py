"""An in-process REST client of a host and API keys (the host's, re-exported for plugin authors)."""
from svc_host.http.inprocess import ApiClient, issue_key

__all__ = ["ApiClient", "issue_key"]

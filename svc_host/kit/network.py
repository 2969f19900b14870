"""The outbound HTTP client and the address rules, for the plugins that call out or judge callers.

A face: the host keeps the code in :mod:`svc_host.http_client`, :mod:`svc_host.addresses` and
:mod:`svc_host.tls`; a plugin imports these names from here.

- :class:`HttpClient`: the outbound client behind ``context.http`` (timeouts, size limits,
  private addresses refused);
- ``is_private_address``, ``system_resolver``: what counts as a private (loopback, LAN) address;
- ``local_ipv4_addresses``: this machine's IPv4 addresses (the URLs a display announces).
"""
from svc_host.addresses import is_private_address, system_resolver
from svc_host.http_client import HttpClient
from svc_host.tls import local_ipv4_addresses

__all__ = ["is_private_address", "system_resolver", "HttpClient", "local_ipv4_addresses"]

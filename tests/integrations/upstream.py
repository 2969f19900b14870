"""The loopback upstream of collector tests lives in the plugin authors' kit now."""
from svc_display.testing.upstream import FAULTS, SLOW_FAULTS, Reply, Request, Upstream, wait_for  # noqa: F401

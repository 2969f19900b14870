"""The minimal svc-display host: configuration, plugins, storage, HTTP, server, CLI."""
from importlib import metadata

try:
    __version__ = metadata.version("svc-display")
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

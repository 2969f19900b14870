"""Photo and video collectors: photo_pexels, video_pexels, photo_unsplash, photo_nasa_apod."""

from __future__ import annotations

from hookspecs import hookimpl
from builtin_plugins.collectors_media import providers


@hookimpl
def register_integration_types() -> list:
    return list(providers.TYPES)

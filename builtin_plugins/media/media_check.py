"""What uploaded bytes really are: Pillow decodes images, container magic bytes identify videos."""
from __future__ import annotations

import io
import warnings

from PIL import Image

PHOTO_TYPES = {"image/jpeg": "JPEG", "image/png": "PNG", "image/webp": "WEBP"}
PHOTO_EXTENSIONS = {"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp"}
VIDEO_EXTENSIONS = {"video/mp4": ".mp4", "video/quicktime": ".mov", "video/webm": ".webm"}
MAX_PIXELS = 40_000_000  # decoding cost on a small display computer, checked before decoding


class MediaError(ValueError):
    """The bytes are not what the declared content type says (message is user-facing)."""


def check_image(data: bytes, content_type: str) -> tuple[int, int]:
    """Decode the image fully; raise :class:`MediaError` unless it is a ``content_type`` image."""
    expected = PHOTO_TYPES[content_type]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                actual = image.format
                width, height = image.size
                if width * height > MAX_PIXELS:
                    raise MediaError(f"the image has more than {MAX_PIXELS} pixels")
                if actual != expected:
                    raise MediaError(f"the bytes are a {actual or 'unknown'} image, not {content_type}")
                image.load()
    except MediaError:
        raise
    except Exception as exc:  # Pillow raises many types for undecodable input
        raise MediaError(f"the bytes are not a decodable {content_type} image ({type(exc).__name__})") from None
    return width, height


def sniff_video(data: bytes) -> str | None:
    """The container type of ``data`` from its magic bytes, or None."""
    if len(data) >= 12 and data[4:8] == b"ftyp":
        return "video/quicktime" if data[8:12] == b"qt  " else "video/mp4"
    if data[:4] == b"\x1a\x45\xdf\xa3" and b"webm" in data[:64]:
        return "video/webm"
    return None


def check_video(data: bytes, content_type: str) -> None:
    actual = sniff_video(data)
    if actual != content_type:
        raise MediaError(f"the bytes are {actual or 'not a known video container'}, not {content_type}")

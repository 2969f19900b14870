"""Sample photos and a video for ``svc-display gallery`` (the ``display_samples`` hook), in the
categories the types' examples name (``photos``, ``videos``)."""
from __future__ import annotations

from typing import Any

from svc_host.kit.samples import landscape_png, video_mp4

PHOTOS = [("Morning over the lake", "Ana Lima", (90, 150, 230), (50, 120, 90)),
          ("Autumn fields", "Jon Berg", (240, 170, 110), (170, 120, 50)),
          ("Harbour at dusk", "Mia Chen", (60, 60, 130), (40, 60, 90))]


def write(host: Any) -> None:
    db, now = host.db, host.clock.now_ms()
    for i, (alt, who, sky, ground) in enumerate(PHOTOS):
        key = f"samples/photo-{i}.png"
        host.blobs.put(key, landscape_png((1280, 720), sky, ground), "image/png")
        db.Photo(id=f"sample-{i}", alt_text=alt, photographer_name=who, data_provider="manual_entry",
                 media_blob_key=key, category_id="photos", integration_type="manual_entry", created_at_ms=now - i)
    host.blobs.put("samples/video.mp4", video_mp4(), "video/mp4")
    db.Video(id="sample-video", alt_text="Sunrise time-lapse", photographer_name="Ana Lima",
             data_provider="manual_entry", media_blob_key="samples/video.mp4", duration_seconds=3,
             category_id="videos", integration_type="manual_entry", created_at_ms=now)

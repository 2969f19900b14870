"""Real media bytes for tests: images encoded by Pillow, minimal MP4/QuickTime/WebM containers."""
import base64
import io

from PIL import Image


def image_bytes(fmt: str = "PNG", size: tuple[int, int] = (8, 6), color: str = "red") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format=fmt)
    return buffer.getvalue()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


MP4 = b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2" + b"\x00\x00\x00\x08free" + b"\x00" * 64
MOV = b"\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00qt  " + b"\x00" * 64
WEBM = b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x84webm" + b"\x00" * 64


def video_bytes(colors: list[tuple[int, int, int]], seconds_each: float = 1.0, size: tuple[int, int] = (160, 90),
                fps: int = 10) -> bytes:
    """A real MPEG-4 video in an MP4 container (encoded by ffpyplayer's bundled FFmpeg):
    ``seconds_each`` of each solid colour in turn, no audio."""
    import os
    import tempfile

    from ffpyplayer.pic import Image as Frame
    from ffpyplayer.writer import MediaWriter

    width, height = size
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "video.mp4")  # the writer refuses an existing file
        writer = MediaWriter(path, [{"pix_fmt_in": "rgb24", "pix_fmt_out": "yuv420p", "width_in": width,
                                     "height_in": height, "codec": "mpeg4", "frame_rate": (fps, 1)}])
        frame_index = 0
        for color in colors:
            frame = Frame(plane_buffers=[bytes(color) * (width * height)], pix_fmt="rgb24", size=size)
            for _ in range(max(1, round(seconds_each * fps))):
                writer.write_frame(img=frame, pts=frame_index / fps, stream=0)
                frame_index += 1
        writer.close()
        with open(path, "rb") as handle:
            return handle.read()


def png_bytes(color: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), color).save(buffer, "PNG")
    return buffer.getvalue()

"""A throwaway plugin for the canvas power and watchdog tests: a layer that draws a full-area
colour, counts its frames and its lives in files of ``POWER_WITNESS_DIR``, and, while the file
``block`` exists, is a renderer stuck in a loop on the UI thread (it writes ``blocked`` first)."""
from __future__ import annotations

import textwrap
from pathlib import Path

from tests.distributions import write_distribution

SOURCE = textwrap.dedent('''
    import os, time
    from functools import cached_property
    from pathlib import Path
    from hookspecs import LayerSpec, hookimpl

    HERE = Path(os.environ["POWER_WITNESS_DIR"])

    class Witness:
        def __init__(self, stage):
            self.frames = 0
            with open(HERE / "lives", "a") as lives:
                lives.write("created\\n")

        @cached_property
        def widget(self):
            from kivy.graphics import Color, Rectangle
            from kivy.uix.widget import Widget
            widget = Widget()
            with widget.canvas:
                Color(0.9, 0.2, 0.1, 1)
                self.rect = Rectangle()
            widget.bind(pos=lambda w, p: setattr(self.rect, "pos", p),
                        size=lambda w, s: setattr(self.rect, "size", s))
            return widget

        def load(self):
            return {}

        def apply(self, state, restyle):
            pass

        def tick(self, dt):
            self.frames += 1
            (HERE / "frames").write_text(str(self.frames))
            if (HERE / "block").exists():
                (HERE / "blocked").write_text("1")
                while (HERE / "block").exists():  # a renderer stuck in a loop on the UI thread
                    time.sleep(0.05)

        def dispose(self):
            with open(HERE / "lives", "a") as lives:
                lives.write("disposed\\n")

    @hookimpl
    def register_display_layers():
        return [LayerSpec("power_witness", 900, Witness, area="screen", description="power tests")]
''')


def install(folder: Path) -> str:
    return write_distribution(folder, "power_witness", SOURCE)

"""Curator test helpers."""
import time
from pathlib import Path



def set_clock(env, target_ms):
    """Point the host clock at ``target_ms`` (through the test clock offset file)."""
    Path(env["SVC_DISPLAY_TEST_CLOCK_FILE"]).write_text(str(target_ms - int(time.time() * 1000)))

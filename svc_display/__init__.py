"""Public helpers for svc-display plugin authors (``svc_display.testing``: the pytest plugin)."""

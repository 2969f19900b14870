"""Builtin features, each a plugin published through the ``svc_display.plugins`` entry points."""

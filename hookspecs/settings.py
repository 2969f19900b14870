"""A plugin's own configuration: the environment variables it declares (``register_settings``).

The host reads every declared variable once at start, before any plugin starts, with the
same rules as its own (``svc_host/config.py``): an empty value is unset, a bad value stops
the start with one line naming the variable and the plugin (exit status 2). Each plugin
then reads its typed values with ``settings.plugin_values(<plugin name>)`` (a frozen
:class:`SettingValues`, keys are :attr:`Setting.key`); ``svc-display serve --help`` and
``docs/configuration.md`` list the declarations plugin by plugin.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

NAME = re.compile(r"^SVC_[A-Z0-9_]+$")
# What a declared variable's value may be parsed to.
TYPES = (str, int, float, bool, Path)


@dataclass(frozen=True)
class Setting:
    """One environment variable a plugin reads.

    ``name``: the variable (``SVC_...``, upper case); ``type``: ``str``, ``int``, ``float``,
    ``bool`` (1/0, true/false, yes/no, on/off) or ``Path``; ``default``: the value when unset
    (``None``: unset); ``help``: one line for ``serve --help`` and the docs. Optional checks:
    ``low``/``high`` (numbers), ``choices`` (a closed set of ``str``, compared lower case),
    ``schemes`` (a ``str`` must be a URL of one of them), ``required_when`` (the name of a
    switch, the host's or a plugin's: when it is on, this variable must be set). ``key`` names the value in the
    plugin's :class:`SettingValues` (default: ``name`` lower case without its ``SVC_DISPLAY_``
    or ``SVC_`` prefix). ``secret``: never shown (its default neither).
    """

    name: str
    type: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    schemes: tuple[str, ...] = ()
    key: str = ""
    secret: bool = False
    required_when: str = ""

    def __post_init__(self) -> None:
        if not NAME.match(self.name):
            raise ValueError(f"setting {self.name!r}: the name must match {NAME.pattern}")
        if self.type not in TYPES:
            raise ValueError(f"setting {self.name}: type must be one of {', '.join(t.__name__ for t in TYPES)}")
        if not self.help.strip():
            raise ValueError(f"setting {self.name}: help is required")
        if not self.key:
            object.__setattr__(self, "key", re.sub(r"^SVC_(DISPLAY_)?", "", self.name).lower())


class SettingValues(Mapping[str, Any]):
    """A plugin's parsed values, by :attr:`Setting.key`; read-only, also as attributes."""

    def __init__(self, values: Mapping[str, Any]):
        object.__setattr__(self, "_values", dict(values))

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __getattr__(self, key: str) -> Any:
        try:
            return self._values[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("SettingValues are read-only")

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"SettingValues({sorted(self._values)})"  # keys only: values may be secrets

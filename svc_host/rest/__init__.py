"""The REST kit: building blocks for the routes plugins serve (builtin and third-party alike).

Nothing here is a feature; a plugin imports what its resources need:

- :mod:`.schemas`: marshmallow pieces (paging, JSON-or-string objects, slugs, client ids,
  ``StorableSchema`` that turns unstorable text into a 400);
- :mod:`.text`: string and JSON fields every storage backend can hold;
- :mod:`.query`: substring needles and ``{items, total, limit, offset}`` pages;
- :mod:`.transactions`: commit inside a responder so a race is a 409, never a 500;
- :mod:`.ratelimit`: sliding-window limits on ``host.clock`` (429 with ``Retry-After``);
- :mod:`.origins`: ``scheme://host[:port]`` normalisation of ``Origin`` / ``Referer``;
- :mod:`.configurable`: typed rows' rules (unknown type, config against the type's schema,
  type descriptors for the meta routes);
- :mod:`.typed_rows`: collection and item resources for typed rows (screens, ticker tapes,
  overlays);
- :mod:`.rows`: collection and item resources for plain rows of one entity (interests).
"""

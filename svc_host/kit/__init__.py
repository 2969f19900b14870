"""The public host kit: the one package of the host a plugin (builtin or third party) may import,
besides the contract (``hookspecs``). docs/hooks.md, "The public host kit", names every module of
it; tests/host/test_boundaries.py refuses any other host import in builtin_plugins/ and examples/.

- :mod:`.display`: the renderer kit, a module per rule (layout, text, pictures, panels, motion ...);
- :mod:`.formatting`: the one way dates, times, zones and temperatures are written (``formats(context)``);
- :mod:`.samples`: sample pictures and video for ``display_samples``;
- :mod:`.collecting`: the collecting kit (row ids, text cleanup, remote media into blobs, the
  per-unit loop);
- :mod:`.contrast`: colour contrast (WCAG 2.x) for every plugin that picks or checks colours;
- :mod:`.weights`: the one meaning of ``frequency_weight`` (appearances per cycle, spread);
- :mod:`.rest`: the REST kit and the CONTRACT error answers;
- :mod:`.services`: the helpers built on the service keys (``publish``, ``curated``, ``display_zone`` ...) and ``Periodic``;
- :mod:`.security`, :mod:`.network`, :mod:`.storage`: roles, digests, passwords, secrets and
  TLS; the outbound client and address rules; raw reads and ``add_column``.

``rest``, ``security``, ``network`` and ``storage`` are faces: the host keeps the
code in modules its own routes and the controller share, and names here what a plugin may use.
"""

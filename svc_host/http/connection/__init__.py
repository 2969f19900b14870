"""Connection handling in front of the WSGI workers: only complete requests reach them.

Three layers, all on uvicorn's event loop, so a slow or hostile client costs a socket and a
few bytes, never one of the WSGI worker threads:

- :class:`ConnectionLimits` and :class:`TlsGate`: every connection is counted for its client
  address and for the server from the moment it is accepted (a TLS connection before its
  handshake, which must end within the head deadline) until it closes; past
  ``per_address`` or ``total`` it is refused at once (plain HTTP: 429 ``rate_limited`` or
  503 ``server_busy`` with ``Retry-After``, then closed; TLS: closed, nothing can be said
  before a handshake).
- :class:`GuardedHttpToolsProtocol` (uvicorn's httptools protocol, bounded): a request's
  head (request line and headers) must arrive within ``header_timeout`` seconds, stay within
  :data:`MAX_HEAD_BYTES` and :data:`MAX_HEADERS`; a connection that sends nothing is dropped
  after the same timeout. Malformed requests are answered with the CONTRACT error body
  instead of uvicorn's plain text.
- :class:`CompleteRequests` (ASGI): reads the whole body (``Content-Length`` or chunked) with
  a deadline, caps its size at the route's own limit (:class:`BodyRules`; bodies past the
  default cap only from a caller with a valid key, checked before a byte of the body is
  read), bounds how many requests per client address may be waiting for their body at once,
  and hands the WSGI bridge a request whose body is complete (``Content-Length`` set to what
  arrived, so chunked bodies read like any other). Bodies past :data:`SPOOL_IN_MEMORY` are
  spooled to a private file on disk, never held in memory (a 2 GiB backup upload costs disk,
  not RAM). The deadline is ``body_timeout`` plus the time the bytes received so far need at
  :data:`MIN_BODY_RATE`: a large upload on a slow link finishes, a trickle does not.

Each connection's writes of one event-loop tick leave in one ``write`` of the transport
(:class:`CorkedTransport`): uvicorn writes a response's head and its body separately, which is
two TLS records, two OpenSSL calls (each giving up the GIL and queueing to take it back) and
two ``send`` calls per response.

uvicorn offers none of these bounds for httptools (``h11_max_incomplete_event_size`` exists
only for h11, the slower parser; ``limit_concurrency`` counts neither addresses nor TLS
handshakes) and no header or body deadline at all: hence this package. Limits are documented
in docs/reliability.md.

Modules: :mod:`.limits` (:class:`ConnectionLimits`, :class:`TlsGate`), :mod:`.protocol`
(:class:`GuardedHttpToolsProtocol`, :class:`CorkedTransport`), :mod:`.bodies`
(:class:`BodyRules`, :class:`CompleteRequests`) and :mod:`.answers` (the CONTRACT error
answers all three write).
"""

"""Raw HTTP over loopback sockets for the hostile-client tests of the display and the controller:
connections from chosen 127.x.y.z source addresses, requests written byte by byte, answers read
to the close and parsed, the CONTRACT error body checked, and churns of refused WebSocket upgrades
and idle connections (also run by benchmarks/upgrade_churn.py)."""
from __future__ import annotations

import asyncio
import collections
import http.client
import json
import select
import socket
import ssl

from svc_display.testing import ServerProcess


STALL = 5  # seconds: a generous bound that only a stalled server misses (no timing is asserted)


def connect_from(source: str, port: int, timeout: float = 20) -> socket.socket:
    """A TCP connection to the server from ``source`` (any 127.x.y.z: all of loopback is local)."""
    return socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))


def open_sending(port: int, data: bytes, source_addresses) -> list[socket.socket]:
    """One connection from each of ``source_addresses``, each having sent ``data`` (answers unread)."""
    held = []
    try:
        for source in source_addresses:
            held.append(connect_from(source, port))
            held[-1].sendall(data)
    except BaseException:
        for sock in held:
            sock.close()
        raise
    return held


def sources(count: int, third_octet: int = 1):
    """``count`` distinct loopback source addresses: 127.0.<third_octet>.1, ... then the next octet."""
    return [f"127.0.{third_octet + i // 250}.{1 + i % 250}" for i in range(count)]


def closed_by_server(sock: socket.socket) -> bool:
    """True once the server has closed ``sock`` (EOF, a reset, or an answer followed by EOF)."""
    if not select.select([sock], [], [], 0)[0]:
        return False
    try:
        sock.settimeout(1)
        read_to_close(sock)
    except OSError:
        pass
    return True


def health_from(server: ServerProcess, source: str = "127.0.0.1", path: str = "/v1/health") -> int:
    """``GET /v1/health`` from ``source`` (http.client: requests cannot choose it), within STALL
    seconds (``path``: another server's health, such as the controller's)."""
    if server.tls:
        context = ssl.create_default_context(cafile=server.verify)
        connection = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=STALL, context=context,
                                                 source_address=(source, 0))
    else:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=STALL,
                                                source_address=(source, 0))
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def raw_exchange(port: int, data: bytes, timeout: float = 15) -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        return read_to_close(sock)


def read_to_close(sock: socket.socket) -> bytes:
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def parse_response(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    return status, headers, body


def assert_contract_error(raw: bytes, status: int, code: str) -> None:
    got_status, headers, body = parse_response(raw)
    assert got_status == status, raw[:500]
    assert headers["content-type"].startswith("application/json"), raw[:500]
    payload = json.loads(body)
    assert payload["code"] == code and isinstance(payload["message"], str), payload


WEBSOCKET_UPGRADE = (b"GET /v1/display/live-preview/ws?ticket=not-a-ticket HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                     b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")


async def refused_upgrades(server: ServerProcess, rounds: int, at_once: int) -> collections.Counter:
    """``rounds`` times ``at_once`` TLS connections at once, from as many addresses, each sending a
    WebSocket upgrade with a ticket that does not exist; the status lines they got, counted."""
    context = ssl.create_default_context(cafile=server.verify)

    async def one(source: str) -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port, ssl=context,
                                                       server_hostname="localhost", local_addr=(source, 0))
        try:
            writer.write(WEBSOCKET_UPGRADE)
            return (await asyncio.wait_for(reader.readline(), STALL * 4)).strip()
        finally:
            writer.close()

    counted: collections.Counter = collections.Counter()
    for _ in range(rounds):
        counted.update(await asyncio.gather(*(one(source) for source in sources(at_once, third_octet=20))))
    return counted


async def idle_sockets(server: ServerProcess, at_once: int, hold: float) -> collections.Counter:
    """``at_once`` TCP connections from as many addresses, sending nothing, held ``hold`` seconds
    and closed; counted as ``open`` (still open when closed) or ``closed by server``."""
    async def one(source: str) -> str:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port, local_addr=(source, 0))
        try:
            try:
                data = await asyncio.wait_for(reader.read(1), hold)
            except asyncio.TimeoutError:
                return "open"
            return "closed by server" if not data else "answered"
        finally:
            writer.close()

    return collections.Counter(await asyncio.gather(*(one(source) for source in sources(at_once, third_octet=20))))

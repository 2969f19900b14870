"""CorkedTransport (svc_host/http/connection/protocol.py): one tick's writes leave in one write of the
real transport, in order; a close writes what is held first; an abort drops it. On a real
event loop with a real socket pair (asyncio and uvloop)."""
from __future__ import annotations

import asyncio
import socket

import pytest
import uvloop

from svc_host.http.connection.protocol import CorkedTransport


class Counting:
    """The real transport, with its writes counted (what reaches the socket is read back)."""

    def __init__(self, transport):
        self.transport = transport
        self.writes: list[bytes] = []

    def write(self, data):
        self.writes.append(bytes(data))
        self.transport.write(data)

    def __getattr__(self, name):
        return getattr(self.transport, name)


async def _pair():
    ours, theirs = socket.socketpair()
    loop = asyncio.get_running_loop()
    transport, _protocol = await loop.connect_accepted_socket(asyncio.Protocol, ours)
    theirs.setblocking(False)
    return loop, Counting(transport), theirs


async def _read(loop, sock, size):
    data = b""
    while len(data) < size:
        chunk = await asyncio.wait_for(loop.sock_recv(sock, 65536), 5)
        if not chunk:
            break
        data += chunk
    return data


@pytest.mark.parametrize("loop_kind", ["asyncio", "uvloop"])
def test_writes_of_one_tick_leave_together_and_a_close_sends_them_first(loop_kind):
    async def scenario():
        loop, counting, peer = await _pair()
        corked = CorkedTransport(counting, loop)
        head, body = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n", b"hello"
        corked.write(head)
        corked.write(b"")
        corked.write(body)
        assert counting.writes == []  # held until the tick ends
        assert corked.is_closing() is False  # the rest is the real transport's
        await asyncio.sleep(0)
        assert counting.writes == [head + body]
        assert await _read(loop, peer, len(head + body)) == head + body
        corked.writelines([b"a", b"b"])
        corked.write(b"c")
        corked.close()  # before the tick ends: written first, then closed
        assert counting.writes[-1] == b"abc"
        assert await _read(loop, peer, 4) == b"abc"  # then EOF
        peer.close()

        loop, counting, peer = await _pair()
        corked = CorkedTransport(counting, loop)
        corked.write(b"never")
        corked.abort()
        await asyncio.sleep(0)
        assert counting.writes == []
        peer.close()

    runner = uvloop.run if loop_kind == "uvloop" else asyncio.run
    runner(scenario())

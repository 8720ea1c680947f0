"""A bare aiohttp WebSocket echo server: the baseline the sidecar's figures are divided by.

It does the least a WebSocket server on the same stack can do (receive a text frame, send it
back), so "3x the echo" reads as "three times the cost of the transport alone".

    python bench/echo_server.py PORT
"""

from __future__ import annotations

import sys

from aiohttp import WSMsgType, web


async def echo(request: web.Request) -> web.StreamResponse:
    ws = web.WebSocketResponse(max_msg_size=1024 * 1024)
    await ws.prepare(request)
    async for msg in ws:
        if msg.type == WSMsgType.TEXT:
            await ws.send_str(msg.data)
    return ws


def main() -> None:
    app = web.Application()
    app.router.add_get("/ws", echo)
    web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None)


if __name__ == "__main__":
    main()

"""INFO answers at once while a search runs: 1,000 pings from 10 clients mid-PLAY.

The server is a separate `ggp-agent serve` process on 127.0.0.1 (so the clients
here do not share its interpreter), playing tic-tac-toe with the Monte Carlo
search. Every ping opens a new connection, as Tiltyard's do. The test checks
that all 1,000 get `busy` and that the move still comes within the play clock;
the latency figures are printed (`pytest -s`) for the note, not asserted.
"""

import asyncio
import statistics
import time

import aiohttp
import pytest

from ggp_agent.gdl import parse_term

from ..helpers import ServeProcess, start_message

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")

PLAY_CLOCK = 5
CLIENTS = 10
PINGS_PER_CLIENT = 100


def test_thousand_info_requests_during_a_search():
    with ServeProcess("--name", "loaded", "--player", "agent") as served:
        figures = asyncio.run(_load(f"http://{served.address}/"))
    latencies = sorted(figures["latencies"])
    print(
        f"\nINFO under search: {len(latencies)} replies, median {statistics.median(latencies) * 1000:.1f} ms, "
        f"p99 {latencies[int(len(latencies) * 0.99) - 1] * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms, "
        f"all in {figures['burst_seconds']:.2f} s, {figures['during']} of them before the move; move {figures['move']} after {figures['play_seconds']:.3f} s "
        f"(clock {PLAY_CLOCK} s), {figures['playouts']}"
    )
    assert figures["replies"] == ["((name loaded) (status busy))"] * (CLIENTS * PINGS_PER_CLIENT)
    assert figures["play_seconds"] < PLAY_CLOCK
    assert str(parse_term(figures["move"])).startswith("(mark ")
    assert figures["during"] >= CLIENTS * PINGS_PER_CLIENT // 2  # the pings really overlapped the search


async def _load(url: str) -> dict:
    headers = {"Content-Type": "text/acl"}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as session:
        async def post(text: str, timeout: float = 30) -> str:
            async with session.post(url, data=text, headers=headers,
                                    timeout=aiohttp.ClientTimeout(total=timeout)) as response:
                assert response.status == 200, await response.text()
                return await response.text()

        assert await post(start_message("load.1", "xplayer", play_clock=PLAY_CLOCK)) == "ready"
        began = time.monotonic()
        play = asyncio.create_task(post("(play load.1 nil)", PLAY_CLOCK + 1))
        await asyncio.sleep(0.1)
        burst_began = time.monotonic()
        latencies: list[float] = []
        replies: list[str] = []
        finished_at: list[float] = []

        async def client() -> None:
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as own:
                for _ in range(PINGS_PER_CLIENT):
                    sent = time.monotonic()
                    async with own.post(url, data="(info)", timeout=aiohttp.ClientTimeout(total=10)) as response:
                        replies.append(await response.text())
                    now = time.monotonic()
                    latencies.append(now - sent)
                    finished_at.append(now)

        await asyncio.gather(*(client() for _ in range(CLIENTS)))
        burst_seconds = time.monotonic() - burst_began
        move = await play
        play_done = time.monotonic()
        async with session.get(url + "status.json") as response:
            status = await response.json()
        last = status["matches"][0]["last_move"]
        await post("(abort load.1)")
    return {
        "latencies": latencies, "replies": replies, "move": move, "play_seconds": play_done - began,
        "during": sum(1 for t in finished_at if t < play_done), "burst_seconds": burst_seconds,
        "playouts": f"{last['stats'].get('playouts')} playouts in the search",
    }

"""asyncio: an engine whose handlers run on the running event loop.

    async with tocsin.aio.Engine() as engine:
        tea = engine.countdown(3, tick=1)
        tea.start()
        async for event in tea.events():
            print(event.kind.name, event.remaining)

The engine runs in polled mode: the loop watches its fd (``add_reader``) and
dispatches when events wait, so every handler runs on the loop's thread.
"""

from __future__ import annotations

import asyncio
from typing import Callable, Optional

from . import _engine
from ._values import Event

__all__ = ["Engine"]


class Engine(_engine.Engine):
    """A polled ``tocsin.Engine`` driven by an asyncio loop (the running one
    by default, so create it inside a coroutine)."""

    def __init__(
        self,
        *,
        library: Optional[str] = None,
        on_error: Optional[Callable[[BaseException, Event], object]] = None,
        loop: Optional[asyncio.AbstractEventLoop] = None,
    ) -> None:
        self._loop = loop or asyncio.get_running_loop()
        super().__init__(polled=True, library=library, on_error=on_error)
        self._fd = self.fileno()
        self._loop.add_reader(self._fd, self._ready)

    def _ready(self) -> None:
        if not self.closed:
            self.dispatch()

    def close(self) -> None:
        if not self.closed and not self._loop.is_closed():
            self._loop.remove_reader(self._fd)
        super().close()

    async def __aenter__(self) -> "Engine":
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

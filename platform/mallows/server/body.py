"""A request's body for ``mallows serve``, read with limits: refused by its declared length
before a byte is read when it is too large (413), stopped when more arrives than the limit, and
given up after ``BODY_SECONDS`` (408): a client that sends a short body holds only its own
connection, never a worker.
"""

from __future__ import annotations

import asyncio

from starlette.requests import Request

#: The largest request body taken (a play page's answer is a few hundred bytes).
MAX_BODY = 65536
#: Seconds a request may take to send its body.
BODY_SECONDS = 10.0


from mallows.errors import BodyError  # noqa: E402  (defined with every other error)


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The request's body, or a ``BodyError``: too large (said by its length, or found while
    reading) or too slow."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise BodyError(413, f"request too large: at most {limit} bytes")

    async def read() -> bytes:
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise BodyError(413, f"request too large: at most {limit} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    try:
        return await asyncio.wait_for(read(), BODY_SECONDS)
    except TimeoutError:
        raise BodyError(
            408, f"the request's body did not arrive within {BODY_SECONDS:g} s"
        ) from None

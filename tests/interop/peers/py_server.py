# SPDX-License-Identifier: MIT
"""A small MCP server written with the Python SDK (PyPI mcp 2.x), a peer for
libmcp-client and mcpc in tests/interop/run-servers.sh.

usage: py_server.py stdio
       py_server.py http PORT      (serves http://127.0.0.1:PORT/mcp)

Offers what every interop peer offers: tools add (a+b, text "sum=N" and
structuredContent {"sum": N}), fail (isError) and archive (asks the client
to confirm with an elicitation; "archived N orders" or "kept the orders"),
the resource interop://greeting ("hello from py2"; cacheScope public,
ttlMs 60000 in 2026-07-28) and the prompt greet
(argument name). The SDK has no tasks on the server side, so no task tool.
"""
import sys
from typing import Annotated

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import ElicitationResult, Elicit, MCPServer, Resolve
from pydantic import BaseModel

# 2026-07-28: reads of interop://greeting are the same for everyone, fresh
# for a minute (a client cache shared between clients may keep them)
mcp = MCPServer(
    "py2-interop",
    version="1.0.0",
    cache_hints={"resources/read": CacheHint(ttl_ms=60000, scope="public")},
)


class Sum(BaseModel):
    sum: int


@mcp.tool(description="Add two integers")
def add(a: int, b: int) -> Sum:
    return Sum(sum=a + b)


@mcp.tool(description="Always fails")
def fail() -> str:
    raise ValueError("nope")


class Confirm(BaseModel):
    confirm: bool


def ask(older_than_days: int) -> Elicit[Confirm]:
    return Elicit(f"Archive the orders older than {older_than_days} days?", Confirm)


@mcp.tool(description="Archive old orders after asking the user")
def archive(
    older_than_days: int,
    answer: Annotated[ElicitationResult[Confirm], Resolve(ask)],
) -> str:
    if answer.action == "accept" and answer.data.confirm:
        return f"archived 42 orders older than {older_than_days} days"
    return "kept the orders"


@mcp.resource("interop://greeting", mime_type="text/plain")
def greeting() -> str:
    return "hello from py2"


@mcp.prompt(description="Greets someone")
def greet(name: str) -> str:
    return f"Please greet {name} warmly."


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        mcp.run("stdio")
    else:
        mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))

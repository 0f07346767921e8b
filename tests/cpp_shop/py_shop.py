# SPDX-License-Identifier: MIT
"""py_shop.py - the official Python SDK (mcp 2.x) Client against the C++
example examples/cpp/shop.cpp.

    python py_shop.py stdio SHOP_BIN
    python py_shop.py http URL

Prints one "ok <step>" line per check and exits 0, or names the failing
step and exits 1.
"""
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

STEP = "connect"


def check(cond, what):
    if not cond:
        raise AssertionError(f"{STEP}: {what}")


async def main(argv):
    global STEP
    if argv[1] == "stdio":
        server = StdioServerParameters(command=argv[2], args=["--stdio"])
    else:
        server = argv[2]
    async with Client(server) as client:
        STEP = "tools/list"
        tools = (await client.list_tools()).tools
        check([t.name for t in tools] == ["quote"], f"{tools}")
        quote = tools[0]
        props = quote.input_schema["properties"]
        check(props["item"]["enum"] == ["mug", "shirt"], f"{props}")
        check((props["quantity"]["minimum"], props["quantity"]["maximum"]) == (1, 100),
              f"{props}")
        check(props["express"]["default"] is False, f"{props}")
        check(quote.output_schema["required"] == ["total", "currency"],
              f"{quote.output_schema}")
        print("ok tools/list")

        STEP = "tools/call"
        r = await client.call_tool("quote", {"item": "mug", "quantity": 3})
        check(not r.is_error and r.structured_content == {"total": 25.5, "currency": "EUR"},
              f"{r}")
        r = await client.call_tool("quote", {"item": "hat", "quantity": 3})
        check(r.is_error, f"hat was accepted: {r}")
        print("ok tools/call")

        STEP = "resources/read"
        r = await client.read_resource("shop://terms")
        check("returns within 30 days" in r.contents[0].text, f"{r}")
        print("ok resources/read")

        STEP = "prompts/get"
        r = await client.get_prompt("order_help", {"item": "shirt"})
        check(r.messages[0].content.text == "Help me order shirt from the shop.", f"{r}")
        print("ok prompts/get")


try:
    anyio.run(main, sys.argv)
except Exception as e:  # the step is in the message
    while isinstance(e, BaseExceptionGroup) and e.exceptions:  # anyio wraps it
        e = e.exceptions[0]
    print("FAIL", e)
    sys.exit(1)

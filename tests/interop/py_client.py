# SPDX-License-Identifier: MIT
"""py_client.py - the official Python SDK (mcp 2.x) Client, in its default
mode, against mcp-demo-server. It picks 2026-07-28 through server/discover.

    python py_client.py stdio DEMO_BIN DB_PATH PAGE_SIZE
    python py_client.py http URL

Prints one "ok <step>" line per check and exits 0, or names the failing
step and exits 1.
"""
import sys

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters

STEP = "connect"


def check(cond, what):
    if not cond:
        raise AssertionError(f"{STEP}: {what}")


async def main(argv):
    global STEP
    if argv[1] == "stdio":
        _, _, binary, db, page = argv
        server = StdioServerParameters(
            command=binary,
            args=["--stdio", "--db", db, "--store", f"sqlite:{db}",
                  "--page-size", page])
    else:
        server = argv[2]
    asked = []

    async def on_elicit(ctx, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    async with Client(server, elicitation_callback=on_elicit) as client:
        STEP = "protocol"
        check(client.protocol_version == "2026-07-28",
              f"negotiated {client.protocol_version}")
        print("ok protocol", client.protocol_version)

        STEP = "tools/list"
        names, pages, cursor = [], 0, None
        while True:
            page = await client.list_tools(cursor=cursor)
            pages += 1
            names += [t.name for t in page.tools]
            cursor = page.next_cursor
            if cursor is None or pages > 20:
                break
        check(pages >= 2, f"one page only ({len(names)} tools)")
        check(len(names) == len(set(names)), f"duplicates in {names}")
        check({"add", "archive_orders"} <= set(names), f"tools: {names}")
        print("ok tools/list", pages, "pages", len(names), "tools")

        STEP = "tools/call"
        r = await client.call_tool("add", {"a": 20, "b": 22})
        check(not r.is_error, f"isError: {r}")
        check(r.structured_content == {"sum": 42}, f"{r.structured_content}")
        print("ok tools/call add")

        STEP = "tools/call invalid"
        r = await client.call_tool("add", {"a": "twenty", "b": 22})
        check(r.is_error, f"no isError: {r}")
        print("ok tools/call invalid arguments: isError")

        STEP = "resources/read"
        r = await client.read_resource("reports://sales/2026-Q3")
        text = r.contents[0].text
        check("O1001" in text and "TOTAL" in text, text)
        print("ok resources/read")

        STEP = "prompts/get"
        r = await client.get_prompt("customer_brief", {"customer_id": "C001"})
        check("Ada Lovelace" in r.messages[0].content.text, f"{r}")
        print("ok prompts/get")

        # archive_orders asks for confirmation (input_required, answered by
        # on_elicit) and, once done, offers restore_orders: a tools
        # list_changed, which the listen stream must deliver.
        STEP = "subscriptions/listen"
        async with client.listen(tools_list_changed=True) as sub:
            check(sub.honored.tools_list_changed, f"honored {sub.honored}")
            print("ok subscriptions/listen acknowledged")

            STEP = "elicitation"
            r = await client.call_tool("archive_orders",
                                       {"older_than_days": 30})
            check(not r.is_error, f"isError: {r}")
            check(len(asked) == 1 and "30 days" in asked[0], f"asked {asked}")
            check(r.content[0].text.startswith("Archived 42 orders"), f"{r}")
            print("ok elicitation through input_required")

            STEP = "tools list_changed"
            with anyio.fail_after(30):
                event = await sub.__anext__()
            check(type(event).__name__ == "ToolsListChanged", f"{event}")
            print("ok listen stream: tools list_changed")

        STEP = "tools/list after the change"
        names, cursor = [], None
        for _ in range(20):
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            names += [t.name for t in page.tools]
            cursor = page.next_cursor
            if cursor is None:
                break
        check("restore_orders" in names, f"tools: {names}")
        print("ok tools/list shows restore_orders")


if __name__ == "__main__":
    try:
        anyio.run(main, sys.argv)
    except BaseException as e:  # noqa: BLE001 - report any failure
        while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
            e = e.exceptions[0]
        print(f"FAIL {STEP}: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)

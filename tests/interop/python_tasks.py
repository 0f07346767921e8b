# SPDX-License-Identifier: MIT
"""The Python MCP SDK (mcp 2.x) runs the demo's start_long_export as a task
(2026-07-28 tasks extension, SEP-2663) against a libmcp server.

The SDK has no built-in tasks client; its extension interface (SEP-2133
ClientExtension with a ResultClaim for resultType "task") is how a client
supports the extension, and this is that client: it declares
io.modelcontextprotocol/tasks, and resolves a CreateTaskResult by polling
tasks/get (with the Mcp-Name header the SDK sets) until the task is terminal.

usage: python_tasks.py URL
"""
import sys
from typing import Any, Literal

import anyio
from mcp.client import ClaimContext, Client, ClientExtension, ResultClaim
from mcp_types import CallToolResult, Request, Result
from pydantic import BaseModel, ConfigDict, Field

TASKS = "io.modelcontextprotocol/tasks"
seen: dict[str, Any] = {"statuses": []}


class CreateTaskResult(Result):
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str
    ttl_ms: int | None = Field(default=None, alias="ttlMs")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


class TaskIdParams(BaseModel):
    taskId: str


class GetTaskRequest(Request[TaskIdParams, Literal["tasks/get"]]):
    name_param = "taskId"  # Mcp-Name: the task id


class DetailedTask(Result):
    model_config = ConfigDict(extra="allow")
    task_id: str = Field(alias="taskId")
    status: str
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


async def resolve(created: CreateTaskResult, ctx: ClaimContext) -> CallToolResult:
    seen["task_id"] = created.task_id
    seen["statuses"].append(created.status)
    while True:
        task = await ctx.session.send_request(
            GetTaskRequest(method="tasks/get", params=TaskIdParams(taskId=created.task_id)),
            DetailedTask,
        )
        seen["statuses"].append(task.status)
        if task.status == "completed":
            return CallToolResult.model_validate(task.result)
        if task.status in ("failed", "cancelled"):
            raise RuntimeError(f"task {task.status}: {task.error}")
        await anyio.sleep((created.poll_interval_ms or 100) / 1000)


class TasksExtension(ClientExtension):
    identifier = TASKS

    def claims(self):
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=resolve)]


async def main(url: str) -> int:
    async with Client(url, extensions=[TasksExtension()]) as client:
        print("protocol", client.protocol_version)
        result = await client.call_tool("start_long_export", {"seconds": 0.5, "format": "json"})
    rows = (result.structured_content or {}).get("rows")
    print("task", seen.get("task_id"), "statuses", " ".join(seen["statuses"]))
    print("rows", rows)
    ok = seen.get("task_id") and seen["statuses"][-1] == "completed" and rows == 10000
    print("python-interop: ok" if ok else "python-interop: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1]))

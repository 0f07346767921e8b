# SPDX-License-Identifier: MIT
"""python_client.py - the Python MCP SDK (PyPI mcp 2.x) with the
OpenTelemetry SDK (PyPI opentelemetry-sdk) sees its trace continued by a
libmcp server (issue #26 item 5).

    python python_client.py DEMO_BIN RECEIVER_PY VENV [--server-tracing off]
(VENV: the venv the receiver runs in, with its --pins installed)

The driver sets a TracerProvider whose spans go to an in-memory exporter
and does nothing else for tracing: the SDK's own instrumentation makes a
CLIENT span per request and injects its W3C context into params._meta
(SEP-414). mcp-demo-server runs on 127.0.0.1 with OTLP/HTTP export to
tests/e2e/otlp_receiver.py, which checks each body against the proto3 JSON
mapping of OTLP and stores the decoded spans. The test passes when the
server's SERVER span "tools/call add" has the client span's trace id and
the client span as its parent. --server-tracing off starts the server
without the OTEL_* environment, to show the test fails without the
feature."""
import json
import os
import subprocess
import sys

import anyio
from mcp import Client
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter)

import peers

LABEL = "otel_python_client"


def server_spans(path):
    """The SERVER spans the receiver stored; fails on a body it refused."""
    spans = []
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return spans
    for line in lines:
        if not line.strip():
            continue
        rec = json.loads(line)
        if "error" in rec:
            peers.fail(LABEL, f"the receiver refused a body: {rec['error']}")
        if "span" in rec and rec["span"]["kind"] == 2:
            spans.append(rec)
    return spans


async def call_add(url):
    async with Client(url) as client:
        r = await client.call_tool("add", {"a": 20, "b": 22})
        if r.is_error or r.structured_content != {"sum": 42}:
            peers.fail(LABEL, f"tools/call add answered {r}")
        return client.protocol_version


def main(argv):
    if len(argv) not in (4, 6):
        sys.exit(__doc__)
    demo, receiver_py, venv = argv[1:4]
    tracing = argv[4:] != ["--server-tracing", "off"]
    work = peers.workdir(LABEL)
    stored = os.path.join(work, "received.jsonl")

    receiver = peers.spawn([sys.executable, receiver_py, stored,
                            "--venv", venv],
                           os.path.join(work, "receiver.log"),
                           stdout=subprocess.PIPE)
    first = receiver.stdout.readline().decode().split()
    if len(first) != 2 or first[0] != "PORT":
        peers.fail(LABEL, "the OTLP receiver did not start",
                   os.path.join(work, "receiver.log"))
    endpoint = f"http://127.0.0.1:{first[1]}"

    env = dict(os.environ)
    for k in list(env):
        if k.startswith("OTEL_"):
            del env[k]
    if tracing:
        env.update(OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
                   OTEL_BSP_SCHEDULE_DELAY="50",
                   OTEL_METRICS_EXPORTER="none",
                   OTEL_SERVICE_NAME="otel-python-peer")
    server_log = os.path.join(work, "server.log")
    server, port = peers.start_listening(
        LABEL, lambda p: [demo, "--http", f"127.0.0.1:{p}", "--db",
                          os.path.join(work, "demo.db"), "--store", "memory"],
        server_log, env)

    # The only tracing set-up: a provider; the SDK instruments itself.
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)

    version = anyio.run(call_add, f"http://127.0.0.1:{port}/mcp")
    client_spans = [s for s in exporter.get_finished_spans()
                    if s.kind == trace.SpanKind.CLIENT
                    and s.attributes.get("mcp.method.name") == "tools/call"]
    if len(client_spans) != 1:
        peers.fail(LABEL, "the Python SDK made no CLIENT span for tools/call "
                   f"(spans: {[s.name for s in exporter.get_finished_spans()]})")
    cs = client_spans[0]
    trace_id = format(cs.context.trace_id, "032x")
    span_id = format(cs.context.span_id, "016x")
    print(f"client span ({version}):", cs.to_json(indent=None))

    def continued():
        return [s for s in server_spans(stored)
                if s["span"]["traceId"] == trace_id]

    mine = peers.wait_for(continued, 15)
    if not mine:
        peers.fail(LABEL, f"no SERVER span of trace {trace_id} arrived "
                   f"(the receiver has {len(server_spans(stored))} SERVER "
                   "spans)", server_log)
    if len(mine) != 1:
        peers.fail(LABEL, f"{len(mine)} SERVER spans in trace {trace_id}")
    s = mine[0]
    print("server span:", json.dumps(s["span"]))
    span, attrs = s["span"], s["attributes"]
    checks = [
        (span["name"] == "tools/call add", f"name {span['name']!r}"),
        (span.get("parentSpanId") == span_id,
         f"parent {span.get('parentSpanId')} is not the client span {span_id}"),
        (attrs.get("gen_ai.tool.name") == "add", "gen_ai.tool.name"),
        (attrs.get("mcp.method.name") == "tools/call", "mcp.method.name"),
        (attrs.get("mcp.protocol.version") == version,
         f"mcp.protocol.version {attrs.get('mcp.protocol.version')} "
         f"(the client speaks {version})"),
        (s["resource"].get("service.name") == "otel-python-peer",
         "service.name"),
    ]
    for ok, what in checks:
        if not ok:
            peers.fail(LABEL, f"the SERVER span: {what}", server_log)
    peers.stop(server)
    peers.stop(receiver)
    peers.sanitizer_clean(LABEL, server_log)
    print(f"{LABEL}: ok: the server's \"tools/call add\" span continues the "
          f"Python SDK's \"{cs.name}\" span (trace {trace_id})")


if __name__ == "__main__":
    main(sys.argv)

# SPDX-License-Identifier: MIT
"""collector_test.py - a real OpenTelemetry Collector receives what a
libmcp server exports (issue #26 item 5).

    python3 collector_test.py OTELCOL_BIN DEMO_BIN MCPC_BIN
                              [--server-tracing off] [PROTOCOL ...]

OTELCOL_BIN is the Collector collector_build.sh built (the core's OTLP
receiver and debug exporter); it listens on 127.0.0.1 and its debug
exporter writes everything it accepted, in detail, to a file. For each
PROTOCOL (default http/json; an OTEL_EXPORTER_OTLP_PROTOCOL value),
mcp-demo-server exports traces and metrics to it while mcpc sends a
2026-07-28 tools/call add carrying a traceparent. The test passes when the
Collector's output holds the SERVER span "tools/call add" in that trace
with the caller's span as parent and the tool's attributes, and a
mcp.server.operation.duration histogram point for the tool with the
conventions' buckets. --server-tracing off starts the server without the
OTEL_* environment, to show the test fails without the feature. Exit 77
(skipped) when OTELCOL_BIN was not built because its build was skipped,
unless CI=true."""
import os
import re
import secrets
import subprocess
import sys

import peers

LABEL = "otel_collector"
BOUNDS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]


def parse_debug(text):
    """The spans and metric data points in the debug exporter's detailed
    output: spans as {field: value, "attributes": {...}} (fields as printed:
    "Trace ID", "Parent ID", "ID", "Name", "Kind", ...), data points as
    {"metric", "type", "attributes", "Count", "bounds"}."""
    spans, points = [], []
    record, metric, section = None, {}, None
    for line in text.splitlines():
        if re.match(r"^Span #\d+$", line):
            record, section = {"attributes": {}}, "span"
            spans.append(record)
        elif re.match(r"^Metric #\d+$", line):
            record, metric, section = None, {}, "metric"
        elif re.match(r"^(Histogram|Number)DataPoints #\d+$", line):
            record = {"metric": metric.get("Name"),
                      "type": metric.get("DataType"),
                      "attributes": {}, "bounds": []}
            points.append(record)
        elif re.match(r"^(Traces|Metrics|Resource|Scope)", line):
            record, section = None, None
        elif m := re.match(r"^     -> ([^:]+): (.*)$", line):
            key, value = m.groups()
            if s := re.match(r"^Str\((.*)\)$", value):
                value = s.group(1)
            if record is not None:
                record["attributes"][key] = value
            elif section == "metric":
                metric[key] = value  # the Descriptor
        elif record is not None and section == "span" and (
                m := re.match(r"^    (\S.*?)\s*: ?(.*)$", line)):
            record[m.group(1)] = m.group(2)
        elif record is not None and (
                m := re.match(r"^(Count|ExplicitBounds #\d+): (.*)$", line)):
            if m.group(1) == "Count":
                record["Count"] = int(m.group(2))
            else:
                record["bounds"].append(float(m.group(2)))
    return spans, points


def main(argv):
    args = argv[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    otelcol, demo, mcpc = args[:3]
    rest = args[3:]
    tracing = rest[:2] != ["--server-tracing", "off"]
    protocols = (rest[2:] if not tracing else rest) or ["http/json"]
    if not os.access(otelcol, os.X_OK):
        why = f"{otelcol} was not built (see the test otel_collector_build)"
        if os.environ.get("CI") == "true":
            peers.fail(LABEL, why)
        print(f"SKIP {LABEL}: {why}", file=sys.stderr)
        sys.exit(77)

    work = peers.workdir(LABEL)
    output = os.path.join(work, "collector-output.txt")
    collector_log = os.path.join(work, "collector.log")

    def collector_argv(port):
        config = os.path.join(work, "collector.yaml")
        with open(config, "w") as f:
            f.write(f"""receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:{port}
exporters:
  debug:
    verbosity: detailed
    use_internal_logger: false
    output_paths: [{output}]
service:
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [debug]
    metrics:
      receivers: [otlp]
      exporters: [debug]
""")
        return [otelcol, "--config", config]

    collector, cport = peers.start_listening(LABEL, collector_argv,
                                             collector_log, seconds=120)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    for protocol in protocols:
        server_env = dict(env)
        if tracing:
            server_env.update(
                OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{cport}",
                OTEL_EXPORTER_OTLP_PROTOCOL=protocol,
                OTEL_BSP_SCHEDULE_DELAY="50",
                OTEL_METRIC_EXPORT_INTERVAL="200",
                OTEL_SERVICE_NAME="otel-collector-peer")
        server_log = os.path.join(work, "server.log")
        server, port = peers.start_listening(
            LABEL, lambda p: [demo, "--http", f"127.0.0.1:{p}", "--db",
                              os.path.join(work, "demo.db"), "--store",
                              "memory"],
            server_log, server_env)
        trace_id, parent = secrets.token_hex(16), secrets.token_hex(8)
        call = subprocess.run(
            [mcpc, "-u", f"http://127.0.0.1:{port}/mcp", "request",
             "tools/call",
             '{"name":"add","arguments":{"a":20,"b":22},"_meta":{'
             f'"traceparent":"00-{trace_id}-{parent}-01"}}}}'],
            env=env, capture_output=True, text=True, timeout=60,
            preexec_fn=peers.die_with_driver)
        if call.returncode != 0 or '"sum": 42' not in call.stdout:
            peers.fail(LABEL, f"mcpc tools/call add: exit {call.returncode}: "
                       f"{call.stdout}{call.stderr}", server_log)

        def parsed():
            try:
                with open(output, errors="replace") as f:
                    return parse_debug(f.read())
            except FileNotFoundError:
                return [], []

        def span_arrived():
            return [s for s in parsed()[0] if s.get("Trace ID") == trace_id]

        def histogram_arrived():
            return [p for p in parsed()[1]
                    if p["metric"] == "mcp.server.operation.duration"
                    and p["attributes"].get("gen_ai.tool.name") == "add"]

        spans = peers.wait_for(span_arrived, 20)
        if not spans:
            peers.fail(LABEL, f"{protocol}: the Collector received no span "
                       f"of trace {trace_id}", server_log, collector_log)
        points = peers.wait_for(histogram_arrived, 20)
        peers.stop(server)
        peers.sanitizer_clean(LABEL, server_log)
        if len(spans) != 1:
            peers.fail(LABEL, f"{protocol}: {len(spans)} spans in the trace")
        s = spans[0]
        checks = [
            (s.get("Name") == "tools/call add", f"span name {s.get('Name')!r}"),
            (s.get("Kind") == "Server", f"span kind {s.get('Kind')!r}"),
            (s.get("Parent ID") == parent,
             f"parent {s.get('Parent ID')!r}, not the caller's {parent}"),
            (s["attributes"].get("mcp.method.name") == "tools/call",
             "mcp.method.name"),
            (s["attributes"].get("gen_ai.tool.name") == "add",
             "gen_ai.tool.name"),
            (s["attributes"].get("mcp.protocol.version") == "2026-07-28",
             "mcp.protocol.version"),
            (bool(points), "no mcp.server.operation.duration point for add"),
        ]
        if points:
            p = points[-1]
            checks += [
                (p["type"] == "Histogram", f"data type {p['type']}"),
                (p.get("Count", 0) >= 1, f"count {p.get('Count')}"),
                (p["bounds"] == BOUNDS, f"bounds {p['bounds']}"),
            ]
        for ok, what in checks:
            if not ok:
                peers.fail(LABEL, f"{protocol}: {what}", output)
        print(f"{LABEL}: {protocol}: the Collector holds the SERVER span "
              f"\"tools/call add\" (trace {trace_id}, parent {parent}) and "
              f"the histogram point ({p['Count']} calls)")
    peers.stop(collector)
    print(f"{LABEL}: ok")


if __name__ == "__main__":
    main(sys.argv)

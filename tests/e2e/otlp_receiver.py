#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""otlp_receiver.py - an OTLP/HTTP receiver for the OpenTelemetry tests
(issue #26) that decodes what libmcp sends with the official OTLP
definitions: the protobuf classes of PyPI's opentelemetry-proto (pinned
below), installed into a venv on first use (no pip cache: CI starts with
empty caches).

usage: otlp_receiver.py OUT --venv DIR
       otlp_receiver.py --check-pb HEXFILE --venv DIR   (see below)
       otlp_receiver.py --pins    (the packages its venv needs, for a
                                   test that makes that venv itself)

Listens on 127.0.0.1 (port 0: a free one, printed on stdout as "PORT N"),
accepts POST /v1/traces and /v1/metrics:
  * application/x-protobuf: ExportTraceServiceRequest.FromString (or the
    metrics one), and the bytes must be what the official encoder writes
    for the decoded message (deterministic SerializeToString): no unknown
    field, nothing non-canonical;
  * application/json: google.protobuf.json_format.Parse into the same
    message type, unknown fields refused, after the one rewrite OTLP/JSON
    makes to the proto3 JSON mapping (trace and span ids are hex, not
    base64: they are turned into base64 first, and must be 32 or 16 hex
    digits).
Then it checks what the definitions cannot (ids of 16 and 8 bytes, not
zero, the spans' and their links' alike; end not before start; histogram bucket counts one more than the
bounds and summing to the count) and appends what it decoded as JSON lines
to OUT (json_format.MessageToDict with enums as numbers and ids in hex):
per span {"encoding": "protobuf"|"json", "resource": {attrs}, "scope":
name, "span": span, "attributes": {key: value}}, per metric data point
{"encoding", "metric": name, "kind": "histogram"|"sum"|"gauge",
"resource": {attrs}, "point": point, "attributes": {key: value}}, each
with "headers": the request's X-* headers ({lowercased name: value}, from
OTEL_EXPORTER_OTLP_HEADERS). A body that fails is answered 400 and logged
as {"error": why}.

--check-pb decodes one ExportTraceServiceRequest given in hex in HEXFILE
(the unit test of the encoder's wire format) and prints it as JSON
(MessageToDict, ids in hex) on stdout; exit 1 with the reason otherwise.

Exit 77 (skipped, with a message) when python3 -m venv or PyPI is not
available, unless CI=true (then 1)."""
import argparse
import base64
import json
import os
import re
import subprocess
import sys

PINS = ["opentelemetry-proto==1.45.2", "protobuf==7.36.2"]


def skip(why):
    if os.environ.get("CI") == "true":
        print(f"otlp_receiver: {why} (required when CI=true)",
              file=sys.stderr)
        sys.exit(1)
    print(f"SKIP otlp_receiver: {why}", file=sys.stderr)
    sys.exit(77)


def ensure_venv(venv):
    """The venv's python with the pinned packages importable; made on first
    use."""
    py = os.path.join(venv, "bin", "python")
    probe = [py, "-c",
             "import importlib.metadata as m, sys; "
             "sys.exit(m.version('opentelemetry-proto') != '%s')"
             % PINS[0].split("==")[1]]
    if os.path.exists(py) and subprocess.run(
            probe, stderr=subprocess.DEVNULL).returncode == 0:
        return py
    if subprocess.run([sys.executable, "-m", "venv", "--clear", venv],
                      stdout=subprocess.DEVNULL).returncode != 0:
        skip("python3 -m venv failed (python3-venv missing?)")
    pip = subprocess.run([py, "-m", "pip", "install", "-q", "--no-cache-dir",
                          "--disable-pip-version-check"] + PINS,
                         capture_output=True, text=True)
    if pip.returncode != 0:
        skip("pip install %s failed (offline?): %s"
             % (" ".join(PINS), pip.stderr[-300:]))
    if subprocess.run(probe).returncode != 0:
        print("otlp_receiver: opentelemetry-proto installed but not "
              "importable", file=sys.stderr)
        sys.exit(1)
    return py


# ---- inside the venv ---------------------------------------------------------

ID_FIELDS = {"traceId": 32, "spanId": 16, "parentSpanId": 16}
HEX = re.compile(r"^[0-9a-f]*$")


def ids_hex_to_base64(node):
    """OTLP/JSON's hex ids, as the proto3 JSON mapping's base64 (in place);
    an id that is not lowercase hex of the right length is refused."""
    if isinstance(node, list):
        for x in node:
            ids_hex_to_base64(x)
    elif isinstance(node, dict):
        for k, v in node.items():
            if k in ID_FIELDS and isinstance(v, str):
                if len(v) != ID_FIELDS[k] or not HEX.match(v):
                    raise ValueError(f"{k} is not {ID_FIELDS[k]} lowercase "
                                     f"hex digits: {v!r}")
                node[k] = base64.b64encode(bytes.fromhex(v)).decode()
            else:
                ids_hex_to_base64(v)


def ids_base64_to_hex(node):
    """MessageToDict's base64 ids back to hex (in place)."""
    if isinstance(node, list):
        for x in node:
            ids_base64_to_hex(x)
    elif isinstance(node, dict):
        for k, v in node.items():
            if k in ID_FIELDS and isinstance(v, str):
                raw = base64.b64decode(v)
                if len(raw) * 2 != ID_FIELDS[k] or not any(raw):
                    raise ValueError(f"{k}: {len(raw)} bytes or all zero")
                node[k] = raw.hex()
            else:
                ids_base64_to_hex(v)


def decode_attributes(kvs):
    out = {}
    for kv in kvs:
        (kind, v), = kv["value"].items()
        if kind == "intValue":
            v = int(v)
        if kv["key"] in out:
            raise ValueError(f"attribute {kv['key']} twice")
        out[kv["key"]] = v
    return out


def parse(body, content_type, message_type):
    """The request as a dict (MessageToDict, ids in hex)."""
    from google.protobuf import json_format
    if content_type == "application/x-protobuf":
        msg = message_type.FromString(body)
        again = msg.SerializeToString(deterministic=True)
        if again != body:
            at = next((i for i, (x, y) in enumerate(zip(body, again))
                       if x != y), min(len(body), len(again)))
            raise ValueError("protobuf body is not what the official encoder "
                             f"writes for it ({len(body)} bytes, "
                             f"{len(again)} expected): from byte {at} got "
                             f"{body[at:at + 24].hex()} expected "
                             f"{again[at:at + 24].hex()}")
    elif content_type == "application/json":
        doc = json.loads(body)
        ids_hex_to_base64(doc)
        msg = json_format.Parse(json.dumps(doc), message_type())
    else:
        raise ValueError(f"Content-Type {content_type}")
    d = json_format.MessageToDict(msg, use_integers_for_enums=True)
    ids_base64_to_hex(d)
    return d


def decode_traces(req):
    spans = []
    for rs in req.get("resourceSpans", []):
        resource = decode_attributes(rs["resource"].get("attributes", []))
        for ss in rs.get("scopeSpans", []):
            scope = ss["scope"]["name"]
            for sp in ss.get("spans", []):
                for k in ("traceId", "spanId"):
                    if k not in sp:
                        raise ValueError(f"no {k}")
                if int(sp["endTimeUnixNano"]) < int(sp["startTimeUnixNano"]):
                    raise ValueError("end before start")
                spans.append({"resource": resource, "scope": scope,
                              "span": sp,
                              "attributes": decode_attributes(
                                  sp.get("attributes", []))})
    return spans


def decode_metrics(req):
    points = []
    for rm in req.get("resourceMetrics", []):
        resource = decode_attributes(rm["resource"].get("attributes", []))
        for sm in rm.get("scopeMetrics", []):
            for m in sm.get("metrics", []):
                kinds = set(m) & {"gauge", "sum", "histogram"}
                if len(kinds) != 1:
                    raise ValueError(f"metric fields {sorted(m)}")
                kind = kinds.pop()
                data = m[kind]
                if kind != "gauge" and data.get(
                        "aggregationTemporality") not in (1, 2):
                    raise ValueError("aggregationTemporality")
                for dp in data.get("dataPoints", []):
                    if kind == "histogram":
                        counts = [int(c) for c in dp["bucketCounts"]]
                        if len(counts) != len(dp["explicitBounds"]) + 1:
                            raise ValueError("bucketCounts vs explicitBounds")
                        if sum(counts) != int(dp["count"]):
                            raise ValueError("bucketCounts do not sum to "
                                             "count")
                    points.append({"metric": m["name"], "kind": kind,
                                   "resource": resource, "point": dp,
                                   "attributes": decode_attributes(
                                       dp.get("attributes", []))})
    return points


def serve(out):
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
    from google.protobuf.message import DecodeError
    from google.protobuf.json_format import ParseError

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(n)
            ctype = self.headers.get("Content-Type")
            encoding = "protobuf" if ctype == "application/x-protobuf" \
                else "json"
            try:
                if self.path == "/v1/traces":
                    req = parse(body, ctype,
                                trace_service_pb2.ExportTraceServiceRequest)
                    rows = decode_traces(req)
                elif self.path == "/v1/metrics":
                    req = parse(
                        body, ctype,
                        metrics_service_pb2.ExportMetricsServiceRequest)
                    rows = decode_metrics(req)
                else:
                    raise ValueError(f"path {self.path}")
                extra = {k.lower(): v for k, v in self.headers.items()
                         if k.lower().startswith("x-")}
                lines = [json.dumps(dict(r, encoding=encoding, headers=extra))
                         for r in rows]
                status = 200
            except (ValueError, KeyError, TypeError, DecodeError,
                    ParseError) as e:
                lines = [json.dumps({"error": f"{encoding}: {e}"})]
                status = 400
            with open(out, "a") as f:
                for line in lines:
                    f.write(line + "\n")
            self.send_response(status)
            self.send_header("Content-Type", ctype or "application/json")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    print("PORT", server.server_address[1], flush=True)
    server.serve_forever()


def check_pb(hexfile):
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
    body = bytes.fromhex(open(hexfile).read().strip())
    try:
        req = parse(body, "application/x-protobuf",
                    trace_service_pb2.ExportTraceServiceRequest)
    except Exception as e:  # any failure is the answer
        print(f"otlp_receiver --check-pb: {e}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(req))


def main():
    if sys.argv[1:] == ["--pins"]:
        print(" ".join(PINS))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?")
    ap.add_argument("--venv", required=True)
    ap.add_argument("--check-pb")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.inside:
        if a.check_pb:
            check_pb(a.check_pb)
        else:
            serve(a.out)
        return
    py = ensure_venv(a.venv)
    cmd = [py, os.path.abspath(__file__), "--inside", "--venv", a.venv]
    cmd += ["--check-pb", a.check_pb] if a.check_pb else [a.out]
    os.execv(py, cmd)


if __name__ == "__main__":
    main()

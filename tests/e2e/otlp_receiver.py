#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""otlp_receiver.py - a minimal OTLP/HTTP JSON receiver for the
OpenTelemetry tests (issue #26 item 4): listens on 127.0.0.1 (port 0: a
free one, printed on stdout as "PORT N"), accepts POST /v1/traces and
/v1/metrics with Content-Type application/json, checks each body against
the proto3 JSON mapping of ExportTraceServiceRequest or
ExportMetricsServiceRequest (field names, hex ids of the right length,
64-bit integers as decimal strings, enum numbers, typed attribute values,
histogram bucket counts one more than the bounds, links' ids), and appends what it
decoded as JSON lines to the file named by argv[1]: per span {"resource":
{attrs}, "scope": name, "span": span, "attributes": {key: value}}, per
metric data point {"metric": name, "kind": "histogram"|"sum", "resource":
{attrs}, "point": point, "attributes": {key: value}}. A malformed body is
answered 400 and logged as {"error": why} in the same file."""
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

OUT = sys.argv[1]
HEX = re.compile(r"^[0-9a-f]+$")
SPAN_FIELDS = {"traceId", "spanId", "parentSpanId", "traceState", "name",
               "kind", "startTimeUnixNano", "endTimeUnixNano", "attributes",
               "droppedAttributesCount", "events", "droppedEventsCount",
               "links", "droppedLinksCount", "status", "flags"}
VALUE_KINDS = {"stringValue", "boolValue", "intValue", "doubleValue",
               "arrayValue", "kvlistValue", "bytesValue"}


def check_hex(v, n, what):
    if not isinstance(v, str) or len(v) != n or not HEX.match(v):
        raise ValueError(f"{what} is not {n} lowercase hex digits: {v!r}")
    if set(v) == {"0"}:
        raise ValueError(f"{what} is all zero")


def decode_attributes(kvs, what):
    out = {}
    for kv in kvs:
        if set(kv) != {"key", "value"} or len(kv["value"]) != 1:
            raise ValueError(f"{what}: malformed KeyValue {kv!r}")
        (kind, v), = kv["value"].items()
        if kind not in VALUE_KINDS:
            raise ValueError(f"{what}: unknown AnyValue field {kind}")
        if kind == "intValue":
            if not isinstance(v, str) or not re.match(r"^-?\d+$", v):
                raise ValueError(f"{what}: intValue not a decimal string")
            v = int(v)
        if kv["key"] in out:
            raise ValueError(f"{what}: attribute {kv['key']} twice")
        out[kv["key"]] = v
    return out


def decode(body):
    req = json.loads(body)
    spans = []
    if set(req) != {"resourceSpans"}:
        raise ValueError(f"top-level fields {sorted(req)}")
    for rs in req["resourceSpans"]:
        resource = decode_attributes(rs["resource"]["attributes"], "resource")
        for ss in rs["scopeSpans"]:
            scope = ss["scope"]["name"]
            for sp in ss["spans"]:
                extra = set(sp) - SPAN_FIELDS
                if extra:
                    raise ValueError(f"unknown Span fields {sorted(extra)}")
                check_hex(sp["traceId"], 32, "traceId")
                check_hex(sp["spanId"], 16, "spanId")
                if "parentSpanId" in sp:
                    check_hex(sp["parentSpanId"], 16, "parentSpanId")
                if not isinstance(sp["kind"], int) or not 0 <= sp["kind"] <= 5:
                    raise ValueError(f"kind {sp['kind']!r}")
                start = int(sp["startTimeUnixNano"])
                end = int(sp["endTimeUnixNano"])
                if not isinstance(sp["startTimeUnixNano"], str) or end < start:
                    raise ValueError("times")
                if "status" in sp and set(sp["status"]) - {"code", "message"}:
                    raise ValueError("status fields")
                for link in sp.get("links", []):
                    if set(link) - {"traceId", "spanId", "traceState",
                                    "attributes", "droppedAttributesCount",
                                    "flags"}:
                        raise ValueError(f"Link fields {sorted(link)}")
                    check_hex(link["traceId"], 32, "link traceId")
                    check_hex(link["spanId"], 16, "link spanId")
                spans.append({"resource": resource, "scope": scope,
                              "span": sp,
                              "attributes": decode_attributes(
                                  sp.get("attributes", []), "span")})
    return spans


U64 = re.compile(r"^\d+$")


def check_times(dp):
    for k in ("startTimeUnixNano", "timeUnixNano"):
        if not isinstance(dp.get(k), str) or not U64.match(dp[k]):
            raise ValueError(f"{k} not a decimal string")


def decode_metrics(body):
    req = json.loads(body)
    points = []
    if set(req) != {"resourceMetrics"}:
        raise ValueError(f"top-level fields {sorted(req)}")
    for rm in req["resourceMetrics"]:
        resource = decode_attributes(rm["resource"]["attributes"], "resource")
        for sm in rm["scopeMetrics"]:
            for m in sm["metrics"]:
                kinds = set(m) & {"gauge", "sum", "histogram",
                                  "exponentialHistogram", "summary"}
                if len(kinds) != 1 or set(m) - kinds - {
                        "name", "description", "unit", "metadata"}:
                    raise ValueError(f"metric fields {sorted(m)}")
                kind = kinds.pop()
                data = m[kind]
                if data.get("aggregationTemporality") not in (1, 2):
                    raise ValueError("aggregationTemporality")
                for dp in data["dataPoints"]:
                    check_times(dp)
                    if kind == "histogram":
                        bounds = dp["explicitBounds"]
                        counts = dp["bucketCounts"]
                        if len(counts) != len(bounds) + 1:
                            raise ValueError("bucketCounts vs explicitBounds")
                        if not all(isinstance(c, str) and U64.match(c)
                                   for c in counts + [dp["count"]]):
                            raise ValueError("counts not decimal strings")
                        if sum(int(c) for c in counts) != int(dp["count"]):
                            raise ValueError("bucketCounts do not sum to count")
                        if not all(isinstance(b, (int, float)) for b in bounds):
                            raise ValueError("explicitBounds not numbers")
                    elif kind == "sum":
                        if not isinstance(dp.get("asInt"), str):
                            raise ValueError("asInt not a string")
                    points.append({"metric": m["name"], "kind": kind,
                                   "resource": resource, "point": dp,
                                   "attributes": decode_attributes(
                                       dp.get("attributes", []), "point")})
    return points


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            if self.headers.get("Content-Type") != "application/json":
                raise ValueError("Content-Type")
            if self.path == "/v1/traces":
                lines = [json.dumps(s) for s in decode(body)]
            elif self.path == "/v1/metrics":
                lines = [json.dumps(p) for p in decode_metrics(body)]
            else:
                raise ValueError(f"path {self.path}")
            status = 200
        except (ValueError, KeyError, TypeError) as e:
            lines = [json.dumps({"error": str(e)})]
            status = 400
        with open(OUT, "a") as f:
            for line in lines:
                f.write(line + "\n")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", 0), Handler)
print("PORT", server.server_address[1], flush=True)
server.serve_forever()

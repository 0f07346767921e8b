#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""otlp_receiver.py - a minimal OTLP/HTTP JSON trace receiver for the
OpenTelemetry tests (issue #26 item 4): listens on 127.0.0.1 (port 0: a
free one, printed on stdout as "PORT N"), accepts POST /v1/traces with
Content-Type application/json, checks each body against the proto3 JSON
mapping of ExportTraceServiceRequest (field names, hex ids of the right
length, decimal-string times, enum numbers, typed attribute values), and
appends every span it decoded as one JSON line to the file named by
argv[1]: {"resource": {attrs}, "scope": name, "span": span, "attributes":
{key: value}}. A malformed body is answered 400 and logged as
{"error": why} in the same file."""
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
                spans.append({"resource": resource, "scope": scope,
                              "span": sp,
                              "attributes": decode_attributes(
                                  sp.get("attributes", []), "span")})
    return spans


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            if self.path != "/v1/traces":
                raise ValueError(f"path {self.path}")
            if self.headers.get("Content-Type") != "application/json":
                raise ValueError("Content-Type")
            lines = [json.dumps(s) for s in decode(body)]
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

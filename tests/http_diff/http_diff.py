#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""http_diff.py - differential test of the own HTTP engine's framing.

A corpus of odd requests is generated from a grammar of variations (request
lines, header sets, framing headers, chunked and plain bodies, each request
followed by a second one on the same connection). Each request goes to

  * the engine's parser, through http_frame_probe (tests/http_diff), and
  * h11 (PyPI, pinned below), an independent HTTP/1.1 implementation,

and the two must agree on accepting or refusing it and, when both accept, on
where it ends and what its body is. Where they differ the difference must be
one listed in EXCEPTIONS, each a place where RFC 9112/9110 lets a recipient
choose, except two where h11 departs from the chunk-extension grammar of RFC
9112 7.1.1 (it skips whatever follows ';', and refuses whitespace before
it) and the engine follows it; any other difference fails the test.

usage: http_diff.py --probe PATH --venv DIR [--show]
Exit 77 (skipped, with a message) without python3 -m venv or when PyPI is
unreachable, unless CI=true.
"""
import argparse
import os
import subprocess
import sys

H11 = "h11==0.16.0"


def skip(why):
    if os.environ.get("CI") == "true":
        print(f"http_diff: {why} (required when CI=true)", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP http_diff: {why}", file=sys.stderr)
    sys.exit(77)


def ensure_venv(venv):
    """The venv's python with h11 importable; creates it on first use."""
    py = os.path.join(venv, "bin", "python")
    probe = [py, "-c", "import h11, sys; sys.exit(h11.__version__ != '%s')"
             % H11.split("==")[1]]
    if os.path.exists(py) and subprocess.run(probe).returncode == 0:
        return py
    if subprocess.run([sys.executable, "-m", "venv", "--clear", venv],
                      stdout=subprocess.DEVNULL).returncode != 0:
        skip("python3 -m venv failed (python3-venv missing?)")
    pip = subprocess.run([py, "-m", "pip", "install", "-q", "--no-cache-dir",
                          "--disable-pip-version-check", H11],
                         capture_output=True, text=True)
    if pip.returncode != 0:
        skip("pip install %s failed (offline?): %s" % (H11, pip.stderr[-300:]))
    if subprocess.run(probe).returncode != 0:
        print("http_diff: h11 installed but not importable", file=sys.stderr)
        sys.exit(1)
    return py


# ---- the corpus --------------------------------------------------------------

NEXT = b"GET /next HTTP/1.1\r\nHost: a\r\n\r\n"
BODY = b'{"a":1}'

# (name, version, framing header lines, body bytes): every combination of
# these is one request.
FRAMINGS = [
    ("none", []),
    ("cl", [b"Content-Length: %d"]),
    ("cl-short", [b"Content-Length: 3"]),
    ("cl-long", [b"Content-Length: 500"]),
    ("cl-lower", [b"content-length: %d"]),
    ("cl-upper", [b"CONTENT-LENGTH: %d"]),
    ("cl-leading-zeros", [b"Content-Length: 000%d"]),
    ("cl-ows", [b"Content-Length:   %d  "]),
    ("cl-tab", [b"Content-Length:\t%d"]),
    ("cl-no-space", [b"Content-Length:%d"]),
    ("cl-space-before-colon", [b"Content-Length : %d"]),
    ("cl-and-others", [b"X-A: 1", b"Content-Length: %d", b"X-B: 2"]),
    ("cl-zero", [b"Content-Length: 0"]),
    ("cl-twice-same", [b"Content-Length: %d", b"Content-Length: %d"]),
    ("cl-twice-differ", [b"Content-Length: %d", b"Content-Length: 2"]),
    ("cl-list-same", [b"Content-Length: %d, %d"]),
    ("cl-plus", [b"Content-Length: +%d"]),
    ("cl-hex", [b"Content-Length: 0x10"]),
    ("cl-negative", [b"Content-Length: -1"]),
    ("cl-empty", [b"Content-Length: "]),
    ("cl-space-inside", [b"Content-Length: 1 0"]),
    ("te", [b"Transfer-Encoding: chunked"]),
    ("te-case", [b"Transfer-Encoding: ChUnKeD"]),
    ("te-ows", [b"Transfer-Encoding:   chunked  "]),
    ("te-gzip", [b"Transfer-Encoding: gzip"]),
    ("te-gzip-chunked", [b"Transfer-Encoding: gzip, chunked"]),
    ("te-chunked-gzip", [b"Transfer-Encoding: chunked, gzip"]),
    ("te-twice", [b"Transfer-Encoding: chunked", b"Transfer-Encoding: chunked"]),
    ("te-identity", [b"Transfer-Encoding: identity"]),
    ("te-chunked-param", [b"Transfer-Encoding: chunked;q=1"]),
    ("te-cl", [b"Transfer-Encoding: chunked", b"Content-Length: %d"]),
    ("cl-te", [b"Content-Length: %d", b"Transfer-Encoding: chunked"]),
    ("te-cl0", [b"Transfer-Encoding: chunked", b"Content-Length: 0"]),
]

CHUNKED_BODIES = [
    ("simple", b"7\r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("split", b"3\r\n" + BODY[:3] + b"\r\n4\r\n" + BODY[3:] + b"\r\n0\r\n\r\n"),
    ("zeros", b"007\r\n" + BODY + b"\r\n000\r\n\r\n"),
    ("upper-hex", b"7\r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("ext", b"7;a=b\r\n" + BODY + b"\r\n0;c\r\n\r\n"),
    ("ext-quoted", b'7;a="x y"\r\n' + BODY + b"\r\n0\r\n\r\n"),
    ("trailing-ws", b"7 \r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("trailer", b"7\r\n" + BODY + b"\r\n0\r\nX-T: 1\r\n\r\n"),
    ("trailers", b"7\r\n" + BODY + b"\r\n0\r\nX-T: 1\r\nY-T:\r\n\r\n"),
    ("one-byte-chunks", b"".join(b"1\r\n" + BODY[i:i + 1] + b"\r\n"
                                 for i in range(len(BODY))) + b"0\r\n\r\n"),
    ("ext-many", b"7;a;b=c;d=\"e\"\r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("ext-bws", b"7 ; a = b\r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("ext-escape", b'7;a="x\\"y"\r\n' + BODY + b"\r\n0\r\n\r\n"),
    ("hex-lower", b"a\r\n" + BODY + b"xyz\r\n0\r\n\r\n"),
    ("hex-upper", b"A\r\n" + BODY + b"xyz\r\n0\r\n\r\n"),
    ("ext-bare-cr", b"7;a\rX\r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("size-junk", b"7 junk\r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("size-letters", b"7x\r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("size-missing", b"\r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("size-negative", b"-7\r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("size-0x", b"0x7\r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("lf-lines", b"7\n" + BODY + b"\n0\n\n"),
    ("data-no-crlf", b"7\r\n" + BODY + b"0\r\n\r\n"),
    ("data-lf", b"7\r\n" + BODY + b"\n0\r\n\r\n"),
    ("data-too-long", b"5\r\n" + BODY + b"\r\n0\r\n\r\n"),
    ("no-last-chunk", b"7\r\n" + BODY + b"\r\n"),
    ("trailer-bad", b"7\r\n" + BODY + b"\r\n0\r\nno colon\r\n\r\n"),
]

HEAD_CASES = [
    # (name, head bytes before the framing lines; %s marks where they go)
    ("plain", b"POST /mcp HTTP/1.1\r\nHost: a\r\n%s\r\n"),
    ("http10", b"POST /mcp HTTP/1.0\r\nHost: a\r\n%s\r\n"),
]

# Heads on their own (no body framing varied): request line and field
# syntax, each byte class in each part.
ODD_HEADS = [
    b"GET /mcp HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET /mcp HTTP/1.1\nHost: a\n\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\n\r\n",
    b"\r\nGET /mcp HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET /mcp HTTP/1.0\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost:\r\n\r\n",
    b"GET /mcp HTTP/2.0\r\nHost: a\r\n\r\n",
    b"GET /mcp HTTP/1.2\r\nHost: a\r\n\r\n",
    b"GET /mcp HTTP/1.10\r\nHost: a\r\n\r\n",
    b"GET /mcp http/1.1\r\nHost: a\r\n\r\n",
    b"GET /mcp HTTP/1\r\nHost: a\r\n\r\n",
    b"GET /mcp\r\nHost: a\r\n\r\n",
    b"GET  /mcp HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET /mcp  HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET /mcp HTTP/1.1 \r\nHost: a\r\n\r\n",
    b" GET /mcp HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET mcp HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET * HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET http://a/mcp HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET http://a HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET http://a/mcp HTTP/1.0\r\n\r\n",
    b"GET http://u@a/mcp HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET /m%00cp HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET /m%41cp?q=%00 HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nX : v\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\n: v\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nX: v\r\n folded\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nX: v\r\n\tfolded\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\n Host: a\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nX:\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nX:   spaced   \r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nX: a\r\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nX: \xc3\xa9\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nX\xc3\xa9: v\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    b"GET /mcp HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n",
]

# one byte put inside each part of a head
PARTS = [b"GET", b"/mcp", b"HTTP/1.1", b"X-Name", b"value"]
ODD_BYTES = [b"\x00", b"\t", b"\x7f", b"\r", b"\n", b"\x01", b"\x0b", b" ",
             b"\x80"]


def with_byte(part, byte):
    p = list(PARTS)
    p[part] = p[part][:1] + byte + p[part][1:]
    return (p[0] + b" " + p[1] + b" " + p[2] + b"\r\nHost: a\r\n" + p[3] +
            b": " + p[4] + b"\r\n\r\n")


def corpus():
    rows = []
    for hname, head in HEAD_CASES:
        for fname, lines in FRAMINGS:
            chunked = fname.startswith("te") or "-te" in fname
            bodies = CHUNKED_BODIES if chunked else [("plain", BODY)]
            for bname, body in bodies:
                n = len(body)
                fl = b"".join((ln % ((n,) * ln.count(b"%d")) if b"%d" in ln
                               else ln) + b"\r\n" for ln in lines)
                rows.append(("%s/%s/%s" % (hname, fname, bname),
                             head % fl + body))
    for i, h in enumerate(ODD_HEADS):
        rows.append(("head/%d" % i, h))
    for part in range(len(PARTS)):
        for byte in ODD_BYTES:
            rows.append(("byte/%s/%r" % (PARTS[part].decode(), byte),
                         with_byte(part, byte)))
    # every request is followed by another on the same connection
    return [(name, req + NEXT) for name, req in rows]


# ---- where the two may differ ------------------------------------------------

def head_of(req):
    end = req.find(b"\r\n\r\n")
    return req if end < 0 else req[:end]


def te_with_cl(name):
    f = name.split("/")[1]
    return f in ("te-cl", "cl-te", "te-cl0")


EXCEPTIONS = [
    # (reason, predicate(name, request) -> bool, engine's, h11's verdict)
    ("RFC 9112 6.1: a request with Content-Length and Transfer-Encoding MAY "
     "be rejected or read by Transfer-Encoding alone (then the connection "
     "MUST close); the engine rejects it (400, close: issue #25 N1), h11 "
     "reads it as chunked",
     lambda n, r: te_with_cl(n), "refuse", "ok"),
    ("RFC 9112 6.1: Transfer-Encoding in HTTP/1.0 means faulty framing; "
     "the engine refuses it (400, close: issue #25 N1), h11 reads it as "
     "chunked",
     lambda n, r: n.startswith("http10/te"), "refuse", "ok"),
    ("RFC 9112 5.2: a server MAY reject obs-fold (400) instead of unfolding "
     "it; the engine rejects, h11 unfolds",
     lambda n, r: b"\r\n " in head_of(r)[1:] or b"\r\n\t" in head_of(r),
     "refuse", "ok"),
    ("RFC 9110 8.6: a Content-Length list of equal values MAY be taken as "
     "one value or rejected; the engine rejects, h11 takes it",
     lambda n, r: "/cl-list-same/" in n, "refuse", "ok"),
    ("RFC 9110 5.5: control characters in a field value are invalid but MAY "
     "be kept; the engine keeps them for the request layer to answer, h11 "
     "refuses the ones it counts as whitespace",
     lambda n, r: n.startswith("byte/value/") and
     n.split("/")[2] in ("b'\\x0b'",), "ok", "refuse"),
    ("RFC 9112 2.2: a server SHOULD ignore empty lines before the "
     "request-line; the engine does, h11 refuses them",
     lambda n, r: r.startswith(b"\r\n"), "ok", "refuse"),
    ("RFC 9110 4.2.4: a recipient SHOULD treat userinfo in an http URI as an "
     "error; the engine does, h11 does not look into the target",
     lambda n, r: b"//u@" in r, "refuse", "ok"),
    ("RFC 9112 3.2: the request-target is origin-form, absolute-form or '*' "
     "(a server SHOULD answer 400 otherwise); h11 accepts any visible "
     "ASCII there. The engine also refuses a path that decodes to NUL",
     lambda n, r: r.startswith(b"GET mcp ") or b"%00cp" in r,
     "refuse", "ok"),
    ("RFC 9110 6.2: a server MAY refuse (505) a major version it does not "
     "implement; h11 leaves versions to the application",
     lambda n, r: r.startswith(b"GET /mcp HTTP/2.0"), "refuse", "ok"),
    ("RFC 9112 7.1.1: chunk-ext = *( BWS \";\" BWS name [ BWS \"=\" BWS "
     "value ] ); the engine applies the grammar (issue #25 N2: a CR only "
     "before LF), h11 skips whatever follows ';' (its chunk_ext is ';.*')",
     lambda n, r: n.endswith("/ext-bare-cr"), "refuse", "ok"),
    ("RFC 9112 7.1.1: whitespace (BWS) may precede an extension's ';'; the "
     "engine accepts it, h11's chunk header pattern does not",
     lambda n, r: n.endswith("/ext-bws"), "ok", "refuse"),
]


def verdict_h11(h11, data):
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(data)
    body = b""
    try:
        while True:
            ev = conn.next_event()
            if ev is h11.NEED_DATA:
                return ("incomplete",)
            if isinstance(ev, h11.Data):
                body += bytes(ev.data)
            elif isinstance(ev, h11.EndOfMessage):
                rest, _ = conn.trailing_data
                return ("ok", len(data) - len(rest), body)
    except h11.RemoteProtocolError as e:
        return ("refuse", e.error_status_hint, str(e))


def verdict_probe(line):
    f = line.split(" ")
    if f[0] == "ok":
        return ("ok", int(f[1]), bytes.fromhex(f[2]) if len(f) > 2 else b"")
    if f[0] == "refuse":
        return ("refuse", int(f[1]), "")
    return ("incomplete",)


def run(probe, show):
    import h11
    rows = corpus()
    out = subprocess.run([probe], input="".join(r.hex() + "\n"
                                                 for _, r in rows),
                         capture_output=True, text=True, check=True).stdout
    ours = [verdict_probe(ln) for ln in out.splitlines()]
    assert len(ours) == len(rows), "probe answered %d of %d" % (len(ours),
                                                               len(rows))
    agree, excused, failures = 0, {}, []
    counts = {"ok": 0, "refuse": 0, "incomplete": 0}
    for (name, req), mine in zip(rows, ours):
        theirs = verdict_h11(h11, req)
        counts[mine[0]] += 1
        same = mine[0] == theirs[0] and (mine[0] != "ok" or
                                         mine[1:] == theirs[1:])
        if show:
            print("%-40s ours=%-10s h11=%s" % (name, mine[:2], theirs[:2]))
        if same:
            agree += 1
            continue
        for reason, pred, o, t in EXCEPTIONS:
            if pred(name, req) and mine[0] == o and theirs[0] == t:
                excused.setdefault(reason, []).append(name)
                break
        else:
            failures.append((name, req, mine, theirs))
    print("http_diff: %d requests (engine: %d accepted, %d refused, %d "
          "incomplete); %d agree with %s, %d differ as documented, %d "
          "differ otherwise" % (len(rows), counts["ok"], counts["refuse"],
                                counts["incomplete"], agree, H11,
                                sum(len(v) for v in excused.values()),
                                len(failures)))
    for reason, names in excused.items():
        print("  documented (%d): %s\n    %s" % (len(names), reason,
                                                 ", ".join(names)))
    for name, req, mine, theirs in failures:
        print("DIFFER %s: %r\n  engine: %r\n  h11:    %r" % (name, req, mine,
                                                             theirs))
    if len(rows) < 200:
        print("http_diff: the corpus has fewer than 200 requests")
        return 1
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True)
    ap.add_argument("--venv", required=True)
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.inside:
        sys.exit(run(a.probe, a.show))
    py = ensure_venv(a.venv)
    cmd = [py, os.path.abspath(__file__), "--inside", "--probe", a.probe,
           "--venv", a.venv] + (["--show"] if a.show else [])
    sys.exit(subprocess.run(cmd).returncode)


if __name__ == "__main__":
    main()

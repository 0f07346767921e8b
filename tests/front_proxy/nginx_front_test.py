#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""nginx_front_test.py - request smuggling through a front proxy (issue #25).

nginx (Debian nginx-light) runs in front of the demo server, as a
deployment would put it: HTTP/1.1 keep-alive connections upstream, so
whatever nginx forwards for one client shares a connection with what it
forwards for the next. A corpus of smuggling attempts (CL+TE in both
orders, obfuscated Transfer-Encoding, HTTP/1.0 + TE, chunk-extension tricks,
bare CR/LF, odd Content-Length, requests pipelined behind a bad one, ...) is
sent to nginx on raw sockets, one case at a time, and after each case

  * nginx's log (one line per request: $upstream_addr, $upstream_status,
    $request) says how many requests it forwarded and what the demo answered,
  * the demo side says how many requests the demo answered: a relay between
    nginx and the demo counts the HTTP responses the demo writes (the demo
    has no per-request log; a response per request it parsed is the
    engine's contract),

and the two must match: a request the demo parsed that nginx did not forward
is a smuggled one. Before the corpus a canary run makes the relay smuggle a
request itself, and the comparison must catch it (so the check is not
vacuous). Everything runs in a temporary directory (nginx's config, pid
file, error and access logs, temp paths) on 127.0.0.1 free ports; nginx and
the demo get PR_SET_PDEATHSIG so they die with this script, killed or not.

usage: nginx_front_test.py --demo PATH [--nginx PATH]
Exit 77 (skipped, with a message) when nginx is missing, unless CI=true.
"""
import argparse
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

PR_SET_PDEATHSIG = 1
SMUGGLED = b"GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
BODY = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
MCP_HEADERS = (b"Content-Type: application/json\r\n"
               b"Accept: application/json, text/event-stream\r\n")


def dies_with_us():
    """preexec_fn: the child gets SIGKILL when this process ends."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, what, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            sys.exit(f"nginx_front: {what} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"nginx_front: {what} not listening on {port} after {timeout}s")


# ---- the demo side: a relay that counts the demo's responses ---------------

class ResponseCounter:
    """Frames the demo's responses on one upstream connection (RFC 9112 6.3:
    1xx and 204/304 carry no body; else chunked, Content-Length, or to the
    close) and reports each status to `sink`."""

    def __init__(self, sink):
        self.buf = b""
        self.sink = sink
        self.state = "head"
        self.left = 0

    def feed(self, data):
        self.buf += data
        while self.step():
            pass

    def step(self):
        if self.state == "head":
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return False
            head, self.buf = self.buf[:end].decode("latin-1"), self.buf[end + 4:]
            lines = head.split("\r\n")
            status = int(lines[0].split(" ")[1])
            fields = {}
            for ln in lines[1:]:
                k, _, v = ln.partition(":")
                fields.setdefault(k.strip().lower(), v.strip().lower())
            if 100 <= status < 200:
                return True  # interim: the final answer follows
            self.sink(status)
            if status in (204, 304):
                return True
            if "chunked" in fields.get("transfer-encoding", ""):
                self.state = "chunk-size"
            elif "content-length" in fields:
                self.left = int(fields["content-length"])
                self.state = "body"
            else:
                self.state = "to-close"
            return True
        if self.state == "body":
            n = min(self.left, len(self.buf))
            self.buf, self.left = self.buf[n:], self.left - n
            if self.left == 0:
                self.state = "head"
                return True
            return False
        if self.state == "chunk-size":
            end = self.buf.find(b"\r\n")
            if end < 0:
                return False
            size = int(self.buf[:end].split(b";")[0], 16)
            self.buf = self.buf[end + 2:]
            if size == 0:
                self.state = "trailers"
            else:
                self.left, self.state = size + 2, "chunk-data"
            return True
        if self.state == "chunk-data":
            n = min(self.left, len(self.buf))
            self.buf, self.left = self.buf[n:], self.left - n
            if self.left == 0:
                self.state = "chunk-size"
                return True
            return False
        if self.state == "trailers":
            end = self.buf.find(b"\r\n")
            if end < 0:
                return False
            line, self.buf = self.buf[:end], self.buf[end + 2:]
            if line == b"":
                self.state = "head"
            return True
        self.buf = b""  # to-close: the rest belongs to this response
        return False


class Relay:
    """127.0.0.1:port -> the demo; counts the demo's responses. With
    `canary`, the first connection gets SMUGGLED appended after the first
    bytes nginx writes on it: a request nginx never forwarded."""

    def __init__(self, demo_port):
        self.demo_port = demo_port
        self.lock = threading.Lock()
        self.statuses = []
        self.canary = False
        self.srv = socket.socket()
        self.srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(64)
        self.port = self.srv.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def seen(self):
        with self.lock:
            return list(self.statuses)

    def record(self, status):
        with self.lock:
            self.statuses.append(status)

    def accept(self):
        while True:
            down, _ = self.srv.accept()
            up = socket.create_connection(("127.0.0.1", self.demo_port))
            canary, self.canary = self.canary, False
            threading.Thread(target=self.pump_requests,
                             args=(down, up, canary), daemon=True).start()
            threading.Thread(target=self.pump_responses, args=(up, down),
                             daemon=True).start()

    @staticmethod
    def pump_requests(down, up, canary):
        try:
            while True:
                data = down.recv(65536)
                if not data:
                    up.shutdown(socket.SHUT_WR)
                    return
                if canary:
                    time.sleep(0.1)  # after the request, not inside it
                    data, canary = data + SMUGGLED, False
                up.sendall(data)
        except OSError:
            return

    def pump_responses(self, up, down):
        counter = ResponseCounter(self.record)
        try:
            while True:
                data = up.recv(65536)
                if not data:
                    break
                counter.feed(data)
                try:
                    down.sendall(data)
                except OSError:
                    pass  # nginx gone: keep counting what the demo says
        except (OSError, ValueError, IndexError):
            pass
        for s in (up, down):
            try:
                s.close()
            except OSError:
                pass


# ---- nginx -----------------------------------------------------------------

NGINX_CONF = """\
daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log info;
events {{ worker_connections 256; }}
http {{
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  log_format upstream '$upstream_addr|$upstream_status|$status|$request';
  access_log {dir}/access.log upstream;
  upstream demo {{
    server 127.0.0.1:{relay};
    keepalive 4;
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://demo;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host 127.0.0.1:{demo};
      proxy_next_upstream off;
    }}
  }}
}}
"""


class Nginx:
    def __init__(self, binary, tmp, relay_port, demo_port):
        self.dir = tmp
        self.port = free_port()
        conf = os.path.join(tmp, "nginx.conf")
        with open(conf, "w") as f:
            f.write(NGINX_CONF.format(dir=tmp, relay=relay_port, port=self.port,
                                      demo=demo_port))
        self.proc = subprocess.Popen(
            [binary, "-p", tmp, "-c", conf, "-e", os.path.join(tmp, "error.log")],
            preexec_fn=dies_with_us, stdin=subprocess.DEVNULL)
        wait_port(self.port, self.proc, "nginx")
        self.log = os.path.join(tmp, "access.log")

    def lines(self):
        try:
            with open(self.log, "rb") as f:
                return f.read().decode("latin-1").splitlines()
        except FileNotFoundError:
            return []

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def upstream_statuses(lines):
    """The demo's answers as nginx saw them: one entry per request nginx
    forwarded ($upstream_status lists one per attempt, '-' when none)."""
    out = []
    for ln in lines:
        addr, ustat, _status, _req = ln.split("|", 3)
        if addr in ("", "-"):
            continue  # answered by nginx itself, not forwarded
        for s in ustat.replace(":", ",").split(","):
            s = s.strip()
            if s.isdigit():
                out.append(int(s))
    return out


# ---- the corpus ------------------------------------------------------------

def post(headers, body):
    return (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + MCP_HEADERS +
            headers + b"\r\n" + body)


def chunked(payload):
    return b"%x\r\n%s\r\n0\r\n\r\n" % (len(payload), payload)


def corpus():
    smug_chunked = chunked(BODY)
    tail = SMUGGLED
    both = smug_chunked + tail
    cl_all = b"Content-Length: %d\r\n" % len(both)
    cases = [
        ("control: one POST", post(b"Content-Length: %d\r\n" % len(BODY), BODY)),
        ("control: two pipelined", post(b"Content-Length: %d\r\n" % len(BODY), BODY)
         + b"GET /other HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        ("CL then TE", post(cl_all + b"Transfer-Encoding: chunked\r\n", both)),
        ("TE then CL", post(b"Transfer-Encoding: chunked\r\n" + cl_all, both)),
        ("CL short then TE", post(b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n",
                                  both)),
        ("TE obs-fold", post(b"Transfer-Encoding:\r\n chunked\r\n" + cl_all, both)),
        ("TE obs-fold after value", post(b"Transfer-Encoding: x\r\n chunked\r\n" + cl_all,
                                         both)),
        ("TE chunked twice", post(b"Transfer-Encoding: chunked\r\n"
                                  b"Transfer-Encoding: chunked\r\n", both)),
        ("TE chunked twice + CL", post(b"Transfer-Encoding: chunked\r\n"
                                       b"Transfer-Encoding: chunked\r\n" + cl_all, both)),
        ("TE xchunked + CL", post(b"Transfer-Encoding: xchunked\r\n" + cl_all, both)),
        ("TE xchunked alone", post(b"Transfer-Encoding: xchunked\r\n", both)),
        ("TE chunked, identity", post(b"Transfer-Encoding: chunked, identity\r\n", both)),
        ("TE gzip, chunked", post(b"Transfer-Encoding: gzip, chunked\r\n", both)),
        ("TE CHUNKED upper case", post(b"Transfer-Encoding: CHUNKED\r\n" + cl_all, both)),
        ("TE space before colon", post(b"Transfer-Encoding : chunked\r\n" + cl_all, both)),
        ("CL space before colon", post(b"Content-Length : %d\r\n" % len(BODY), BODY + tail)),
        ("TE tab value", post(b"Transfer-Encoding:\tchunked\r\n" + cl_all, both)),
        ("TE vertical tab", post(b"Transfer-Encoding: chunked\x0b\r\n" + cl_all, both)),
        ("TE with NUL", post(b"Transfer-Encoding: chun\x00ked\r\n" + cl_all, both)),
        ("HTTP/1.0 + TE",
         b"POST /mcp HTTP/1.0\r\nHost: 127.0.0.1\r\n" + MCP_HEADERS +
         b"Transfer-Encoding: chunked\r\n\r\n" + both),
        ("HTTP/1.0 + TE + CL",
         b"POST /mcp HTTP/1.0\r\nHost: 127.0.0.1\r\n" + MCP_HEADERS +
         b"Transfer-Encoding: chunked\r\n" + cl_all + b"\r\n" + both),
        ("chunk ext bare CR", post(b"Transfer-Encoding: chunked\r\n",
                                   b"%x;a\rX\r\n%s\r\n0\r\n\r\n" % (len(BODY), BODY) + tail)),
        ("chunk size junk", post(b"Transfer-Encoding: chunked\r\n",
                                 b"%x junk\r\n%s\r\n0\r\n\r\n" % (len(BODY), BODY) + tail)),
        ("chunk ext quoted CRLF", post(b"Transfer-Encoding: chunked\r\n",
                                       b'%x;a="x\r\n%s\r\n0\r\n\r\n' % (len(BODY), BODY)
                                       + tail)),
        ("chunk ext long", post(b"Transfer-Encoding: chunked\r\n",
                                b"%x;%s\r\n%s\r\n0\r\n\r\n" % (len(BODY), b"a" * 8000, BODY)
                                + tail)),
        ("chunk size LF only", post(b"Transfer-Encoding: chunked\r\n",
                                    b"%x\n%s\r\n0\r\n\r\n" % (len(BODY), BODY) + tail)),
        ("chunk size overflow", post(b"Transfer-Encoding: chunked\r\n",
                                     b"1" + b"0" * 16 + b"28\r\n" + BODY + b"\r\n0\r\n\r\n" + tail)),
        ("chunk size negative", post(b"Transfer-Encoding: chunked\r\n",
                                     b"-28\r\n" + BODY + b"\r\n0\r\n\r\n" + tail)),
        ("chunk size 0x prefix", post(b"Transfer-Encoding: chunked\r\n",
                                      b"0x28\r\n" + BODY + b"\r\n0\r\n\r\n" + tail)),
        ("trailer hides request", post(b"Transfer-Encoding: chunked\r\n",
                                       b"%x\r\n%s\r\n0\r\n" % (len(BODY), BODY) + tail)),
        ("bare LF head", b"POST /mcp HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\n"
         b"Content-Length: %d\nTransfer-Encoding: chunked\n\n" % len(both) + both),
        ("bare CR in header", post(b"X-A: a\rTransfer-Encoding: chunked\r\n" + cl_all, both)),
        ("bare CR line end", b"POST /mcp HTTP/1.1\rHost: 127.0.0.1\r\n" + MCP_HEADERS +
         cl_all + b"\r\n" + both),
        ("CL leading +", post(b"Content-Length: +%d\r\n" % len(BODY), BODY + tail)),
        ("CL leading 0", post(b"Content-Length: 0%d\r\n" % len(BODY), BODY + tail)),
        ("CL negative", post(b"Content-Length: -1\r\n", BODY + tail)),
        ("CL hex", post(b"Content-Length: 0x28\r\n", BODY + tail)),
        ("CL list", post(b"Content-Length: %d, %d\r\n" % (len(BODY), len(BODY)), BODY + tail)),
        ("CL twice differing", post(b"Content-Length: %d\r\nContent-Length: %d\r\n"
                                    % (len(BODY), len(BODY) + len(tail)), BODY + tail)),
        ("CL huge", post(b"Content-Length: 99999999999999999999999\r\n", BODY + tail)),
        ("GET with CL body", b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n"
         % len(tail) + tail),
        ("GET with TE body", b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
         b"Transfer-Encoding: chunked\r\n\r\n" + chunked(tail)),
        ("Expect 100-continue + CL + TE",
         post(b"Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n" + cl_all, both)),
        ("pipelined behind bad CL", post(b"Content-Length: abc\r\n", b"") + SMUGGLED),
        ("pipelined behind bad TE", post(b"Transfer-Encoding: chunked\r\n", b"zz\r\n") + SMUGGLED),
        ("pipelined behind bad request line", b"POST  /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
         + SMUGGLED),
        ("pipelined behind bad version", b"GET /mcp HTTP/1.x\r\nHost: 127.0.0.1\r\n\r\n" + SMUGGLED),
        ("pipelined behind CL+TE", post(b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
                                        b"0\r\n\r\n") + SMUGGLED),
        ("Host twice", b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: other\r\n\r\n" + SMUGGLED),
        ("absolute-form", b"GET http://127.0.0.1/mcp HTTP/1.1\r\nHost: other\r\n\r\n"),
        ("request line with LF in target", b"GET /mcp\nGET /smuggled HTTP/1.1\r\n"
         b"Host: 127.0.0.1\r\n\r\n"),
    ]
    return cases


def exchange(port, data, idle=0.6, limit=5.0):
    """Sends data to nginx and reads its answers until it closes or is
    idle; the client's answers are only printed on failure."""
    out = b""
    with socket.create_connection(("127.0.0.1", port), 2.0) as s:
        try:
            s.sendall(data)
        except OSError:
            pass
        s.settimeout(idle)
        end = time.monotonic() + limit
        while time.monotonic() < end:
            try:
                got = s.recv(65536)
            except socket.timeout:
                break
            except OSError:
                break
            if not got:
                break
            out += got
    return out


def settle(relay, nginx, timeout=5.0):
    """Waits until the relay's and nginx's counts stop changing."""
    last = None
    stable = 0
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        now = (len(relay.seen()), len(nginx.lines()))
        stable = stable + 1 if now == last else 0
        if stable >= 3:
            return
        last = now
        time.sleep(0.1)


def run_case(name, data, relay, nginx, verbose, canary=False):
    before_demo = len(relay.seen())
    before_log = len(nginx.lines())
    answer = exchange(nginx.port, data)
    settle(relay, nginx)
    demo = relay.seen()[before_demo:]
    lines = nginx.lines()[before_log:]
    forwarded = upstream_statuses(lines)
    ok = sorted(demo) == sorted(forwarded)
    if verbose or ok == canary:
        first = answer.split(b"\r\n", 1)[0].decode("latin-1")
        mark = ("ok  " if ok != canary else "FAIL")
        print(f"{mark} {name}: nginx forwarded {len(forwarded)} "
              f"{forwarded}, demo answered {len(demo)} {demo}; client saw {first!r}")
        if ok == canary:
            for ln in lines:
                print(f"     nginx log: {ln}")
    return ok, len(forwarded)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--demo", required=True)
    ap.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if not os.access(args.nginx, os.X_OK):
        why = "nginx not found (Debian: apt-get install nginx-light)"
        if os.environ.get("CI") == "true":
            sys.exit(f"nginx_front: {why} (required when CI=true)")
        print(f"SKIP nginx_front: {why}", file=sys.stderr)
        sys.exit(77)

    tmp = tempfile.mkdtemp(prefix="nginx_front.")
    demo_port = free_port()
    demo = subprocess.Popen(
        [args.demo, "--http", f"127.0.0.1:{demo_port}",
         "--db", os.path.join(tmp, "demo.db")],
        preexec_fn=dies_with_us, stdin=subprocess.DEVNULL)
    nginx = None
    try:
        wait_port(demo_port, demo, "mcp-demo-server")
        relay = Relay(demo_port)
        nginx = Nginx(args.nginx, tmp, relay.port, demo_port)

        # The canary: a request the relay smuggles must be caught.
        relay.canary = True
        ok, _ = run_case("canary (relay smuggles one request)",
                         post(b"Content-Length: %d\r\n" % len(BODY), BODY),
                         relay, nginx, args.verbose, canary=True)
        if ok:
            sys.exit("nginx_front: the canary's smuggled request went unnoticed: "
                     "the comparison cannot see smuggling")
        # Its extra response may desynchronise nginx's pooled connection:
        # start the corpus on fresh upstream connections.
        nginx.stop()
        os.unlink(nginx.log)
        nginx = Nginx(args.nginx, tmp, relay.port, demo_port)

        failed = []
        total_forwarded = 0
        cases = corpus()
        for name, data in cases:
            ok, n = run_case(name, data, relay, nginx, args.verbose)
            total_forwarded += n
            if not ok:
                failed.append(name)
            if demo.poll() is not None:
                sys.exit(f"nginx_front: the demo died ({demo.returncode}) after {name!r}")
        # The controls reached the demo: the test saw traffic, not a dead proxy.
        if total_forwarded < 3:
            sys.exit(f"nginx_front: nginx forwarded only {total_forwarded} requests")
        if failed:
            sys.exit(f"nginx_front: the demo answered requests nginx did not forward "
                     f"(or missed some) in {len(failed)} of {len(cases)} cases: {failed}")
        print(f"nginx_front: {len(cases)} cases, {total_forwarded} requests forwarded, "
              "the demo answered exactly those")
    finally:
        if nginx:
            nginx.stop()
        demo.kill()
        demo.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

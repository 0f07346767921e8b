# SPDX-License-Identifier: MIT
"""peers.py - what the OpenTelemetry peer tests (python_client.py,
collector_test.py) share: child processes that die with the test (the
kernel sends them SIGKILL when the driver ends, killed by CTest included),
a server on a free 127.0.0.1 port, waiting with a deadline, and failing
with a message. Standard library only: collector_test.py runs on the
system python3, python_client.py in the venv of the Python SDK."""
import atexit
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)
_driver = os.getpid()


def die_with_driver():
    # runs in the child between fork and exec
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != _driver:  # the driver ended before prctl
        os._exit(1)


def workdir(label):
    """A temporary directory removed when the driver exits."""
    path = tempfile.mkdtemp(prefix=label + "-")
    atexit.register(shutil.rmtree, path, True)
    return path


def fail(label, why, *logs):
    """Ends the test: prints why and the logs (paths) that explain it."""
    print(f"{label}: FAILED: {why}", file=sys.stderr)
    for path in logs:
        try:
            with open(path, errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        print(f"--- {path} (last 4000 characters)\n{text[-4000:]}",
              file=sys.stderr)
    sys.exit(1)


def spawn(argv, log_path, env=None, stdout=None):
    """Starts argv (stderr, and stdout unless given, to log_path); the
    child dies with this driver."""
    log = open(log_path, "ab")
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                            stdout=stdout if stdout is not None else log,
                            stderr=log, env=env,
                            preexec_fn=die_with_driver)


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def sanitizer_clean(label, log_path):
    """Fails when a sanitizer reported on the server (its log)."""
    with open(log_path, errors="replace") as f:
        if "Sanitizer" in f.read():
            fail(label, "sanitizer report from the server", log_path)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), 1).close()
        return True
    except OSError:
        return False


def start_listening(label, make_argv, log_path, env=None, seconds=60):
    """Starts make_argv(port) on a free port until it listens there (three
    tries: another process may take the port first); returns (proc,
    port)."""
    for _ in range(3):
        port = free_port()
        proc = spawn(make_argv(port), log_path, env)
        deadline = time.monotonic() + seconds
        while proc.poll() is None and time.monotonic() < deadline:
            if listening(port):
                time.sleep(0.2)  # ours, not one that took the port first
                if proc.poll() is None:
                    return proc, port
            time.sleep(0.05)
        stop(proc)
    fail(label, f"{make_argv('PORT')[0]} never listened", log_path)


def wait_for(what, seconds):
    """Calls what() until it returns something true, at most seconds;
    returns its last value."""
    deadline = time.monotonic() + seconds
    while True:
        found = what()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)

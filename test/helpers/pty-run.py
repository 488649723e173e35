#!/usr/bin/env python3
"""Run a command on a pseudo-terminal (Python's pty module) and script it, for the fault suite.

    pty-run.py --out RAW --cols 120 --rows 40 --timeout 60 [STEP ...] -- CMD [ARG ...]

Steps run in order:
    wait:TEXT     wait until the raw output (escape sequences included) contains TEXT
    quiet:SECS    wait until no output came for SECS seconds
    sleep:SECS    wait SECS seconds, reading output meanwhile
    send:TEXT     type TEXT (\\r, \\x03 and other Python escapes are understood)
    hup           close the terminal (the kernel sends SIGHUP, as tmux kill-session does)
    term          send SIGTERM to the command

Every byte the command wrote to the terminal is saved to RAW. One JSON line on stdout:
{"exit": code|null, "signal": n|null, "timedOut": bool, "stepFailed": step|null, "ms": wall}.
On a time-out the command's process group gets SIGKILL.
"""
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import fcntl
import time


def main() -> int:
    args = sys.argv[1:]
    sep = args.index('--')
    opts, cmd = args[:sep], args[sep + 1:]
    out_path, cols, rows, timeout = None, 120, 40, 60.0
    steps = []
    i = 0
    while i < len(opts):
        a = opts[i]
        if a == '--out':
            out_path = opts[i + 1]; i += 2
        elif a == '--cols':
            cols = int(opts[i + 1]); i += 2
        elif a == '--rows':
            rows = int(opts[i + 1]); i += 2
        elif a == '--timeout':
            timeout = float(opts[i + 1]); i += 2
        else:
            steps.append(a); i += 1

    start = time.monotonic()
    deadline = start + timeout
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    raw = bytearray()
    closed = False
    last_output = time.monotonic()
    status = None

    def pump(seconds: float) -> None:
        nonlocal closed, last_output
        if closed:
            time.sleep(max(0.0, seconds))
            return
        r, _, _ = select.select([fd], [], [], max(0.0, seconds))
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b''
            if data:
                raw.extend(data)
                last_output = time.monotonic()
            else:
                closed = True

    def reap() -> bool:
        nonlocal status
        if status is not None:
            return True
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            return True
        return False

    step_failed = None
    for step in steps:
        kind, _, arg = step.partition(':')
        if kind == 'wait':
            needle = arg.encode()
            while needle not in raw and time.monotonic() < deadline and not reap():
                pump(0.05)
            if needle not in raw:
                step_failed = step
                break
        elif kind == 'quiet':
            while time.monotonic() - last_output < float(arg) and time.monotonic() < deadline:
                pump(0.05)
        elif kind == 'sleep':
            until = time.monotonic() + float(arg)
            while time.monotonic() < until:
                pump(until - time.monotonic())
        elif kind == 'send':
            os.write(fd, arg.encode().decode('unicode_escape').encode())
        elif kind == 'hup':
            os.close(fd)
            closed = True
        elif kind == 'term':
            os.kill(pid, signal.SIGTERM)

    while not reap() and time.monotonic() < deadline:
        pump(0.05)
    timed_out = status is None
    if timed_out:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        _, status = os.waitpid(pid, 0)
    # Whatever is still buffered on the terminal.
    while not closed:
        pump(0.05)
        if not select.select([fd], [], [], 0)[0]:
            break
    if out_path:
        with open(out_path, 'wb') as f:
            f.write(raw)
    print(json.dumps({
        'exit': os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        'signal': os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        'timedOut': timed_out,
        'stepFailed': step_failed,
        'ms': round((time.monotonic() - start) * 1000),
    }))
    return 0


if __name__ == '__main__':
    sys.exit(main())

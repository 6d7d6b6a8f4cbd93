"""Processes the harness starts (inside a namespace); the bounded waits (testkit's), for the harness's modules."""

import os
import signal as _signal
import subprocess

from testkit import WAIT, Timeout, wait_until


def tail(path, limit=4000):
    try:
        with open(str(path), "rb") as f:
            data = f.read()
    except OSError as exc:
        return "(unreadable: %s)" % exc
    if len(data) > limit:
        data = b"...\n" + data[-limit:]
    return data.decode("utf-8", "replace")


class Proc:
    """A long-running process started in a namespace, output to a log file."""

    def __init__(self, ns, name, argv, log, env=None, cwd=None, pass_fds=()):
        self.ns = ns
        self.name = name
        self.argv = [str(a) for a in argv]
        self.log = str(log)
        self.env = env
        self.cwd = cwd
        self.pass_fds = tuple(pass_fds)
        self.proc = None
        self.expected_exit = False

    def start(self):
        assert self.proc is None or self.proc.poll() is not None, "%s already running" % self.name
        self.expected_exit = False
        with open(self.log, "ab") as logf:
            self.proc = self.ns.popen(self.argv, stdin=subprocess.DEVNULL, stdout=logf,
                                      stderr=subprocess.STDOUT, env=self.env, cwd=self.cwd,
                                      pass_fds=self.pass_fds, start_new_session=True)
        return self

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig):
        if self.alive():
            self.proc.send_signal(sig)

    def kill(self):
        """SIGKILL the process (and, for php-fpm, its workers: the group)."""
        self.expected_exit = True
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, _signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def stop(self, timeout=10.0, sig=_signal.SIGTERM):
        """Signal and wait (bounded); SIGKILL after timeout. Returns the exit status."""
        self.expected_exit = True
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                return self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                raise Timeout("%s did not exit within %.1fs of signal %d" % (self.name, timeout, sig))
        return self.proc.returncode

    def unexpected_exit(self):
        """Exit status when the process died without the harness asking, else None."""
        if self.proc is None or self.expected_exit:
            return None
        return self.proc.poll()

    def log_text(self):
        return tail(self.log, 1 << 20)

    def wait_log(self, needle, timeout=WAIT):
        """Wait until the log contains needle (bytes or str); fail early if the process died."""
        if isinstance(needle, str):
            needle = needle.encode()

        def found():
            try:
                with open(self.log, "rb") as f:
                    if needle in f.read():
                        return True
            except OSError:
                pass
            if not self.alive():
                raise AssertionError("%s exited (status %s) before logging %r:\n%s"
                                     % (self.name, self.proc.poll(), needle, tail(self.log)))
            return False
        return wait_until(found, timeout=timeout, what="%s to log %r" % (self.name, needle),
                          describe=lambda: tail(self.log, 1500))

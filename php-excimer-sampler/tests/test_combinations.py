"""Every mode of the extension combined with every other, each over several
requests of one php-cgi process (`php-cgi -T`): the zero-code sampler (on,
off) x hierarchical profiling (off, zero-code, the xhprof, tideways_xhprof
and uprofiler APIs) x request tiers (off, on, switched off and on again
between requests) x opcache (on, off) — 60 processes running real code not
written here (Debian's php-parser, tests/combinations_workload.php).

A request that crashes, warns or loses what it should send fails its
combination: every request answers; samples, hierarchical runs (whole, and
no function's inclusive time above main()'s) and tier lines arrive on the
unix datagram socket the test listens on, and only those the combination
asks for. With COMBINATIONS_VALGRIND=1 (`make php-tests-valgrind`) each
php-cgi runs under valgrind's memcheck, and any error it reports fails the
combination.
"""

import itertools
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "common" / "tests"))
from testkit import repo_bin  # noqa: E402

BUILD_PHP = Path(repo_bin("EXCIMER_BUILD_PHP", "build/php"))
WORKLOAD = HERE / "combinations_workload.php"
VALGRIND = os.environ.get("COMBINATIONS_VALGRIND") == "1"
REQUESTS = 3
TIERS = ("parse=PhpParser\\ParserAbstract::parse, "
         "print=PhpParser\\PrettyPrinterAbstract::prettyPrintFile, re=preg_match")

SAMPLER = ("off", "on")
HIERARCHICAL = ("off", "zero-code", "xhprof", "tideways_xhprof", "uprofiler")
TIER_MODES = ("off", "on", "switched")
OPCACHE = ("off", "on")
COMBINATIONS = list(itertools.product(SAMPLER, HIERARCHICAL, TIER_MODES, OPCACHE))


class Receiver:
    """A unix datagram socket, read by a thread into a list of lines."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        for opt in (getattr(socket, "SO_RCVBUFFORCE", None), socket.SO_RCVBUF):
            try:
                self.sock.setsockopt(socket.SOL_SOCKET, opt, 8 << 20)
                break
            except (OSError, TypeError):
                continue
        self.sock.bind(path)
        self.sock.settimeout(0.2)
        self.lines = []
        self.stopping = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while True:
            try:
                data = self.sock.recv(1 << 20)
            except socket.timeout:
                if self.stopping:
                    return
                continue
            self.lines.extend(data.decode("utf-8", "replace").split("\n"))

    def close(self):
        """Stops once the socket is drained (the sender has exited by then)."""
        self.stopping = True
        self.thread.join()
        self.sock.close()


def ini_for(tmp, sock, sampler, hierarchical, tiers, opcache):
    # php-parser needs the tokenizer (a module of Debian's php8.2-common)
    lines = ["extension=tokenizer.so", "extension=%s" % (BUILD_PHP / "excimer.so")]
    if hierarchical in ("xhprof", "tideways_xhprof", "uprofiler"):
        lines.append("extension=%s" % (BUILD_PHP / ("%s.so" % hierarchical)))
    if opcache == "on":
        lines += ["zend_extension=opcache.so", "opcache.enable=1", "opcache.enable_cli=1",
                  "opcache.validate_timestamps=0"]
    target = '"unix://%s"' % sock
    if sampler == "on":
        lines += ["excimer.arclamp_target=%s" % target, "excimer.arclamp_period=0.002",
                  "excimer.arclamp_event_type=real", "excimer.arclamp_send_delay=0"]
    if hierarchical == "zero-code":
        lines += ["excimer.hprof_sample_rate=1", "excimer.hprof_target=%s" % target]
    if tiers != "off":
        lines += ['excimer.tiers="%s"' % TIERS, "excimer.tiers_target=%s" % target,
                  "excimer.tiers_flush_interval=60"]
    if tiers == "switched":
        lines.append("excimer.tiers_control=%s" % (tmp / "tiers-switch"))
    # Delivery is under test, not its deadline: under valgrind (some 50x
    # slower) a run's datagrams once missed a deadline of 1 s (2 of 3 runs
    # arrived), so there the deadline is 10 s.
    timeout = 10 if VALGRIND else 1
    if VALGRIND:  # code PCRE's JIT makes is a mystery to memcheck (false reports)
        lines.append("pcre.jit=0")
    lines += ["display_errors=1", "error_reporting=E_ALL", "html_errors=0",
              "excimer.arclamp_timeout=%d" % timeout, "excimer.arclamp_timeout_max=%d" % max(timeout, 5)]
    path = tmp / "php.ini"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_php_cgi(tmp, ini, env):
    cmd = ["php-cgi", "-n", "-c", str(ini), "-T", str(REQUESTS), str(WORKLOAD)]
    memlog = tmp / "valgrind.log"
    if VALGRIND:
        env = dict(env, USE_ZEND_ALLOC="0", ZEND_DONT_UNLOAD_MODULES="1")
        cmd = ["valgrind", "-q", "--error-exitcode=99", "--fair-sched=yes",
               "--log-file=%s" % memlog] + cmd
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=1800)
    return proc, (memlog.read_text() if memlog.exists() else "")


def sample_lines(lines):
    return [l for l in lines if l and not l.startswith(("xhprof/", "tiers/"))]


def runs_of(lines):
    """{runid: {"begin": fields, "arcs": {key: (ct, wt)}, "end": fields}} of the
    xhprof/1 and xhprof/2 lines (common/src/runline.h)."""
    runs, names = {}, {}
    for line in lines:
        if not line.startswith("xhprof/"):
            continue
        version, runid, kind, rest = (line.split(" ", 3) + [""])[:4]
        run = runs.setdefault(runid, {"arcs": {}})
        if kind in ("begin", "end"):
            run[kind] = rest.split(" ")
        elif kind == "fn":
            num, name = rest.split(" ", 1)
            names[(runid, num)] = unescape(name)
        elif kind == "arc" and version == "xhprof/1":
            ct, wt, _cpu, _mu, _pmu, key = rest.split(" ", 5)
            run["arcs"][unescape(key)] = (int(ct), int(wt))
        elif kind == "arc":
            ct, wt, _cpu, _mu, _pmu, caller, callee = rest.split(" ")
            def named(ref):
                num, _, level = ref.partition("@")
                return names[(runid, num)] + ("@" + level if level else "")
            key = named(callee) if caller == "-" else named(caller) + "==>" + named(callee)
            run["arcs"][key] = (int(ct), int(wt))
    return runs


def unescape(text):
    return re.sub(r"%([0-9A-F]{2})", lambda m: chr(int(m.group(1), 16)), text)


def over_main(arcs):
    """The symbols whose inclusive wall time is above main()'s (XHProf's sum
    of wt over the arcs into a symbol)."""
    inclusive = {}
    for key, (_ct, wt) in arcs.items():
        child = key.split("==>", 1)[1] if "==>" in key else key
        inclusive[child] = inclusive.get(child, 0) + wt
    main = arcs.get("main()", (0, 0))[1]
    return {k: v for k, v in inclusive.items() if v > main}


def tier_totals(lines):
    """(requests, traced) from the status lines, {tier: calls} from the
    aggregate lines (common/src/tierline.h)."""
    requests = traced = 0
    calls = {}
    for line in lines:
        f = line.split(" ")
        if line.startswith("tiers/1 status "):
            requests += int(f[6])
            traced += int(f[7])
        elif line.startswith("tiers/1 agg "):
            calls[f[7]] = calls.get(f[7], 0) + int(f[8])
    return requests, traced, calls


@pytest.mark.parametrize("sampler,hierarchical,tiers,opcache", COMBINATIONS,
                         ids=["sampler-%s_hprof-%s_tiers-%s_opcache-%s" % c for c in COMBINATIONS])
def test_combination(sampler, hierarchical, tiers, opcache):
    with tempfile.TemporaryDirectory(prefix="combo-") as d:
        tmp = Path(d)
        sock = tmp / "in.sock"
        receiver = Receiver(str(sock))
        try:
            ini = ini_for(tmp, sock, sampler, hierarchical, tiers, opcache)
            (tmp / "state").mkdir()
            env = {"PATH": os.environ["PATH"], "COMBO_STATE": str(tmp / "state"),
                   "COMBO_API": hierarchical if hierarchical not in ("off", "zero-code") else "",
                   "COMBO_SWITCH": str(tmp / "tiers-switch") if tiers == "switched" else ""}
            proc, memcheck = run_php_cgi(tmp, ini, env)
        finally:
            receiver.close()
        out = proc.stdout.decode("utf-8", "replace")
        assert proc.returncode == 0, "php-cgi exited %d:\n%s\n%s" % (proc.returncode, out[-3000:],
                                                                    memcheck[-5000:])
        assert memcheck.strip() == "", memcheck[-5000:]
        for word in ("Warning", "Fatal", "Notice", "Deprecated", "Segmentation"):
            assert word not in out, out[-3000:]
        for n in range(1, REQUESTS + 1):
            assert "request %d ok" % n in out, out[-3000:]

        lines = receiver.lines
        if hierarchical in ("xhprof", "tideways_xhprof", "uprofiler"):
            assert out.count("run ok") == REQUESTS, out[-3000:]

        samples = sample_lines(lines)
        assert bool(samples) == (sampler == "on"), samples[:5]

        runs = runs_of(lines)
        if hierarchical == "zero-code":
            assert len(runs) == REQUESTS, sorted(runs)
            for runid, run in runs.items():
                assert "begin" in run and "end" in run, runid
                assert run["end"][1] == "0", "arcs left out: %s" % run["end"]
                assert len(run["arcs"]) == int(run["end"][0])
                assert "main()" in run["arcs"]
                assert over_main(run["arcs"]) == {}, (runid, over_main(run["arcs"]))
        else:
            assert runs == {}

        requests, traced, calls = tier_totals(lines)
        if tiers == "off":
            assert (requests, calls) == (0, {})
        else:
            want = REQUESTS - 1 if tiers == "switched" else REQUESTS
            assert requests == REQUESTS
            assert traced == want
            assert calls.get("_total") == want
            assert calls.get("parse") == want
            assert calls.get("print") == want
            assert calls.get("re", 0) >= want

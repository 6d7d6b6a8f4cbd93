"""Reading the run logs arclamp-log wrote (<bucket>.<tag>.runs, xhprof/1 and
xhprof/2 lines, see arclamp-log's README "Hierarchical runs"), and the
property every run must have: no function's inclusive wall time above
main()'s."""

import os
import re
from collections import defaultdict

NAME_RE = re.compile(r"^(?P<bucket>\d{4}-\d{2}-\d{2}(?:_\d{2})?)\.(?P<tag>.+)\.runs$")


def unescape(text):
    """NAME, KEY and ENTRY as sent: %XX for the bytes the writer escapes."""
    raw = re.sub(rb"%([0-9A-F]{2})", lambda m: bytes([int(m.group(1), 16)]), text.encode())
    return raw.decode("utf-8", "replace")


class Run:
    def __init__(self, runid):
        self.runid = runid
        self.begin = None       # [UNIXTIME, HOST, FLAGS, ENTRY]
        self.end = None         # [ARCS_SENT, ARCS_LEFT_OUT]
        self.arcs = {}          # key (parent==>child, or main()) -> (ct, wt)
        self.lines = 0          # every line of the run (begin, fn, arc, end)

    @property
    def entry(self):
        return unescape(self.begin[3]) if self.begin else None

    @property
    def left_out(self):
        return int(self.end[1]) if self.end else None

    @property
    def complete(self):
        return self.begin is not None and self.end is not None and \
            int(self.end[0]) == len(self.arcs)


def parse_runs(lines):
    """{runid: Run} of run lines (str) of both versions. An arc key that
    comes twice in one run (it may not) is caught by Run.complete."""
    runs, names = {}, {}
    for line in lines:
        if not line.startswith(("xhprof/1 ", "xhprof/2 ")):
            continue
        version, runid, kind, rest = (line.split(" ", 3) + [""])[:4]
        run = runs.get(runid) or runs.setdefault(runid, Run(runid))
        run.lines += 1
        if kind == "begin":
            run.begin = rest.split(" ", 3)
        elif kind == "end":
            run.end = rest.split(" ")
        elif kind == "fn":
            num, name = rest.split(" ", 1)
            names[(runid, num)] = unescape(name)
        elif kind == "arc" and version == "xhprof/1":
            ct, wt, _cpu, _mu, _pmu, key = rest.split(" ", 5)
            run.arcs[unescape(key)] = (int(ct), int(wt))
        elif kind == "arc":
            ct, wt, _cpu, _mu, _pmu, caller, callee = rest.split(" ")

            def named(ref):
                num, _, level = ref.partition("@")
                return names[(runid, num)] + ("@" + level if level else "")
            key = named(callee) if caller == "-" else named(caller) + "==>" + named(callee)
            run.arcs[key] = (int(ct), int(wt))
    return runs


def read_run_logs(base_path, group):
    """{tag: {runid: Run}} of every run log of one log group (all buckets)."""
    out = defaultdict(dict)
    gdir = os.path.join(str(base_path), group)
    for name in sorted(os.listdir(gdir)) if os.path.isdir(gdir) else []:
        m = NAME_RE.match(name)
        if not m:
            continue
        with open(os.path.join(gdir, name), encoding="utf-8", errors="replace") as f:
            runs = parse_runs(f.read().splitlines())
        for runid, run in runs.items():
            assert runid not in out[m.group("tag")], "run %s twice in %s" % (runid, group)
            out[m.group("tag")][runid] = run
    return dict(out)


def over_main(arcs_wt):
    """The symbols whose inclusive wall time (XHProf's: the sum of wt over
    the arcs into a symbol; f@1 is a symbol of its own) is above main()'s.
    arcs_wt: {key: wt}."""
    inclusive = {}
    for key, wt in arcs_wt.items():
        child = key.split("==>", 1)[1] if "==>" in key else key
        inclusive[child] = inclusive.get(child, 0) + wt
    main = arcs_wt.get("main()", 0)
    return {k: v for k, v in inclusive.items() if v > main}

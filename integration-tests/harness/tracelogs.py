"""Reading what arclamp-log wrote: trace log files by group, bucket and tag,
attributed to the web host whose application path is in the first frame."""

import os
import re
from collections import defaultdict

# <bucket>.<tag>.log; buckets from the default formats (and per-second ones)
NAME_RE = re.compile(r"^(?P<bucket>\d{4}-\d{2}-\d{2}(?:_\d{2}(?:[-:]?\d{2}){0,2})?)\.(?P<tag>.+)\.log$")
HOST_RE = re.compile(r"/(web\d+)/app/")
LINE_RE = re.compile(rb"^(?P<stack>[^\n]*[^;\s]) (?P<count>[1-9][0-9]*)$")


class TraceLogs:
    """Every line of every trace log below base_path, indexed.

    files[(group, bucket, tag)] = [lines]; per-line helpers give the first
    frame, the host (webN from /webN/app/ in the first frame) and the count."""

    def __init__(self, base_path, name_re=NAME_RE):
        self.base = str(base_path)
        self.files = {}
        self.bad_names = []
        self.torn = []        # files whose content does not end with "\n"
        for group in sorted(os.listdir(self.base)) if os.path.isdir(self.base) else []:
            gdir = os.path.join(self.base, group)
            if not os.path.isdir(gdir):
                continue
            for name in sorted(os.listdir(gdir)):
                m = name_re.match(name)
                if not m:
                    self.bad_names.append(os.path.join(group, name))
                    continue
                with open(os.path.join(gdir, name), "rb") as f:
                    data = f.read()
                if data and not data.endswith(b"\n"):
                    self.torn.append(os.path.join(group, name))
                lines = data.split(b"\n")
                if lines and lines[-1] == b"":
                    lines.pop()
                self.files[(group, m.group("bucket"), m.group("tag"))] = lines

    def groups(self):
        return sorted({g for g, _, _ in self.files})

    def tags(self, group):
        return sorted({t for g, _, t in self.files if g == group})

    def lines(self, group, tag="all"):
        out = []
        for (g, _, t), lines in sorted(self.files.items()):
            if g == group and t == tag:
                out.extend(lines)
        return out

    @staticmethod
    def parse(line):
        """(first frame, host or None, count) of a line; None when it does not parse."""
        m = LINE_RE.match(line)
        if not m:
            return None
        stack = m.group("stack").decode("utf-8", "replace")
        first = stack.split(";", 1)[0]
        h = HOST_RE.search(first)
        return first, (h.group(1) if h else None), int(m.group("count"))

    def summary(self, group, tag="all"):
        """{host: {"lines": n, "samples": n}} for one group and tag, plus
        host None for lines of no web host and "_unparsed" for bad lines."""
        out = defaultdict(lambda: {"lines": 0, "samples": 0})
        for line in self.lines(group, tag):
            p = self.parse(line)
            if p is None:
                out["_unparsed"]["lines"] += 1
                continue
            _, host, count = p
            out[host]["lines"] += 1
            out[host]["samples"] += count
        return dict(out)

    def tag_mismatches(self, group):
        """Lines in a <tag> file whose first frame is not .../<tag>.php."""
        bad = []
        for (g, _, t), lines in self.files.items():
            if g != group or t == "all":
                continue
            for line in lines:
                p = self.parse(line)
                if p is None or os.path.basename(p[0]) != t + ".php":
                    bad.append((t, line[:200]))
        return bad

"""A real arclamp-log on a unix datagram socket in a test's directory, and
what the tests read back from it: samples per entry point (trace logs),
runs (run logs, read by arclamp-report) and request tiers (tier tables).

The daemon is the fleet harness's ArclampLog (integration-tests/harness/
arclamp.py: its configuration, notify socket, metrics and stop), run here on
the host itself: `Host` stands in for the network namespace it expects.
"""

import glob
import json
import os
import subprocess
import time
from pathlib import Path

from harness.arclamp import ArclampLog, arclamp_report_bin, report_generate
from testkit import WAIT, metric_sum


class Host:
    """The machine itself, in the place of the fleet's netns.Namespace: the
    same methods, no namespace."""

    host = "local"
    address = "127.0.0.1"

    def argv(self, cmd):
        return [str(c) for c in cmd]

    def run(self, cmd, timeout=30, check=True, input=None, env=None):
        return subprocess.run(self.argv(cmd), timeout=timeout, check=check, input=input, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def popen(self, cmd, **kw):
        return subprocess.Popen(self.argv(cmd), **kw)


class Collector:
    """arclamp-log listening on <workdir>/arclamp/ingest.sock (no UDP, no
    Redis), hourly and daily log groups under <workdir>/arclamp/data/logs."""

    def __init__(self, workdir, over=None):
        self.log = ArclampLog(Host(), workdir, redis=None, udp_port=None, unix=True, over=over)
        self.base_path = self.log.base_path
        self.data_dir = self.log.data_dir

    @property
    def target(self):
        """The extension's excimer.arclamp_target for this daemon."""
        return self.log.unix_target()

    def start(self):
        self.log.start()
        return self

    def stop(self):
        """SIGTERM: arclamp-log writes what it holds (buffers, tier minutes) and exits."""
        rc = self.log.stop()
        assert rc == 0, "arclamp-log exited with %s:\n%s" % (rc, self.log.proc.log_text()[-3000:])

    def close(self):
        self.log.close()

    def metric(self, name, **labels):
        return self.log.metric(name, **labels)

    # What moves while arclamp-log takes in what was sent: messages of every
    # input, and what it made of them (sample lines, runs, tier lines).
    PROGRESS = ("arclamp_log_messages_received_total", "arclamp_log_lines_written_total",
                "arclamp_log_lines_invalid_total", "arclamp_log_runs_received_total",
                "arclamp_log_runs_written_total", "arclamp_log_tier_lines_received_total")

    def wait_quiet(self, settle=1.0, timeout=WAIT):
        """Until none of PROGRESS has moved for `settle` s, read from fresh
        metrics files (rewritten every 0.2 s): call it once the senders have
        exited (their datagrams are then all queued on the socket). Returns
        the last metrics; at most `timeout` s."""
        deadline = time.monotonic() + timeout
        last, since = None, time.monotonic()
        while True:
            m = self.log.wait_metrics_fresh(timeout=max(1.0, deadline - time.monotonic()))
            now = tuple(metric_sum(m, name) for name in self.PROGRESS)
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= settle or time.monotonic() >= deadline:
                return m

    def stderr(self):
        return self.log.proc.log_text()

    # --- trace logs
    def samples(self, period="hourly"):
        """{tag: samples} of the period's trace logs (every bucket): the sum
        of the counts of their lines; tag 'all' too."""
        out = {}
        for path in glob.glob(os.path.join(str(self.base_path), period, "*.log")):
            tag = os.path.basename(path).rsplit(".", 2)[-2]
            with open(path, "rb") as f:
                for line in f:
                    out[tag] = out.get(tag, 0) + int(line.rsplit(b" ", 1)[1])
        return out

    def stacks(self, tag, period="hourly"):
        """The stack lines (without counts) of one tag's trace logs."""
        out = []
        for path in glob.glob(os.path.join(str(self.base_path), period, "*.%s.log" % tag)):
            with open(path, "rb") as f:
                out += [line.rsplit(b" ", 1)[0].decode("utf-8", "replace") for line in f]
        return out

    # --- run logs, through arclamp-report
    def run_summaries(self, period="hourly"):
        """arclamp-report generate on the data directory, then its summaries
        of the period's run logs: {tag: {runs, incomplete, bad_lines, arcs,
        arcs_left_out, ...}} summed over buckets."""
        report_generate(self.data_dir)
        out = {}
        for path in glob.glob(os.path.join(str(self.data_dir), "reports", period, "summary",
                                           "*.json")):
            tag = os.path.basename(path).rsplit(".", 2)[-2]
            s = json.loads(Path(path).read_text())
            acc = out.setdefault(tag, {})
            for k, v in s.items():
                if isinstance(v, (int, float)) and k not in ("first", "last"):
                    acc[k] = acc.get(k, 0) + v
        return out

    # --- tier tables
    def tier_tables(self, period="hourly"):
        """The period's tier tables (<bucket>.tiers.json), parsed."""
        return [json.loads(Path(p).read_text())
                for p in sorted(glob.glob(os.path.join(str(self.base_path), period,
                                                       "*.tiers.json")))]

    def tier_calls(self, tier="_total", period="hourly"):
        """Calls of one tier over every identity and bucket of the period."""
        return sum(cells.get(tier, {}).get("calls", 0)
                   for t in self.tier_tables(period) for cells in t["identities"].values())


def report_json(cmd, run_file, *args):
    """arclamp-report CMD --json ... RUN: its JSON output; AssertionError with
    arclamp-report's message when it refuses the run."""
    cp = subprocess.run([arclamp_report_bin(), cmd, "--json"] + list(args) + [str(run_file)],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if cp.returncode != 0:
        raise AssertionError("arclamp-report %s %s: exit %d: %s" % (
            cmd, run_file, cp.returncode, cp.stderr.decode("utf-8", "replace").strip()))
    return json.loads(cp.stdout)

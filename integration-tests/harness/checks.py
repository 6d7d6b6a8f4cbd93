"""Assertions and bookkeeping shared by the fleet scenarios: delivery per
host, group and entry point; well-formed graphs and index page; sound
report summaries; the row of the results table; helpers of the fault
scenarios."""

import gzip
import json
import os
import subprocess
import time

from . import report
from .fleet import Fleet
from .procs import wait_until

ENTRY_TAGS = {"index", "api", "rest", "RunJobs"}


def xmllint(path, html=False):
    """None when xmllint accepts the file (gunzipped when .svgz), else its complaint."""
    data = open(path, "rb").read()
    if path.endswith(".svgz"):
        data = gzip.decompress(data)
    argv = ["xmllint", "--noout", "--nonet"] + (["--html"] if html else []) + ["-"]
    cp = subprocess.run(argv, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        timeout=60)
    if cp.returncode != 0 or (html and cp.stderr):
        return cp.stderr.decode("utf-8", "replace")[:500]
    return None


def check_delivery(acct, groups=("hourly", "daily"), tags=ENTRY_TAGS):
    """Every host's lines reach every group's `all` log and its entry point
    logs, exactly as many as its extensions report as sent."""
    sent = acct["sent_by_host"]
    logs = acct["logs"]
    assert not logs.bad_names, "unexpected file names: %r" % logs.bad_names
    assert not logs.torn, "files ending inside a line: %r" % logs.torn
    for group in groups:
        assert set(logs.tags(group)) == set(tags) | {"all"}, \
            "%s: tags %r" % (group, logs.tags(group))
        per_tag = acct["per_group"][group]
        all_ = per_tag["all"]
        assert set(all_) == set(sent), "%s/all: lines of unknown origin: %r" % (group, all_)
        for host, s in sent.items():
            assert all_[host]["lines"] == s["sent"], \
                "%s: %s sent %d lines, %s/all has %d" % (host, host, s["sent"], group, all_[host]["lines"])
            tagged = sum(per_tag[t].get(host, {}).get("lines", 0) for t in tags)
            assert tagged == s["sent"], "%s: %d lines in its entry point logs of %s, %d sent" % (
                host, tagged, group, s["sent"])
            for t in tags:
                assert per_tag[t].get(host, {}).get("lines", 0) > 0, \
                    "%s: no lines in %s/*.%s.log" % (host, group, t)
        assert not logs.tag_mismatches(group), logs.tag_mismatches(group)[:5]
    # hourly and daily hold the same samples
    samples = {g: sum(v["samples"] for v in acct["per_group"][g]["all"].values()) for g in groups}
    assert len(set(samples.values())) == 1, samples


def check_svgs(fleet, groups=("hourly", "daily"), tags=ENTRY_TAGS):
    """arclamp-svg renders every log into well-formed SVGs and an index page."""
    out = fleet.generate_svgs()
    data = fleet.arclamp.data_dir
    svgs = []
    for root, _, files in os.walk(str(data / "svgs")):
        svgs += [os.path.join(root, f) for f in files if f.endswith((".svg", ".svgz"))]
    assert svgs, "arclamp-svg generate wrote no graph:\n" + out
    for g in groups:
        names = os.listdir(str(data / "svgs" / g))
        for t in tags | {"all"}:
            assert any(n.endswith(".%s.svgz" % t) for n in names), "no %s graph for %s: %r" % (g, t, names)
            assert any(n.endswith(".%s.reversed.svgz" % t) for n in names), \
                "no reversed %s graph for %s" % (g, t)
    bad = [(p, e) for p in svgs for e in [xmllint(p)] if e]
    assert not bad, "malformed SVG: %r" % bad[:3]
    index = data / "index.html"
    assert index.exists(), "no index.html"
    err = xmllint(str(index), html=True)
    assert err is None, "index.html: " + err
    html = index.read_text()
    for t in tags:
        assert t in html, "index.html does not list %s" % t
    return svgs


def check_report_summaries(fleet, groups=("hourly", "daily")):
    """arclamp-report generate on tier2's run logs, and every summary sound:
    no incomplete run, no bad line, and no function whose inclusive wall
    time is above main()'s (`inclusive_over_main`, counted over the mean
    run). Returns {group: {entrypoint: runs}} ("all" included)."""
    fleet.arclamp.generate_reports()
    reports = fleet.arclamp.data_dir / "reports"
    rolled = {}
    for group in groups:
        rolled[group] = {}
        paths = sorted((reports / group / "summary").glob("*.json"))
        assert paths, "arclamp-report wrote no summary for %s" % group
        for p in paths:
            s = json.loads(p.read_text())
            assert s["incomplete"] == 0 and s["bad_lines"] == 0, (p.name, s)
            assert s["inclusive_over_main"] == 0, \
                "%s/%s: %d functions with an inclusive wt above main()'s: %r" % (
                    group, p.name, s["inclusive_over_main"], s)
            rolled[group][s["entrypoint"]] = rolled[group].get(s["entrypoint"], 0) + s["runs"]
    return rolled


def record_row(name, acct, loads, t0, note=""):
    hourly = acct["per_group"].get("hourly", {}).get("all", {})
    written = sum(v["lines"] for v in hourly.values())
    samples = sum(v["samples"] for v in hourly.values())
    return report.record(name, sent=acct["sent"], received=acct["received"], written=written,
                         invalid=acct["invalid"], samples=samples,
                         latencies=Fleet.latencies(loads), seconds=time.monotonic() - t0, note=note)


# Helpers of the fault scenarios


def wait_lines_flowing(fleet, load, lines=20, timeout=30):
    """Wait until arclamp-log has received `lines` lines of this load (so a
    fault lands mid-load); fails if the load ended first."""
    wait_until(lambda: fleet.arclamp.metric_sum("arclamp_log_lines_received_total") >= lines
               or not load.running(), timeout=timeout, what="%d lines received" % lines)
    assert load.running(), "the load ended before the fault"


def written_by_host(acct, group="hourly", tag="all"):
    return {h: v["lines"] for h, v in acct["per_group"][group].get(tag, {}).items()}


def assert_every_line_parses(logs):
    """No file ends inside a line and every line of every log parses."""
    assert not logs.torn, "files ending inside a line: %r" % logs.torn
    assert not logs.bad_names, logs.bad_names
    bad = [(k, line[:120]) for k, lines in logs.files.items() for line in lines
           if logs.parse(line) is None]
    assert not bad, "lines that do not parse: %r" % bad[:5]


def failures(acct):
    return sum(s["failed"] for s in acct["sent_by_host"].values())


def unheard_lines(acct):
    """Lines the extensions PUBLISHed while Redis had no subscriber."""
    return sum(s["unheard"] for s in acct["sent_by_host"].values())


def error_counts(acct):
    """The extensions' failed sends by kind (connect, timeout, send, reply), nonzero only."""
    errors = {}
    for s in acct["sent_by_host"].values():
        for k, v in s["errors"].items():
            if v:
                errors[k] = errors.get(k, 0) + v
    return errors

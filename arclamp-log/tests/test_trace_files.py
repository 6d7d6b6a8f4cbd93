"""Trace files: time buckets, open-file limits, idle closing."""

import calendar
import os
import time

from conftest import base_config, count_lines, lines_of, sample_line, send_unix
from testkit import metric, read_metrics, wait_until


def listing(directory):
    return sorted(os.listdir(str(directory)))


def test_bucket_change_opens_new_files_and_live_pruning_keeps_the_newest(daemon_factory, workdir):
    base = workdir / "logs"
    sock = workdir / "ingest.sock"
    fmt = "%Y-%m-%d_%H-%M-%S"
    cfg = base_config(workdir, listen=["unix://%s" % sock])
    cfg["logs"] = [{"period": "seconds", "format": fmt, "retain": 100},
                   {"period": "pruned", "format": fmt, "retain": 2}]
    d = daemon_factory(cfg).start()
    sent = []  # (line, earliest second, latest second)
    for i in range(8):
        line = sample_line(i, "bucket", entry=0)
        t0 = time.time()
        send_unix(sock, [line])
        wait_until(lambda: line in lines_of(base, "seconds") or
                   line in lines_of(base, "seconds", "index"), what="line %d" % i)
        t1 = time.time()
        sent.append((line, int(t0), int(t1)))
        time.sleep(0.3)  # spread the lines over several one-second buckets
    assert d.stop() == 0

    files = tags_in_dir(base / "seconds")
    assert len(files["all"]) >= 3, files
    for line, lo, hi in sent:
        holders = [n for n in files["all"] if line in (base / "seconds" / n).read_bytes().split(b"\n")]
        assert len(holders) == 1, (line, holders)
        bucket = calendar.timegm(time.strptime(holders[0].split(".")[0], fmt))
        assert lo <= bucket <= hi, (holders[0], lo, hi)
    pruned = tags_in_dir(base / "pruned")
    assert len(pruned["all"]) == 2 and len(pruned["index"]) == 2, pruned
    assert pruned["all"] == sorted(files["all"])[-2:]


def tags_in_dir(directory):
    out = {}
    for name in listing(directory):
        parts = name.split(".")
        if len(parts) == 3 and parts[2] == "log":
            out.setdefault(parts[1], []).append(name)
    return {k: sorted(v) for k, v in out.items()}


def tagged_line(tag, seq):
    return ("/srv/mediawiki/w/%s.php;Entry::run;leaf_%d 1" % (tag, seq)).encode()


def test_more_tags_than_max_open_files_every_line_lands_in_its_file(daemon_factory, workdir):
    base = workdir / "logs"
    sock = workdir / "ingest.sock"
    cfg = base_config(workdir, listen=["unix://%s" % sock], max_open_files=4)
    cfg["logs"] = [{"period": "daily", "format": "%Y-%m-%d", "retain": 5}]
    d = daemon_factory(cfg).start()
    tags = ["ep%02d" % i for i in range(20)]
    # two rounds over 20 tags with at most 4 files open: files are closed and reopened
    for rnd in range(2):
        send_unix(sock, [tagged_line(t, rnd) for t in tags])
        wait_until(lambda: count_lines(base, "daily") >= 20 * (rnd + 1),
                   what="round %d" % rnd, describe=lambda: count_lines(base, "daily"))
        m = read_metrics(workdir / "metrics.prom")
        assert metric(m, "arclamp_log_open_files") <= 4
    assert d.stop() == 0
    for t in tags:
        assert lines_of(base, "daily", t) == [tagged_line(t, 0), tagged_line(t, 1)], t
    assert sorted(lines_of(base, "daily")) == sorted(tagged_line(t, r) for t in tags
                                                     for r in range(2))


def test_idle_files_are_closed_and_later_lines_append(daemon_factory, workdir):
    base = workdir / "logs"
    sock = workdir / "ingest.sock"
    cfg = base_config(workdir, listen=["unix://%s" % sock], close_idle_after=1)
    cfg["logs"] = [{"period": "daily", "format": "%Y-%m-%d", "retain": 5}]
    d = daemon_factory(cfg).start()
    send_unix(sock, [tagged_line("index", 1)])
    wait_until(lambda: metric(read_metrics(workdir / "metrics.prom"),
                              "arclamp_log_open_files") == 2, what="2 files open")
    wait_until(lambda: metric(read_metrics(workdir / "metrics.prom"),
                              "arclamp_log_open_files") == 0, what="idle files closed")
    # the daemon holds no trace log open any more
    fds = [os.readlink("/proc/%d/fd/%s" % (d.pid, fd)) for fd in os.listdir("/proc/%d/fd" % d.pid)]
    assert not [f for f in fds if f.startswith(str(base))], fds
    send_unix(sock, [tagged_line("index", 2)])
    wait_until(lambda: count_lines(base, "daily", "index") == 2, what="second line")
    assert d.stop() == 0
    assert lines_of(base, "daily", "index") == [tagged_line("index", 1), tagged_line("index", 2)]

"""Hierarchical runs: xhprof/1 and xhprof/2 lines from Redis (pub/sub and
streams) and the daemon's own unix and UDP sockets are put back together
and written, whole and contiguous, once per log group: to
<bucket>.<tag>.runs, or <bucket>.all.runs for a run without an entry point
tag; bad lines (names past the cap too) and incomplete runs (in version 2
also runs whose arcs use undefined function ids) are counted, never
written; run logs are retained per tag apart from the trace logs. The last
tests send real runs from PHP: names and paths of any bytes, names past
the cap, a host name in invalid UTF-8."""

import glob
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import base_config, free_port, lines_of, log_files, send_udp, send_unix
from testkit import REPO_ROOT, metric, metric_sum, read_metrics, wait_until

MESSAGE_MAX = 64000  # what the extension puts in one message at most
HPROF_MAX_BYTES = 2097152  # the extension's default excimer.hprof_max_bytes
RUN_LINE = re.compile(rb"^xhprof/([12]) ([A-Za-z0-9_-]{1,64}) (begin|arc|end|fn)( .*)?$")


# --------------------------------------------------------------------------
# Runs as the extension sends them


def run_lines(runid, entry, narcs, key_pad=30):
    """The lines of one run: begin, `narcs` arcs (heaviest first), end."""
    rid = runid.encode()
    lines = [b"xhprof/1 %s begin %d web1 wt,cpu,mu,pmu %s" % (rid, int(time.time()),
                                                              entry.encode())]
    for i in range(narcs):
        key = b"Fn%d==>Fn%d%s" % (i, i + 1, b"x" * key_pad)
        lines.append(b"xhprof/1 %s arc %d %d %d %d -%d %s" % (rid, i % 7 + 1, 100000 - i,
                                                            90000 - i, 64 * i, i, key))
    lines.append(b"xhprof/1 %s end %d 0" % (rid, narcs))
    return lines


def escape(raw):
    """A name or entry as the format carries it: %, CR, LF, NUL as %XX."""
    for c in (b"%", b"\r", b"\n", b"\0"):
        raw = raw.replace(c, b"%%%02X" % c[0])
    return raw


def v2_names(n, pad=0):
    """MediaWiki-like printed names, main() first, some hostile."""
    names = [b"main()"]
    hostile = [b"a\0b", b"line\nbreak\r", b"100%", b"x==>y", b"{closure}",
               b"class@anonymous\0/srv/x.php:3$0", b"caf\xc3\xa9::na\xc3\xafve"]
    for i in range(1, n):
        if i <= len(hostile):
            names.append(hostile[i - 1])
        else:
            names.append(b"MediaWiki\\Storage\\Layer%d\\Service%d::method%d%s" % (
                i % 13, i % 97, i, b"x" * pad))
    return names


def v2_run_lines(runid, entry, narcs, key_pad=0, names=None):
    """The lines of one version 2 run: begin, fn lines before the first arc
    that uses them, `narcs` arcs (the root, then a chain with levels),
    end. Also returns the v1 keys its arcs stand for, in order."""
    rid = runid.encode()
    names = names or v2_names(max(2, narcs // 3 + 2), key_pad)
    lines = [b"xhprof/2 %s begin %d web1 wt,cpu,mu,pmu %s" % (rid, int(time.time()),
                                                              escape(entry.encode()))]
    defined, keys = set(), []

    def fn(i):
        if i not in defined:
            defined.add(i)
            lines.append(b"xhprof/2 %s fn %d %s" % (rid, i, escape(names[i])))

    def ref(i, level):
        return b"%d@%d" % (i, level) if level else b"%d" % i

    for a in range(narcs):
        # the root, then a chain through the names, a level deeper each lap
        n = len(names)
        caller, cl = (None, 0) if a == 0 else ((a - 1) % n, (a - 1) // n)
        callee, clevel = a % n, a // n
        if caller is not None:
            fn(caller)
        fn(callee)
        lines.append(b"xhprof/2 %s arc %d %d %d %d -%d %s %s" % (
            rid, a % 7 + 1, 100000 - a, 90000 - a, 64 * a, a,
            b"-" if caller is None else ref(caller, cl), ref(callee, clevel)))
        key = (b"" if caller is None else names[caller] + (b"@%d" % cl if cl else b"") + b"==>")
        keys.append(key + names[callee] + (b"@%d" % clevel if clevel else b""))
    lines.append(b"xhprof/2 %s end %d 0" % (rid, narcs))
    return lines, keys


def split_messages(lines, limit=MESSAGE_MAX):
    """Whole lines, at most `limit` bytes a message (as the extension splits)."""
    out, cur = [], b""
    for line in lines:
        if cur and len(cur) + len(line) + 1 > limit:
            out.append(cur)
            cur = b""
        cur += line + b"\n"
    if cur:
        out.append(cur)
    return out


def interleave(*queues):
    """Round robin over lists of messages."""
    out, queues = [], [list(q) for q in queues]
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out


# --------------------------------------------------------------------------
# Run logs as a reader sees them


def parse_run_log(path):
    """The runs of a run log as [(runid, [lines])], checking what a reader
    may rely on: whole lines, only complete runs, each contiguous (its begin
    line, its arc lines, its end line) with as many arcs as the end says."""
    data = Path(path).read_bytes()
    assert data == b"" or data.endswith(b"\n"), "%s ends inside a line" % path
    runs, cur = [], None
    for line in data.split(b"\n")[:-1]:
        m = RUN_LINE.match(line)
        assert m, "%s: not a run line: %r" % (path, line[:120])
        runid, kind = m.group(2), m.group(3)
        if kind == b"begin":
            assert cur is None, "%s: run %r begins inside run %r" % (path, runid, cur[0])
            cur = (runid.decode(), [line])
            continue
        assert cur is not None and cur[0] == runid.decode(), \
            "%s: %s line of %r outside its run" % (path, kind, runid)
        cur[1].append(line)
        if kind == b"end":
            sent = int(line.split(b" ")[3])
            arcs = sum(1 for l in cur[1] if l.split(b" ", 3)[2] == b"arc")
            assert arcs == sent, "%s: run %r has %d arcs, its end says %d" % (
                path, runid, arcs, sent)
            runs.append(cur)
            cur = None
    assert cur is None, "%s: run %r is not complete" % (path, cur[0])
    return runs


def run_files(base, period, tag=None):
    return sorted(glob.glob(os.path.join(str(base), period, "*.%s.runs" % (tag or "*"))))


def runs_in(base, period, tag=None):
    """{runid: lines} of every run log of a group and tag (a test may cross
    an hour: then there are two buckets); without a tag, of all of them: the
    `all` view, in which every run must be once (the daemon writes a run to
    one run log per group)."""
    out = {}
    for path in run_files(base, period, tag):
        for runid, lines in parse_run_log(path):
            assert runid not in out, "run %s written twice" % runid
            out[runid] = lines
    return out


def metrics_of(workdir):
    return read_metrics(workdir / "metrics.prom")


def wait_metric(workdir, name, value, **labels):
    wait_until(lambda: metric(metrics_of(workdir), name, **labels) >= value,
               what="%s%s >= %s" % (name, labels or "", value),
               describe=lambda: {k[0]: v for k, v in metrics_of(workdir).items()
                                 if "run" in k[0]})


def publish(redis, channel, payloads):
    with redis.client() as c:
        for p in payloads:
            c.command("PUBLISH", channel, p)


def socket_config(workdir, **over):
    sock = workdir / "ingest.sock"
    cfg = base_config(workdir, listen=["unix://%s" % sock], **over)
    return cfg, sock


# --------------------------------------------------------------------------
# Tests


def test_runs_split_over_messages_and_interleaved_arrive_complete(
        redis_server, daemon_factory, workdir):
    cfg, sock = socket_config(workdir, redis=redis_server)
    del cfg["redis_channel"]  # the default: excimer, and xhprof with Redis
    d = daemon_factory(cfg).start()
    redis_server.wait_subscribed("xhprof")
    redis_server.wait_subscribed("excimer")

    big = run_lines("0f1e2d3c4b5a6978", "/srv/mediawiki/php-1.44/index.php", 3000)
    mid = run_lines("run-api", "/srv/mediawiki/php-1.44/api.php", 1500, key_pad=60)
    bare = run_lines("run_sh", "/usr/local/bin/maintenance", 400)  # no tag
    small = run_lines("small", "/srv/mediawiki/php-1.44/index.php", 3)
    assert len(split_messages(big)) >= 4 and len(split_messages(mid)) >= 2
    samples = [b"/srv/mediawiki/php-1.44/index.php;main;leaf_%d %d" % (i, i + 1)
               for i in range(40)]

    # Redis (channel xhprof): two runs' messages alternating, samples between
    publish(redis_server, "xhprof", interleave(split_messages(big), split_messages(mid)))
    publish(redis_server, "excimer", [b"\n".join(samples[:20])])
    # the socket: a run split in three with samples inside its messages, and
    # a small run sharing a datagram with the end of it
    parts = split_messages(bare, limit=len(b"\n".join(bare)) // 3 + 200)
    assert len(parts) >= 3
    parts[0] = samples[20] + b"\n" + parts[0]
    parts[1] = parts[1] + b"\n".join(samples[21:30]) + b"\n"
    parts[-1] = parts[-1] + b"\n".join(small) + b"\n" + b"\n".join(samples[30:]) + b"\n"
    send_unix(sock, parts)

    wait_metric(workdir, "arclamp_log_runs_written_total", 4, group="daily")
    assert d.stop() == 0
    base = workdir / "logs"
    want = {"0f1e2d3c4b5a6978": big, "run-api": mid, "run_sh": bare, "small": small}
    for period in ("hourly", "daily"):
        assert runs_in(base, period) == want
        assert runs_in(base, period, "index") == {k: want[k] for k in ("0f1e2d3c4b5a6978", "small")}
        assert runs_in(base, period, "api") == {"run-api": mid}
        assert runs_in(base, period, "all") == {"run_sh": bare}  # no entry point tag
        tags = {os.path.basename(p).split(".")[1] for p in glob.glob(str(base / period / "*.runs"))}
        assert tags == {"all", "index", "api"}
        # samples go to trace logs only, run lines never do
        assert sorted(lines_of(base, period)) == sorted(samples)
        for path in log_files(base, period):
            assert b"xhprof/1" not in Path(path).read_bytes()
    m = metrics_of(workdir)
    assert metric(m, "arclamp_log_runs_received_total") == 4
    assert metric(m, "arclamp_log_runs_written_total", group="hourly") == 4
    assert metric_sum(m, "arclamp_log_runs_dropped_total") == 0
    assert metric_sum(m, "arclamp_log_run_lines_invalid_total") == 0
    assert metric(m, "arclamp_log_runs_pending") == 0
    assert metric(m, "arclamp_log_lines_received_total") == len(samples)


HOSTILE = [
    # (line, reason it is refused)
    (b"xhprof/1 ../x begin 1700000000 web1 wt /srv/index.php", "bad_runid"),
    (b"xhprof/1 ../../etc/passwd arc 1 1 - - - main()", "bad_runid"),
    (b"xhprof/1 " + b"r" * 65 + b" end 0 0", "bad_runid"),
    (b"xhprof/1 h1 begin 1700000000 web1 wt /srv/<script>\x07</script>.php", "bad_text"),
    (b"xhprof/1 h1 arc 1 1 - - - main()==>f\x00oo", "bad_text"),
    (b"xhprof/1 h1 arc 1 1 - - - main()==>%0", "bad_text"),
    (b"xhprof/1 h1 arc 1 1 - - - caf\xc3", "bad_text"),
    (b"xhprof/1 h1 begin 1700000000 web1 wt,gpu /srv/index.php", "bad_text"),
    (b"xhprof/1 h1 arc 99999999999999999999 1 - - - main()", "bad_number"),
    (b"xhprof/1 h1 arc 1 -5 - - - main()", "bad_number"),
    (b"xhprof/1 h1 end 1e9 0", "bad_number"),
    (b"xhprof/1 h1 arc 1", "bad_record"),
    (b"xhprof/1 h1 begin 1700000000 web1 wt", "bad_record"),
    (b"xhprof/1 h1 end 1 0 trailing", "bad_record"),
    (b"xhprof/1 h1 fork 1 0", "bad_record"),
    # version 2: the same bounds, and its own fields
    (b"xhprof/2 ../x fn 1 f", "bad_runid"),
    (b"xhprof/1 h1 fn 1 f", "bad_record"),           # no fn lines in version 1
    (b"xhprof/2 h1 fn 1", "bad_record"),
    (b"xhprof/2 h1 arc 1 1 - - - 1", "bad_record"),
    (b"xhprof/2 h1 arc 1 1 - - - 1 2 3", "bad_record"),
    (b"xhprof/2 h1 fn 2147483648 f", "bad_number"),  # past 2^31-1
    (b"xhprof/2 h1 fn 01 f", "bad_number"),
    (b"xhprof/2 h1 arc 1 1 - - - 1 2@0", "bad_number"),
    (b"xhprof/2 h1 arc 1 1 - - - main()==>f", "bad_number"),
    (b"xhprof/2 h1 fn 1 f\x00oo", "bad_text"),
    (b"xhprof/2 h1 fn 1 <b>%zz</b>", "bad_text"),
]


def test_hostile_run_lines_are_counted_and_nothing_else_is_lost(daemon_factory, workdir):
    cfg, sock = socket_config(workdir, max_line_bytes=4096)
    d = daemon_factory(cfg).start()
    # a valid run whose names carry markup and escaped NUL/LF: written, to all only
    odd = [b"xhprof/1 odd begin 1700000000 web1 wt /srv/<script>alert(1)</script>%00%0A.php",
           b"xhprof/1 odd arc 1 5 - - - main()==><img src=x onerror=alert(1)>%25",
           b"xhprof/1 odd end 1 0"]
    ok = run_lines("fine", "/srv/mediawiki/index.php", 20)
    samples = [b"/srv/mediawiki/index.php;main;ok_%d 1" % i for i in range(10)]
    hostile = [line for line, _ in HOSTILE]
    too_long = b"xhprof/1 h2 arc 1 1 - - - " + b"k" * 5000
    too_long_fn = b"xhprof/2 h2 fn 1 " + b"k" * 5000
    payloads = [
        b"\n".join(samples[:5] + hostile[:8] + ok[:10]),
        b"\n".join(hostile[8:] + [too_long, too_long_fn] + ok[10:] + odd + samples[5:]),
        # lines of runs never begun, and an end for one
        b"xhprof/1 ghost arc 1 1 - - - main()\nxhprof/1 ghost arc 1 1 - - - f\n"
        b"xhprof/1 ghost end 2 0",
        b"xhprof/1",   # the prefix without its space: a sample line with no count
    ]
    send_unix(sock, payloads)
    wait_metric(workdir, "arclamp_log_runs_written_total", 2, group="daily")
    wait_metric(workdir, "arclamp_log_runs_dropped_total", 1, reason="no_begin")
    assert d.stop() == 0

    m = metrics_of(workdir)
    want = {}
    for _, reason in HOSTILE:
        want[reason] = want.get(reason, 0) + 1
    want["too_long"] = 2
    for reason in ("bad_runid", "bad_record", "bad_number", "bad_text", "too_long"):
        assert metric(m, "arclamp_log_run_lines_invalid_total", reason=reason) == want[reason], \
            reason
    assert metric(m, "arclamp_log_runs_dropped_total", reason="no_begin") == 1  # once per run
    assert metric_sum(m, "arclamp_log_runs_dropped_total") == 1
    assert metric(m, "arclamp_log_runs_received_total") == 2
    assert metric(m, "arclamp_log_lines_invalid_total", reason="no_count") == 1
    assert metric_sum(m, "arclamp_log_lines_invalid_total") == 1

    base = workdir / "logs"
    for period in ("hourly", "daily"):
        assert runs_in(base, period) == {"odd": odd, "fine": ok}
        assert runs_in(base, period, "index") == {"fine": ok}
        assert runs_in(base, period, "all") == {"odd": odd}
        assert sorted(lines_of(base, period)) == sorted(samples)
    # nothing but trace logs and run logs of the two groups, all below base_path
    made = sorted(os.path.relpath(os.path.join(r, f), str(workdir))
                  for r, _, fs in os.walk(str(workdir)) for f in fs)
    for rel in made:
        assert rel in ("arclamp-log.yaml", "arclamp-log.stderr", "metrics.prom", "ingest.sock",
                       "notify.sock") or re.match(r"^logs/(hourly|daily)/[0-9_-]+\.(all|index)"
                                                  r"\.(log|runs)$", rel), rel
    assert "invalid_run_lines" in d.stderr_text()
    assert d.stderr_text().count("runs_dropped") <= 2  # reported at a limited rate


NAME_MAX = 4096  # RUNLINE_MAX_NAME_BYTES (common/src/runline.h), decoded
KEY_MAX = 2 * NAME_MAX + 3 + 2 * 11  # RUNLINE_MAX_KEY_BYTES


def test_names_past_the_cap_are_refused_and_counted(daemon_factory, workdir):
    """A name (fn NAME, ENTRY) past 4,096 bytes once decoded, or a version 1
    KEY past two of them, is refused as long_name — and with it its run —
    counted and logged; names at the cap, however escaped, go through, and
    so does everything else in the same messages."""
    cfg, sock = socket_config(workdir)
    d = daemon_factory(cfg).start()
    # at the cap: written (escaped names count once decoded)
    at_cap, _ = v2_run_lines("atcap", "/srv/w/index.php", 6,
                             names=[b"main()", b"n" * NAME_MAX, b"\t" * NAME_MAX,
                                    b"\xc3\xa9" * (NAME_MAX // 2)])
    at_cap = [l.replace(b"\t", b"%09") for l in at_cap]
    key_cap = run_lines("keycap", "/" + "p" * (NAME_MAX - 1), 1)
    key_cap[1] = key_cap[1].rsplit(b" ", 1)[0] + b" " + b"k" * KEY_MAX
    # one past: refused, and the run with it
    long_fn, _ = v2_run_lines("longfn", "/srv/w/index.php", 6,
                              names=[b"main()", b"f", b"%" * (NAME_MAX + 1), b"g"])
    long_key = run_lines("longkey", "/srv/w/index.php", 3)
    long_key[2] = long_key[2].rsplit(b" ", 1)[0] + b" " + b"k" * (KEY_MAX + 1)
    long_entry = run_lines("longentry", "/" + "p" * NAME_MAX, 2)
    send_unix(sock, [b"\n".join(at_cap + long_fn + key_cap),
                     b"\n".join(long_key + long_entry)])
    wait_metric(workdir, "arclamp_log_runs_written_total", 2, group="daily")
    wait_metric(workdir, "arclamp_log_runs_dropped_total", 1, reason="no_begin")
    wait_metric(workdir, "arclamp_log_runs_dropped_total", 1, reason="arcs_missing")
    wait_metric(workdir, "arclamp_log_runs_dropped_total", 1, reason="bad_ids")
    assert d.stop() == 0
    m = metrics_of(workdir)
    assert metric(m, "arclamp_log_run_lines_invalid_total", reason="long_name") == 3
    assert metric_sum(m, "arclamp_log_run_lines_invalid_total") == 3
    assert metric_sum(m, "arclamp_log_runs_dropped_total") == 3
    for period in ("hourly", "daily"):
        assert runs_in(workdir / "logs", period) == {"atcap": at_cap, "keycap": key_cap}
    assert re.search(r"invalid_run_lines.*long_name=[123]", d.stderr_text()), d.stderr_text()


def test_run_without_its_end_is_dropped_after_run_timeout(daemon_factory, workdir):
    cfg, sock = socket_config(workdir, run_timeout=0.5)
    d = daemon_factory(cfg).start()
    lost = run_lines("noend", "/srv/mediawiki/index.php", 50)[:-1]
    send_unix(sock, split_messages(lost, limit=1000))
    wait_metric(workdir, "arclamp_log_runs_received_total", 1)
    wait_metric(workdir, "arclamp_log_runs_dropped_total", 1, reason="timeout")
    m = metrics_of(workdir)
    assert metric(m, "arclamp_log_runs_pending") == 0
    # a complete run afterwards is written as usual
    ok = run_lines("later", "/srv/mediawiki/index.php", 5)
    send_unix(sock, [b"\n".join(ok)])
    wait_metric(workdir, "arclamp_log_runs_written_total", 1, group="hourly")
    assert d.stop() == 0
    base = workdir / "logs"
    assert runs_in(base, "hourly") == {"later": ok}
    assert metric_sum(metrics_of(workdir), "arclamp_log_runs_dropped_total") == 1
    assert "noend" in d.stderr_text()  # the drop was logged with its example


def test_bounds_drop_big_runs_and_push_out_old_ones(daemon_factory, workdir):
    cfg, sock = socket_config(workdir, max_run_bytes=16384, max_pending_runs=3)
    d = daemon_factory(cfg).start()
    big = run_lines("big", "/srv/mediawiki/index.php", 400)           # ~40 KB
    olds = [run_lines("old%d" % i, "/srv/mediawiki/api.php", 2) for i in range(4)]
    fine = run_lines("fine", "/srv/mediawiki/index.php", 10)
    send_unix(sock, split_messages(big, limit=4000))
    # four runs begun before any ends: the oldest is pushed out
    send_unix(sock, [b"\n".join(o[:-1]) for o in olds] + [b"\n".join(o[-1:]) for o in olds])
    send_unix(sock, [b"\n".join(fine)])
    wait_metric(workdir, "arclamp_log_runs_written_total", 4, group="hourly")
    wait_metric(workdir, "arclamp_log_runs_dropped_total", 1, reason="pending_limit")
    assert d.stop() == 0
    m = metrics_of(workdir)
    assert metric(m, "arclamp_log_runs_dropped_total", reason="too_big") == 1
    # the pushed-out run's end came later: a run without its begin now
    assert metric(m, "arclamp_log_runs_dropped_total", reason="no_begin") == 1
    assert set(runs_in(workdir / "logs", "hourly")) == {"old1", "old2", "old3", "fine"}


def test_run_logs_are_retained_per_tag_apart_from_trace_logs(daemon_factory, workdir):
    hourly = workdir / "logs" / "hourly"
    hourly.mkdir(parents=True)
    old = time.time() - 86400 * 30
    for i, h in enumerate(("2020-01-01_01", "2020-01-01_02", "2020-01-01_03", "2020-01-01_04")):
        for name in ("all.runs", "index.runs", "all.log", "index.log"):
            p = hourly / ("%s.%s" % (h, name))
            p.write_bytes(b"")
            os.utime(str(p), (old + i, old + i))
    cfg, sock = socket_config(workdir, logs=[{"period": "hourly", "format": "%Y-%m-%d_%H",
                                              "retain": 2}])
    d = daemon_factory(cfg).start()
    send_unix(sock, [b"\n".join(run_lines("r", "/srv/mediawiki/index.php", 2)),
                     b"\n".join(run_lines("s", "/usr/local/bin/job", 2))])  # no tag: all
    wait_metric(workdir, "arclamp_log_runs_written_total", 2, group="hourly")
    assert d.stop() == 0
    names = sorted(os.listdir(str(hourly)))
    for tag in ("all", "index"):
        kept = [n for n in names if n.endswith(".%s.runs" % tag)]
        assert len(kept) == 2 and "2020-01-01_04.%s.runs" % tag in kept, names
        assert len([n for n in names if n.endswith(".%s.log" % tag)]) == 4, names
    assert metric(metrics_of(workdir), "arclamp_log_files_pruned_total") == 6


def test_stream_entries_of_runs_are_acknowledged_once_taken(redis_server, daemon_factory,
                                                           workdir):
    cfg = base_config(workdir, redis=redis_server, redis_channels=["xhprof"])
    cfg["redis"].update(mode="stream", stream_consumer="runs-test")
    run = run_lines("streamed", "/srv/mediawiki/index.php", 2000)
    parts = split_messages(run)
    assert len(parts) >= 3
    d = daemon_factory(cfg).start()
    with redis_server.client() as c:
        for p in parts:
            c.command("XADD", "xhprof", "*", "sample", p)
    wait_metric(workdir, "arclamp_log_runs_written_total", 1, group="daily")

    def settled():
        with redis_server.client() as c:
            return int(c.command("XPENDING", "xhprof", "arclamp-log")[0]) == 0 and \
                int(c.command("XLEN", "xhprof")) == 0
    wait_until(settled, what="every entry acknowledged and deleted")
    # a run whose end never comes does not hold its entries in Redis
    with redis_server.client() as c:
        c.command("XADD", "xhprof", "*", "sample", b"\n".join(run_lines("cut", "/x.php", 3)[:-1]))
    wait_metric(workdir, "arclamp_log_runs_received_total", 2)
    wait_until(settled, what="the incomplete run's entry acknowledged")
    assert d.stop() == 0  # pending when stopped: lost, and counted
    assert metric(metrics_of(workdir), "arclamp_log_runs_dropped_total", reason="stopped") == 1
    assert runs_in(workdir / "logs", "daily") == {"streamed": run}


def test_reload_counts_the_runs_in_flight(daemon_factory, workdir):
    cfg, sock = socket_config(workdir)
    d = daemon_factory(cfg).start()
    send_unix(sock, [b"\n".join(run_lines("inflight", "/srv/index.php", 3)[:-1])])
    wait_metric(workdir, "arclamp_log_runs_received_total", 1)
    start = len(d.notify)
    d.signal(signal.SIGHUP)
    d.notify.wait_for("READY=1", start=start, alive=d.alive)
    wait_metric(workdir, "arclamp_log_runs_dropped_total", 1, reason="stopped")
    assert metric(metrics_of(workdir), "arclamp_log_runs_pending") == 0
    assert d.stop() == 0


# --------------------------------------------------------------------------
# Version 2 through every transport


def transport_daemon(kind, redis_server, daemon_factory, workdir):
    """A daemon reading runs from one transport, and a function sending a
    list of messages through it."""
    if kind in ("pubsub", "stream"):
        cfg = base_config(workdir, redis=redis_server, redis_channels=["xhprof"])
        if kind == "stream":
            cfg["redis"].update(mode="stream", stream_consumer="v2-test")
        d = daemon_factory(cfg).start()
        if kind == "pubsub":
            redis_server.wait_subscribed("xhprof")
            return d, lambda msgs: publish(redis_server, "xhprof", msgs)

        def xadd(msgs):
            with redis_server.client() as c:
                for m in msgs:
                    c.command("XADD", "xhprof", "*", "sample", m)
        return d, xadd
    if kind == "unix":
        cfg, sock = socket_config(workdir)
        return daemon_factory(cfg).start(), lambda msgs: send_unix(sock, msgs)
    port = free_port(socket.SOCK_DGRAM)
    cfg = base_config(workdir, listen=["udp://127.0.0.1:%d" % port])
    return daemon_factory(cfg).start(), lambda msgs: send_udp(port, msgs)


@pytest.mark.parametrize("kind", ["pubsub", "stream", "unix", "udp"])
def test_v2_runs_arrive_whole_through_every_transport(kind, redis_server, daemon_factory,
                                                      workdir):
    """Version 2 runs split over messages, interleaved with a version 1 run
    and samples, are written as sent, once per group; a run whose arc uses
    an id no fn line defined, and one that defines an id twice, are refused
    whole (bad_ids), everything else goes on."""
    d, send = transport_daemon(kind, redis_server, daemon_factory, workdir)
    big, _ = v2_run_lines("v2big", "/srv/mediawiki/php-1.44/index.php", 4000, key_pad=40)
    bare, _ = v2_run_lines("v2bare", "/usr/local/bin/maintenance", 30)  # no tag
    old = run_lines("v1old", "/srv/mediawiki/php-1.44/api.php", 500)
    undefined, _ = v2_run_lines("v2undef", "/srv/mediawiki/index.php", 50)
    undefined = [l for l in undefined if b" fn 9 " not in l]  # arcs still use id 9
    twice, _ = v2_run_lines("v2twice", "/srv/mediawiki/index.php", 50)
    twice.insert(-1, b"xhprof/2 v2twice fn 3 again")
    samples = [b"/srv/mediawiki/php-1.44/index.php;main;leaf_%d 1" % i for i in range(10)]
    assert len(split_messages(big)) >= 3
    msgs = interleave(split_messages(big), split_messages(old), split_messages(undefined),
                      split_messages(twice))
    msgs.insert(1, b"\n".join(samples) + b"\n" + b"\n".join(bare))
    send(msgs)
    wait_metric(workdir, "arclamp_log_runs_written_total", 3, group="daily")
    wait_metric(workdir, "arclamp_log_runs_dropped_total", 2, reason="bad_ids")
    assert d.stop() == 0
    base = workdir / "logs"
    for period in ("hourly", "daily"):
        assert runs_in(base, period) == {"v2big": big, "v2bare": bare, "v1old": old}
        assert runs_in(base, period, "index") == {"v2big": big}
        assert runs_in(base, period, "api") == {"v1old": old}
        assert runs_in(base, period, "all") == {"v2bare": bare}
        assert sorted(lines_of(base, period)) == sorted(samples)
    m = metrics_of(workdir)
    assert metric(m, "arclamp_log_runs_received_total") == 5
    assert metric_sum(m, "arclamp_log_runs_dropped_total") == 2
    assert metric_sum(m, "arclamp_log_run_lines_invalid_total") == 0
    assert "bad_ids" in d.stderr_text() and "runs_dropped" in d.stderr_text()


def test_runs_at_the_extensions_default_cap_are_written_whole(daemon_factory, workdir):
    """With the daemon's defaults, a run as large as the extension's default
    cap (excimer.hprof_max_bytes: 2 MiB of lines) goes through whole, in
    either version, and its one copy per group is all that is written."""
    cfg, sock = socket_config(workdir)
    d = daemon_factory(cfg).start()
    runs = {}
    for version, runid in ((2, "capv2"), (1, "capv1")):
        n = 1000
        while True:  # the largest run within the cap (the end line included)
            lines = (v2_run_lines(runid, "/srv/w/index.php", n, key_pad=20)[0] if version == 2
                     else run_lines(runid, "/srv/w/index.php", n, key_pad=60))
            if len(b"\n".join(lines)) > HPROF_MAX_BYTES:
                break
            runs[runid], n = lines, n + 100
        assert len(b"\n".join(runs[runid])) > HPROF_MAX_BYTES - 20000
        send_unix(sock, split_messages(runs[runid]))
    wait_metric(workdir, "arclamp_log_runs_written_total", 2, group="daily")
    assert d.stop() == 0
    for period in ("hourly", "daily"):
        assert runs_in(workdir / "logs", period) == runs
    m = metrics_of(workdir)
    assert metric_sum(m, "arclamp_log_runs_dropped_total") == 0
    stored = sum(len(b"\n".join(l)) + 1 for l in runs.values())
    assert metric(m, "arclamp_log_bytes_written_total") == 2 * stored  # hourly and daily


# --------------------------------------------------------------------------
# End to end with PHP


def excimer_so():
    """The built extension: ARCLAMP_EXCIMER_SO (make log-tests sets it, and
    then it must exist), else build/php/excimer.so when built."""
    given = os.environ.get("ARCLAMP_EXCIMER_SO")
    path = Path(given) if given else REPO_ROOT / "build" / "php" / "excimer.so"
    if not path.is_absolute():
        path = REPO_ROOT / path
    if not path.exists():
        if given:
            pytest.fail("ARCLAMP_EXCIMER_SO=%s does not exist" % given)
        pytest.skip("build/php/excimer.so is not built (make build/php/excimer.so)")
    return str(path)


def test_php_request_sends_one_complete_run_to_the_run_log(daemon_factory, workdir):
    so = excimer_so()
    cfg, sock = socket_config(workdir)
    d = daemon_factory(cfg).start()
    script = workdir / "index.php"
    script.write_text("<?php\n"
                      "function leaf($i) { return str_repeat('x', $i % 7); }\n"
                      "function work() { $s = ''; for ($i = 0; $i < 200; $i++) "
                      "{ $s .= leaf($i); } return strlen($s); }\n"
                      "echo work(), \"\\n\";\n")
    ini = {"excimer.hprof_sample_rate": "1",
           "excimer.hprof_target": "unix://%s" % sock,
           "excimer.arclamp_send_delay": "0"}
    cmd = ["php", "-n", "-d", "extension=%s" % so]
    for k, v in ini.items():
        cmd += ["-d", "%s=%s" % (k, v)]
    out = subprocess.run(cmd + [str(script)], stdin=subprocess.DEVNULL, capture_output=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() != b""
    wait_metric(workdir, "arclamp_log_runs_written_total", 1, group="hourly")
    assert d.stop() == 0
    base = workdir / "logs"
    runs = runs_in(base, "hourly")
    assert len(runs) == 1
    (runid, lines), = runs.items()
    begin, end = lines[0].split(b" "), lines[-1].split(b" ")
    assert begin[0] == b"xhprof/2" and begin[2] == b"begin"  # the extension sends version 2
    assert lines[0].endswith(b" " + os.path.realpath(str(script)).encode())  # ENTRY
    names = {f[3]: f[4] for f in (l.split(b" ", 4) for l in lines[1:-1]) if f[2] == b"fn"}
    arcs = [l.split(b" ") for l in lines[1:-1] if l.split(b" ")[2] == b"arc"]
    assert end[2] == b"end" and int(end[3]) == len(arcs)  # ARCS_SENT
    assert int(end[4]) == 0  # nothing left out
    keys = {names[a[9]] if a[8] == b"-" else names[a[8]] + b"==>" + names[a[9]] for a in arcs}
    assert b"work==>leaf" in keys and b"leaf==>str_repeat" in keys
    assert runs_in(base, "hourly", "index") == runs
    assert metric_sum(metrics_of(workdir), "arclamp_log_run_lines_invalid_total") == 0


def unescape(text):
    return re.sub(rb"%([0-9A-F]{2})", lambda m: bytes([int(m.group(1), 16)]), text)


def php_run_to_daemon(daemon_factory, workdir, script, hostname=None):
    """Runs `script` (a path, bytes allowed) under the built extension,
    every request profiled and sent to a daemon (with `hostname`: in a UTS
    namespace of its own with that host name); returns the one run the
    daemon wrote, as (raw lines, {id: decoded name})."""
    so = excimer_so()
    cfg, sock = socket_config(workdir)
    d = daemon_factory(cfg).start()
    cmd = ["php", "-n", "-d", "extension=%s" % so, "-d", "excimer.hprof_sample_rate=1",
           "-d", "excimer.hprof_target=unix://%s" % sock, "-d", "excimer.arclamp_send_delay=0",
           os.fsencode(script)]
    if hostname is not None:
        cmd = ["unshare", "--uts", sys.executable, "-c",
               "import os, socket, sys; socket.sethostname(bytes.fromhex(sys.argv[1])); "
               "os.execvp(sys.argv[2], sys.argv[2:])", hostname.hex()] + cmd
    out = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert out.returncode == 0 and out.stdout == b"served\n", out
    wait_until(lambda: metric(metrics_of(workdir), "arclamp_log_runs_written_total",
                              group="hourly") >= 1
               or metric_sum(metrics_of(workdir), "arclamp_log_runs_dropped_total") >= 1
               or metric_sum(metrics_of(workdir), "arclamp_log_run_lines_invalid_total") >= 1,
               what="the request's run written or refused")
    assert d.stop() == 0
    m = metrics_of(workdir)
    assert metric_sum(m, "arclamp_log_run_lines_invalid_total") == 0, m
    assert metric_sum(m, "arclamp_log_runs_dropped_total") == 0, m
    runs = runs_in(workdir / "logs", "hourly")
    assert len(runs) == 1
    (_, lines), = runs.items()
    end = lines[-1].split(b" ")
    assert end[2] == b"end" and int(end[4]) == 0  # whole: nothing left out
    names = {f[3]: unescape(f[4]) for f in (l.split(b" ", 4) for l in lines) if f[2] == b"fn"}
    return lines, names


def test_php_names_and_paths_of_any_bytes_arrive_in_a_whole_run(daemon_factory, workdir):
    """A script in a directory whose name holds a tab and a Latin-1 byte,
    with functions named in Latin-1 and in invalid UTF-8 (overlong,
    surrogate, cut short): every line of its run is taken, the run is
    written whole, each name and the path come back byte for byte, and
    valid UTF-8 is stored as it is."""
    odd_dir = Path(os.fsdecode(bytes(workdir) + b"/dir\tname \xe9t\xe9"))
    odd_dir.mkdir()
    script = odd_dir / "index.php"
    fns = [b"caf\xe9", b"bad\xc3\xc3\xa9", b"sur\xed\xa0\x80", b"over\xc0\xaf",
           b"cut\xe2\x82", b"na\xc3\xafve"]
    body = b"<?php\n"
    for i, f in enumerate(fns):
        body += b"function %s() { return %s; }\n" % (f, fns[i + 1] + b"()" if i + 1 < len(fns)
                                                      else b"1")
    body += b"%s();\necho \"served\\n\";\n" % fns[0]
    script.write_bytes(body)
    lines, names = php_run_to_daemon(daemon_factory, workdir, script)
    path = os.fsencode(os.path.realpath(script))
    assert b"\t" in path and b"\xe9" in path
    assert unescape(lines[0].split(b" ", 6)[6]) == path  # ENTRY
    assert b"%09" in lines[0] and b"%E9" in lines[0]
    for f in fns + [b"run_init::" + path, b"load::" + path]:
        assert f in names.values(), f
    assert any(l.endswith(b" na\xc3\xafve") for l in lines)  # valid UTF-8 unescaped
    arcs = [l.split(b" ") for l in lines if l.split(b" ")[2] == b"arc"]
    keys = {names[a[9]] if a[8] == b"-" else names[a[8]] + b"==>" + names[a[9]] for a in arcs}
    for a, b in zip(fns, fns[1:]):
        assert a + b"==>" + b in keys


def test_php_names_past_the_cap_are_shortened_and_stay_apart(daemon_factory, workdir):
    """Two functions whose 5,000-byte names differ only in their last byte
    arrive as two names of at most 4,096 bytes: the start of the name, then
    "…[cut:" and a hash of the whole name; the run is written whole."""
    script = workdir / "index.php"
    long = "L" * 4999
    script.write_text("<?php\n"
                      "function %sa() { return 1; }\n"
                      "function %sb() { return 2; }\n"
                      "%sa(); %sb(); %sb();\n"
                      "echo \"served\\n\";\n" % (long, long, long, long, long))
    lines, names = php_run_to_daemon(daemon_factory, workdir, script)
    cut = [n for n in names.values() if n.startswith(b"LLLL")]
    assert len(cut) == 2 and cut[0] != cut[1]
    for n in cut:
        assert len(n) <= NAME_MAX
        assert re.fullmatch(rb"L{4000,}\xe2\x80\xa6\[cut:[0-9a-f]{16}\]", n), n[-40:]
    arcs = [l.split(b" ") for l in lines if l.split(b" ")[2] == b"arc"]
    cts = sorted(int(a[3]) for a in arcs if names[a[9]] in cut)
    assert cts == [1, 2]  # two functions, still told apart


def test_php_run_from_a_host_named_in_invalid_utf8_is_written(daemon_factory, workdir):
    """A host name the HOST field cannot carry as it is (a Latin-1 byte, a
    tab) goes with '_' for those bytes: the begin line is taken and the run
    written (before, the extension passed the Latin-1 byte on, and the
    daemon refused the begin line and lost the run)."""
    if os.geteuid() != 0:
        pytest.skip("a UTS namespace with its own host name needs root")
    probe = subprocess.run(["unshare", "--uts", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot unshare the UTS namespace here: %r" % probe.stderr)
    script = workdir / "index.php"
    script.write_text("<?php function f() { return 1; } f(); echo \"served\\n\";\n")
    lines, names = php_run_to_daemon(daemon_factory, workdir, script,
                                     hostname=b"web\xe9\tcaf\xc3\xa9")
    assert lines[0].split(b" ")[4] == b"web__caf\xc3\xa9"
    assert b"f" in names.values()

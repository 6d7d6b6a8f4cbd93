"""Request tiers: tiers/1 lines from several hosts, through the daemon's unix
socket and a real redis-server, are merged per minute into
<bucket>.tiers (the merged lines), <bucket>.tiers.json and <bucket>.tiers.txt
of every log group; bad lines are counted and change nothing else; a restart
keeps a bucket's totals; hostile identities come out JSON-escaped."""

import glob
import json
import math
import os
import random
import re
import time
from pathlib import Path

from conftest import base_config, send_unix
from testkit import metric, metric_sum, read_metrics, wait_until

# How long the first WATCHDOG=1 may take: generous, for the ASan build on
# a loaded machine.
WAIT_WATCHDOG = 60

# What a merged line in a .tiers file must look like (tierline.h).
MERGED_AGG = re.compile(rb"^tiers/1 agg (\d+) (\d+) \* 0 (\S+) ([A-Za-z0-9_.-]+) "
                        rb"([1-9]\d*) (\d+) (\d+:[1-9]\d*(?:,\d+:[1-9]\d*)*)$")
MERGED_STATUS = re.compile(rb"^tiers/1 status (\d+) (\d+) \* 0 (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$")


# --------------------------------------------------------------------------
# The histogram and the lines as the extension makes them (tierhist.h)


def hist_index(v):
    if v < 64:
        return v
    e = v.bit_length() - 1
    return (e - 5) * 64 + ((v >> (e - 6)) & 63)


def hist_text(values):
    counts = {}
    for v in values:
        counts[hist_index(v)] = counts.get(hist_index(v), 0) + 1
    return ",".join("%d:%d" % (i, counts[i]) for i in sorted(counts))


def escape_identity(text):
    """IDENTITY as on the wire: '%', space, control bytes and DEL as %XX."""
    out = []
    for b in text.encode("utf-8"):
        out.append("%%%02X" % b if b < 0x20 or b in (0x20, 0x25, 0x7F) else chr(b))
    return "".join(out).encode("latin-1")


def agg_line(host, end, identity, tier, values, pid=4242):
    return b"tiers/1 agg %d %d %s %d %s %s %d %d %s" % (
        end - 5, end, host.encode(), pid, escape_identity(identity), tier.encode(),
        len(values), sum(values), hist_text(values).encode())


def status_line(host, end, requests, traced, trips=0, resumes=0, paused=0, skipped=0):
    return b"tiers/1 status %d %d %s 4242 %d %d %d %d %d %d" % (
        end - 5, end, host.encode(), requests, traced, trips, resumes, paused, skipped)


def percentile(values, p):
    """The value of rank ceil(p/100 * n), as tierhist_percentile picks it."""
    s = sorted(values)
    return s[max(1, math.ceil(p * len(s) / 100)) - 1]


# --------------------------------------------------------------------------
# The files


def tier_files(workdir, period, suffix=""):
    return sorted(glob.glob(str(workdir / "logs" / period / ("*.tiers" + suffix))))


def tables(workdir, period):
    return [json.loads(Path(p).read_text("utf-8")) for p in tier_files(workdir, period, ".json")]


def cell(table, identity, tier):
    return table["identities"].get(identity, {}).get(tier)


def merged_lines(path):
    """The lines of a .tiers file, each checked against the merged format."""
    data = Path(path).read_bytes()
    assert data.endswith(b"\n"), "%s ends inside a line" % path
    lines = data.split(b"\n")[:-1]
    for line in lines:
        m = MERGED_AGG.match(line) or MERGED_STATUS.match(line)
        assert m, "%s: not a merged tier line: %r" % (path, line[:200])
        start, end = int(m.group(1)), int(m.group(2))
        assert start % 60 == 0 and end == start + 60, line
    return lines


def metrics_of(workdir):
    return read_metrics(workdir / "metrics.prom")


def wait_minutes(workdir, count, group="daily"):
    wait_until(lambda: metric(metrics_of(workdir), "arclamp_log_tier_minutes_written_total",
                              group=group) >= count,
               what="%d tier minutes written to %s" % (count, group),
               describe=lambda: {k: v for k, v in metrics_of(workdir).items() if "tier" in k[0]})


def socket_config(workdir, **over):
    sock = workdir / "ingest.sock"
    return base_config(workdir, listen=["unix://%s" % sock], **over), sock


def minute_ago():
    """An END 45 s into a minute that is due at once (it ended more than 10 s
    ago), so END - 20 is in the same minute, and all within the 300 s the
    daemon believes."""
    t = int(time.time()) - 150
    return t - t % 60 + 45


def check_cell(c, values):
    assert c["calls"] == len(values)
    assert abs(c["total_us"] - sum(values) / 1e3) < 0.0015
    assert abs(c["mean_us"] - sum(values) / len(values) / 1e3) < 0.0015
    for p in (50, 90, 99):
        want = percentile(values, p) / 1e3
        assert abs(c["p%d_us" % p] - want) <= want * 0.01, (p, c, want)
    assert c["hist"] == hist_text(values)


# --------------------------------------------------------------------------
# Tests


def test_two_hosts_merge_into_one_table_per_bucket(daemon_factory, workdir):
    cfg, sock = socket_config(workdir)
    d = daemon_factory(cfg).start()
    rng = random.Random(18)
    end = minute_ago()
    web1 = [int(rng.lognormvariate(14, 1.2)) + 1 for _ in range(400)]  # ~1 ms db calls
    web2 = [int(rng.lognormvariate(15, 0.8)) + 1 for _ in range(250)]
    total1 = [v * 3 for v in web1[:100]]
    total2 = [v * 3 for v in web2[:80]]
    send_unix(sock, [
        b"\n".join([agg_line("web1", end, "view", "db", web1),
                    agg_line("web1", end, "view", "_total", total1),
                    status_line("web1", end, 100, 100, trips=1, skipped=2)]),
        b"\n".join([agg_line("web2", end - 20, "view", "db", web2),
                    agg_line("web2", end - 20, "view", "_total", total2),
                    agg_line("web2", end - 20, "api:query", "_total", [5000, 7000]),
                    status_line("web2", end - 20, 80, 40, resumes=1, paused=1)]),
    ])
    wait_minutes(workdir, 1)
    assert d.stop() == 0
    for period in ("hourly", "daily"):
        (table,) = tables(workdir, period)
        assert table["format"] == "arclamp-tiers/1" and table["period"] == period
        assert table["minutes"] == 1
        assert table["start"] <= end - end % 60 < table["end"]
        assert table["end"] - table["start"] == (3600 if period == "hourly" else 86400)
        assert os.path.basename(tier_files(workdir, period, ".json")[0]) == \
            table["bucket"] + ".tiers.json"
        assert (table["requests"], table["traced"], table["trips"], table["resumes"],
                table["skipped"]) == (180, 140, 1, 1, 2)
        check_cell(cell(table, "view", "db"), web1 + web2)
        check_cell(cell(table, "view", "_total"), total1 + total2)
        check_cell(cell(table, "api:query", "_total"), [5000, 7000])
        # the merged lines: one per identity and tier, and one status line
        (path,) = tier_files(workdir, period)
        lines = merged_lines(path)
        assert len(lines) == 4
        assert b"tiers/1 status %d %d * 0 180 140 1 1 1 2" % (end - end % 60, end - end % 60 + 60) \
            in lines
        text = Path(tier_files(workdir, period, ".txt")[0]).read_text("utf-8")
        assert text.startswith("request tiers  period %s  bucket %s  minutes 1  requests 180  "
                               "traced 140  breaker trips 1  resumes 1\n" % (period, table["bucket"]))
        rows = [line.split() for line in text.splitlines()[3:]]
        assert [r[:3] for r in rows] == [["view", "_total", "180"], ["view", "db", "650"],
                                         ["api:query", "_total", "2"]]
    m = metrics_of(workdir)
    assert metric(m, "arclamp_log_tier_lines_received_total") == 7
    assert metric_sum(m, "arclamp_log_tier_lines_invalid_total") == 0
    assert metric(m, "arclamp_log_tier_minutes_written_total", group="hourly") == 1


HOSTILE_LINES = [
    (b"tiers/1 agg 1 2 web1 1 view db 0 5 5:1", "bad_number"),
    (b"tiers/1 agg 2 1 web1 1 view db 1 5 5:1", "bad_number"),
    (b"tiers/1 agg 1 2 web1 1 view db 1 5 5:1 extra", "bad_record"),
    (b"tiers/1 flush 1 2 web1 1", "bad_record"),
    (b"tiers/1 agg 1 2 web1 1 vi\x00ew db 1 5 5:1", "bad_text"),
    (b"tiers/1 agg 1 2 web1 1 caf\xc3 db 1 5 5:1", "bad_text"),
    (b"tiers/1 agg 1 2 web1 1 view ../db 1 5 5:1", "bad_text"),
    (b"tiers/1 agg 1 2 web1 1 view db 2 5 5:1", "bad_hist"),
    (b"tiers/1 agg 1 2 web1 1 view db 1 5 9999:1", "bad_hist"),
    (b"tiers/1 agg 1 2 web1 1 view db 1 5 " + b"5:1," * 20000 + b"6:1", "too_long"),
]


def test_invalid_tier_lines_are_counted_and_change_nothing(daemon_factory, workdir):
    cfg, sock = socket_config(workdir, max_line_bytes=65536)
    d = daemon_factory(cfg).start()
    end = minute_ago()
    good = agg_line("web1", end, "view", "db", [1000, 2000])
    send_unix(sock, [line for line, _ in HOSTILE_LINES] +
              [b"\n".join([HOSTILE_LINES[0][0], good, b"/srv/index.php;main 1"])])
    wait_minutes(workdir, 1)
    assert d.alive()
    assert d.stop() == 0
    m = metrics_of(workdir)
    want = {}
    for _, reason in HOSTILE_LINES + [HOSTILE_LINES[0]]:
        want[reason] = want.get(reason, 0) + 1
    for reason, n in want.items():
        assert metric(m, "arclamp_log_tier_lines_invalid_total", reason=reason) == n, reason
    assert metric(m, "arclamp_log_tier_lines_received_total") == len(HOSTILE_LINES) + 2
    assert metric(m, "arclamp_log_lines_written_total", group="daily") == 1  # the sample
    (table,) = tables(workdir, "daily")
    assert list(table["identities"]) == ["view"]
    check_cell(cell(table, "view", "db"), [1000, 2000])
    assert "invalid_tier_lines" in d.stderr_text()


def test_a_stop_writes_the_pending_minute_and_a_restart_keeps_the_bucket(daemon_factory,
                                                                         workdir):
    cfg, sock = socket_config(workdir)
    d = daemon_factory(cfg).start()
    end = int(time.time())  # this minute: only the stop writes it
    send_unix(sock, [agg_line("web1", end, "edit", "db", [3000] * 5),
                     status_line("web1", end, 9, 9)])
    wait_until(lambda: metric(metrics_of(workdir), "arclamp_log_tier_lines_received_total") == 2,
               what="2 tier lines received")
    assert tier_files(workdir, "daily") == []
    assert d.stop() == 0
    (before,) = tables(workdir, "daily")
    assert cell(before, "edit", "db")["calls"] == 5

    os.unlink(str(workdir / "metrics.prom"))
    d.start()  # the same minute again, from another host
    send_unix(sock, [agg_line("web2", end - end % 60 + 30, "edit", "db", [4000] * 3),
                     status_line("web2", end - end % 60 + 30, 1, 1)])
    wait_until(lambda: metric(metrics_of(workdir), "arclamp_log_tier_lines_received_total") == 2,
               what="2 tier lines received after the restart")
    assert d.stop() == 0
    for period in ("hourly", "daily"):
        (table,) = tables(workdir, period)
        check_cell(cell(table, "edit", "db"), [3000] * 5 + [4000] * 3)
        assert table["requests"] == 10 and table["minutes"] == 1
        (path,) = tier_files(workdir, period)
        assert len(merged_lines(path)) == 4  # the minute written twice: readers add up


# Identities a sender may choose, and what JSON must give back.
HOSTILE_IDENTITIES = [
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "\"quoted\" 'single' \\back",
    "caf\u00e9 \u20ac \U0001F600 \u202e",
    "tab\tnew\nline\r\x00nul\x7f",
    "100% <b>&amp;</b>",
]


def test_tiers_from_redis_with_hostile_identities(redis_server, daemon_factory, workdir):
    cfg = base_config(workdir, redis=redis_server)
    del cfg["redis_channel"]  # the default channels: excimer, xhprof and tiers
    d = daemon_factory(cfg).start()
    redis_server.wait_subscribed("tiers")
    end = minute_ago()
    with redis_server.client() as c:
        for host in ("web1", "web2"):
            c.command("PUBLISH", "tiers", b"\n".join(
                agg_line(host, end, ident, "_total", [1000 * (i + 1)])
                for i, ident in enumerate(HOSTILE_IDENTITIES)))
    wait_minutes(workdir, 1)
    assert d.stop() == 0
    for period in ("hourly", "daily"):
        (path,) = tier_files(workdir, period, ".json")
        raw = Path(path).read_bytes()
        assert b"\x00" not in raw and b"\r" not in raw and raw.count(b"\n") == 1
        table = json.loads(raw.decode("utf-8"))
        assert sorted(table["identities"]) == sorted(HOSTILE_IDENTITIES)
        for i, ident in enumerate(HOSTILE_IDENTITIES):
            check_cell(cell(table, ident, "_total"), [1000 * (i + 1)] * 2)
        # the text table shows control bytes escaped, never raw
        text = Path(tier_files(workdir, period, ".txt")[0]).read_bytes()
        assert b"\x00" not in text and b"\r" not in text and b"\x7f" not in text
        assert b"tab%09new%0Aline%0D%00nul%7F" in text
        assert len(text.split(b"\n")) == 3 + len(HOSTILE_IDENTITIES) + 1
    # files stay in their directories whatever the identity says
    names = {os.path.relpath(p, str(workdir / "logs"))
             for p in glob.glob(str(workdir / "logs" / "**"), recursive=True) if os.path.isfile(p)}
    assert all(n.startswith(("hourly/", "daily/")) for n in names), names


def test_identities_past_the_limit_count_as_other(daemon_factory, workdir):
    cfg, sock = socket_config(workdir, max_tier_identities=3)
    d = daemon_factory(cfg).start()
    end = minute_ago()
    send_unix(sock, [b"\n".join(agg_line("web1", end, "id%d" % i, "db", [1000])
                                for i in range(10))])
    wait_minutes(workdir, 1)
    assert d.stop() == 0
    (table,) = tables(workdir, "daily")
    assert sorted(table["identities"]) == ["_other", "id0", "id1", "id2"]
    assert cell(table, "_other", "db")["calls"] == 7
    assert metric(metrics_of(workdir), "arclamp_log_tier_identities_overflow_total") == 7


# --------------------------------------------------------------------------
# Issue 24: what a sender can cost


def cycling_lines(n, now):
    """Valid lines, one identity each, whose END cycle over five minutes 60 s
    apart within the +-300 s the daemon believes: each needed a pending
    minute of its own."""
    base = now - now % 60 + 30
    ends = [e if e >= now - 290 else now for e in (base - 60 * k for k in range(5))]
    return [agg_line("h", ends[i % 5], "i%d" % i, "db", [40]) for i in range(n)]


def test_a_flood_of_cycling_minutes_costs_its_bytes_and_keeps_the_watchdog(daemon_factory,
                                                                           workdir):
    """One datagram of 1,500 such lines: today's code rewrote both views of
    both groups for nearly every line (81 MB written, the event loop away
    from sd_notify(WATCHDOG=1) for 20-44 s on this machine); the lines are
    now queued and appended once, the views written once a tick."""
    cfg, sock = socket_config(workdir, max_tier_identities=2000)
    watchdog_usec = 10_000_000  # the daemon pings every 5 s
    d = daemon_factory(cfg, extra_env={"WATCHDOG_USEC": str(watchdog_usec)}).start()
    n = d.notify
    n.wait_for("WATCHDOG=1", timeout=WAIT_WATCHDOG, alive=d.alive)
    wait_until(lambda: (workdir / "metrics.prom").exists(), what="the first metrics")
    before = metric(metrics_of(workdir), "arclamp_log_bytes_written_total")
    datagram = b"\n".join(cycling_lines(1500, int(time.time())))
    mark = len(n)
    t0 = time.monotonic()
    send_unix(sock, [datagram])
    wait_until(lambda: metric(metrics_of(workdir), "arclamp_log_tier_lines_received_total")
               == 1500, what="1,500 tier lines received")
    # the loop came back: a ping after the lines were taken, within the interval
    n.wait_for("WATCHDOG=1", start=len(n), timeout=WAIT_WATCHDOG, alive=d.alive)
    t1 = time.monotonic()
    pings = [t for t, item in n.snapshot()[mark:] if item == "WATCHDOG=1" and t <= t1]
    gaps = [b - a for a, b in zip([t0] + pings, pings)]
    assert max(gaps) < watchdog_usec / 1e6, "watchdog gap of %.1f s" % max(gaps)
    assert d.stop() == 0
    m = metrics_of(workdir)
    written = metric(m, "arclamp_log_bytes_written_total") - before
    # each line appended to the .tiers file of both groups, and the views
    # (1,500 identities, some 250 bytes each) a few times: tens of times the
    # input (measured: 15), not a thousand (before: 960)
    assert written < 100 * len(datagram), "%d bytes written for %d received" % (
        written, len(datagram))
    assert metric_sum(m, "arclamp_log_tier_lines_invalid_total") == 0
    # and nothing was lost: every identity once in each group's tables
    for period in ("hourly", "daily"):
        calls = {}
        for table in tables(workdir, period):
            for ident, tiers in table["identities"].items():
                calls[ident] = calls.get(ident, 0) + tiers["db"]["calls"]
        assert calls == {"i%d" % i: 1 for i in range(1500)}


def test_reserved_identities_keep_their_rows(daemon_factory, workdir):
    """1,000 junk identities early in a bucket filled max_tier_identities and
    pushed a later real `edit` into _other; an identity listed in
    reserved_tier_identities keeps its row."""
    cfg, sock = socket_config(workdir, reserved_tier_identities=["edit", "api query"],
                              max_line_bytes=1048576)
    d = daemon_factory(cfg).start()
    end = minute_ago()
    junk = [agg_line("web1", end, "junk%d" % i, "db", [1000]) for i in range(1000)]
    send_unix(sock, [b"\n".join(junk[:500]), b"\n".join(junk[500:]),
                     b"\n".join([agg_line("web2", end, "edit", "db", [2000, 3000]),
                                 agg_line("web2", end, "api query", "_total", [5000])])])
    wait_minutes(workdir, 1)
    assert d.stop() == 0
    for period in ("hourly", "daily"):
        (table,) = tables(workdir, period)
        check_cell(cell(table, "edit", "db"), [2000, 3000])
        check_cell(cell(table, "api query", "_total"), [5000])
        assert len(table["identities"]) == 1000 + 2  # max_tier_identities' 1000 and the 2
    assert metric(metrics_of(workdir), "arclamp_log_tier_identities_overflow_total") == 0


COUNT_MAX = 2 ** 53


def test_counts_stay_within_2_pow_53(daemon_factory, workdir):
    """A status line with REQUESTS=2^53+2 was taken and summed up to 2^63-1,
    and arclamp-report refused the whole table (above 2^53: not exact in its
    JSON doubles), the hour's and the day's pages for the whole retention.
    Now such a line is refused (bad_number) like any number out of range,
    and the sums stop at 2^53."""
    cfg, sock = socket_config(workdir)
    d = daemon_factory(cfg).start()
    end = minute_ago()
    send_unix(sock, [
        status_line("web1", end, COUNT_MAX + 2, 1),
        status_line("web1", end, COUNT_MAX, 1),
        status_line("web2", end, COUNT_MAX, 1),
        agg_line("web1", end, "view", "db", [1000]),
    ])
    wait_minutes(workdir, 1)
    assert d.stop() == 0
    m = metrics_of(workdir)
    assert metric(m, "arclamp_log_tier_lines_invalid_total", reason="bad_number") == 1
    for period in ("hourly", "daily"):
        (table,) = tables(workdir, period)
        assert table["requests"] == COUNT_MAX and table["traced"] == 2
        # the merged line reads back: the restart below takes it
        (path,) = tier_files(workdir, period)
        assert b"tiers/1 status %d %d * 0 %d 2 " % (end - end % 60, end - end % 60 + 60,
                                                    COUNT_MAX) in Path(path).read_bytes()
    os.unlink(str(workdir / "metrics.prom"))
    d.start()
    send_unix(sock, [status_line("web3", end, 5, 5)])
    wait_until(lambda: metric(metrics_of(workdir), "arclamp_log_tier_lines_received_total") == 1,
               what="the line after the restart")
    assert d.stop() == 0
    assert metric(metrics_of(workdir), "arclamp_log_tier_lines_invalid_total",
                  reason="bad_number") == 0
    for period in ("hourly", "daily"):
        (table,) = tables(workdir, period)
        assert table["requests"] == COUNT_MAX and table["traced"] == 7

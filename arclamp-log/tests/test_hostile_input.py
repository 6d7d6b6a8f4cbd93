"""Hostile input: bad lines are refused and counted, valid ones around them kept,
nothing is ever written outside base_path, and a crash never leaves a torn line."""

import collections
import errno
import glob
import os
import re
import socket
import threading
import time

from conftest import (SAMPLE_RE, base_config, count_lines, lines_of, log_files, read_lines,
                      sample_line, send_unix, tags_in, unix_sender)
from testkit import metric, read_metrics, wait_until

P = b"/srv/mediawiki/php-1.44.0-wmf.3/index.php;MediaWiki\\MediaWikiEntryPoint::run"
REASONS = ("empty", "too_long", "control_char", "invalid_utf8", "no_count", "bad_count",
           "empty_frame")
ANY = frozenset(REASONS)


def ok(i):
    return sample_line(i, "ok", entry=0)  # index.php entry point


def big_line(total):
    head = b"/srv/mediawiki/php-1.44.0-wmf.3/index.php;"
    return head + b"F" * (total - len(head) - 2) + b" 1"


class Corpus:
    """Messages with what must come out of them: valid lines (in order) and the
    reasons of the refused ones (certain, or one of a set when the spec allows several)."""

    def __init__(self):
        self.messages = []
        self.valid = []
        self.certain = collections.Counter()
        self.ambiguous = []

    def add(self, payload, valid=(), reasons=(), maybe=()):
        self.messages.append(payload)
        self.valid.extend(valid)
        self.certain.update(reasons)
        self.ambiguous.extend(maybe)

    def expected_invalid(self):
        return sum(self.certain.values()) + len(self.ambiguous)


def socket_corpus():
    c = Corpus()
    n = iter(range(1000))
    v = lambda: ok(next(n))  # noqa: E731

    def valid_msg():
        line = v()
        c.add(line, valid=[line])

    valid_msg()
    c.add(b"", reasons=["empty"])
    valid_msg()
    c.add(P + b";Foo\x00bar;leaf 1", reasons=["control_char"])
    c.add(P + b";Foo\rbar;leaf 1", reasons=["control_char"])
    # LF splits the message: the first half has no count, the second is a valid line
    c.add(P + b";Foo\nbar;leaf 1", valid=[b"bar;leaf 1"], reasons=["no_count"])
    valid_msg()
    c.add(b"../../etc/passwd;main 1", valid=[b"../../etc/passwd;main 1"])
    c.add(b"/etc/passwd;main 1", valid=[b"/etc/passwd;main 1"])
    c.add(b"../../../tmp/evil.php;main 1", valid=[b"../../../tmp/evil.php;main 1"])
    c.add(b"/srv/x/../../../../tmp/evil2.php;main 1",
          valid=[b"/srv/x/../../../../tmp/evil2.php;main 1"])
    valid_msg()
    c.add(big_line(1000000), reasons=["too_long"])  # 1 MB line (the message itself fits)
    valid_msg()
    c.add(P + b";leaf", reasons=["no_count"])
    c.add(b"1", reasons=["no_count"])
    c.add(P + b";leaf -1", reasons=["bad_count"])
    c.add(P + b";leaf +1", reasons=["bad_count"])
    c.add(P + b";leaf 0", reasons=["bad_count"])
    c.add(P + b";leaf 007", reasons=["bad_count"])
    c.add(P + b";leaf 99999999999999999999", reasons=["bad_count"])
    c.add(P + b";leaf 4294967296", reasons=["bad_count"])
    c.add(P + b";leaf 1.5", maybe=[frozenset(["bad_count", "no_count"])])
    c.add(P + b";leaf 4294967295", valid=[P + b";leaf 4294967295"])
    valid_msg()
    c.add(P + b";caf\xc3\x28;leaf 1", reasons=["invalid_utf8"])
    c.add(P + b";\xc0\xaf;leaf 1", reasons=["invalid_utf8"])      # overlong
    c.add(P + b";\xed\xa0\x80;leaf 1", reasons=["invalid_utf8"])  # surrogate
    c.add(P + b";\xff\xfe;leaf 1", reasons=["invalid_utf8"])
    c.add(P + b";\xe2\x82;leaf 1", reasons=["invalid_utf8"])      # truncated sequence
    uni = P + u";\u00dcn\u00efc\u00f6d\u00e9::m\u00e9todo;\u65e5\u672c;leaf 1".encode("utf-8")
    c.add(uni, valid=[uni])
    c.add(P + b";;leaf 1", reasons=["empty_frame"])
    c.add(b";main;leaf 1", reasons=["empty_frame"])
    c.add(P + b";leaf; 1", reasons=["empty_frame"])
    c.add(P + b";leaf  1", reasons=["empty_frame"])
    c.add(P + b";le\taf 1", reasons=["control_char"])
    c.add(P + b";leaf\x1b[31m 1", reasons=["control_char"])
    # a line ending in a space (no count after it)
    c.add(P + b";leaf 1 ", maybe=[frozenset(["no_count", "bad_count", "empty_frame"])])
    # leading whitespace or nothing before the count: must not be written, reason unspecified
    c.add(b" /srv/x/index.php;main 1", maybe=[ANY])
    c.add(b" 1", maybe=[ANY])
    # multi-line messages: the valid lines around bad ones are kept
    a, b = v(), v()
    c.add(a + b"\n\n" + b, valid=[a, b], reasons=["empty"])
    a, b = v(), v()
    c.add(a + b"\r\n" + b + b"\r\n", reasons=["control_char", "control_char"])
    a, b = v(), v()
    c.add(a + b"\n" + P + b";x 0\n" + b + b"\n", valid=[a, b], reasons=["bad_count"])
    # tags
    c.add(b"/srv/x/foo-bar.php;main 1", valid=[b"/srv/x/foo-bar.php;main 1"])
    c.add(b"index.php;main 1", valid=[b"index.php;main 1"])
    c.add(b"main 1", valid=[b"main 1"])
    valid_msg()
    return c


def redis_corpus():
    c = Corpus()
    for i in range(3):
        c.add(ok(500 + i), valid=[ok(500 + i)])
    c.add(b"", reasons=["empty"])
    c.add(P + b";a\x00b;leaf 1", reasons=["control_char"])
    c.add(ok(510) + b"\r\n", reasons=["control_char"])
    c.add(P + b";\xfe;leaf 1", reasons=["invalid_utf8"])
    c.add(P + b";leaf 18446744073709551617", reasons=["bad_count"])
    c.add(b"../../../tmp/evil3.php;main 1", valid=[b"../../../tmp/evil3.php;main 1"])
    c.add(ok(511) + b"\n" + ok(512), valid=[ok(511), ok(512)])
    return c


ALLOWED_TOP = {"arclamp-log.yaml", "arclamp-log.stderr", "notify.sock", "ingest.sock"}
LOG_NAME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:_\d{2})?\.[A-Za-z0-9_.-]{1,100}\.log$")


def files_outside(workdir, base):
    """Every file or link below workdir that is not below base (plus the known ones)."""
    out = []
    for root, dirs, files in os.walk(str(workdir)):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            p = os.path.join(root, name)
            if p.startswith(str(base) + os.sep):
                continue
            rel = os.path.relpath(p, str(workdir))
            if rel in ALLOWED_TOP or "metrics.prom" in rel:
                continue
            out.append(rel)
    return out


def fresh_metrics(workdir):
    """The metrics as rewritten after this call (the file is replaced every metrics_interval)."""
    path = workdir / "metrics.prom"
    t = time.time()
    wait_until(lambda: path.exists() and path.stat().st_mtime > t + 0.01,
               what="a fresh metrics file")
    return read_metrics(path)


def invalid_counts(source):
    m = source if isinstance(source, dict) else read_metrics(source / "metrics.prom")
    return {r: metric(m, "arclamp_log_lines_invalid_total", reason=r) for r in REASONS}


def test_hostile_corpus_is_refused_and_counted_valid_lines_kept_nothing_outside_base_path(
        redis_server, daemon_factory, workdir):
    base = workdir / "logs"
    sock = workdir / "ingest.sock"
    evil_before = set(glob.glob("/tmp/evil*")) | set(glob.glob("/etc/evil*"))
    passwd_before = os.stat("/etc/passwd")

    cfg = base_config(workdir, redis=redis_server, listen=["unix://%s" % sock])
    d = daemon_factory(cfg).start()
    redis_server.wait_subscribed()

    sc, rc = socket_corpus(), redis_corpus()
    send_unix(sock, sc.messages)
    with redis_server.client() as c:
        assert c.pipeline([("PUBLISH", "excimer", m) for m in rc.messages]) == [1] * len(rc.messages)
    last = sample_line(999, "final")
    send_unix(sock, [last])  # after the whole corpus: the daemon still takes lines

    valid = sc.valid + rc.valid + [last]
    assert len(set(valid)) == len(valid)
    certain = sc.certain + rc.certain
    ambiguous = sc.ambiguous + rc.ambiguous
    expected_total = sc.expected_invalid() + rc.expected_invalid()

    wait_until(lambda: set(lines_of(base, "hourly")) >= set(valid), what="every valid line",
               describe=lambda: sorted(set(valid) - set(lines_of(base, "hourly")))[:5])
    # everything has been processed now; take a metrics snapshot written after this point
    counts = invalid_counts(fresh_metrics(workdir))
    assert d.alive(), "daemon died on hostile input"
    assert d.stop() == 0

    # every written line is a well-formed sample: no NUL, no CR, no torn or bad line
    for path in log_files(base):
        data = open(path, "rb").read()
        assert data.endswith(b"\n"), path
        assert b"\0" not in data and b"\r" not in data, path
        bad = [l for l in read_lines([path]) if not SAMPLE_RE.match(l)]
        assert not bad, "%s holds lines that are not samples: %r" % (path, [l[:100] for l in bad])

    # every valid line exactly once, in both groups; nothing else
    for period in ("hourly", "daily"):
        got = lines_of(base, period)
        assert collections.Counter(got) == collections.Counter(valid), period
        tags = tags_in(base, period)
        assert set(tags) == {"all", "index", "evil", "evil2", "evil3", "foo-bar"}, sorted(tags)
        assert lines_of(base, period, "evil") == [b"../../../tmp/evil.php;main 1"]
        assert lines_of(base, period, "evil2") == [b"/srv/x/../../../../tmp/evil2.php;main 1"]
        assert lines_of(base, period, "foo-bar") == [b"/srv/x/foo-bar.php;main 1"]
        assert b"index.php;main 1" in lines_of(base, period, "index")
        assert sorted(lines_of(base, period, "index")) == sorted(
            l for l in valid if l.startswith(b"/srv/mediawiki/php-1.44.0-wmf.3/index.php;")
            or l.startswith(b"index.php;"))

    # refused lines counted per reason
    assert sum(counts.values()) == expected_total, (counts, dict(certain))
    for r in REASONS:
        could = sum(1 for s in ambiguous if r in s)
        assert certain[r] <= counts[r] <= certain[r] + could, (r, counts, dict(certain))

    # nothing written outside base_path, and base_path holds only trace logs
    assert files_outside(workdir, base) == []
    assert sorted(os.listdir(str(base))) == ["daily", "hourly"]
    for period in ("daily", "hourly"):
        for name in os.listdir(str(base / period)):
            p = base / period / name
            assert not os.path.islink(str(p)) and p.is_file(), p
            assert LOG_NAME_RE.match(name), name
    assert set(glob.glob("/tmp/evil*")) | set(glob.glob("/etc/evil*")) == evil_before
    st = os.stat("/etc/passwd")
    assert (st.st_size, st.st_mtime) == (passwd_before.st_size, passwd_before.st_mtime)


def test_message_longer_than_max_message_bytes_is_refused_whole(daemon_factory, workdir):
    base = workdir / "logs"
    sock = workdir / "ingest.sock"
    cfg = base_config(workdir, listen=["unix://%s" % sock], max_message_bytes=65536,
                      max_line_bytes=4096)
    d = daemon_factory(cfg).start()
    huge = [sample_line(i, "huge" + "x" * 900, entry=i) for i in range(100)]  # ~100 KB
    message = b"\n".join(huge)
    assert len(message) > 65536
    before, after = sample_line(1, "before"), sample_line(2, "after")
    send_unix(sock, [before, message, big_line(5000), after])
    wait_until(lambda: set(lines_of(base, "hourly")) >= {before, after}, what="lines around")
    wait_until(lambda: invalid_counts(workdir)["too_long"] >= 2, what="too_long counted twice",
               describe=lambda: invalid_counts(workdir))
    assert d.stop() == 0
    got = lines_of(base, "hourly")
    assert sorted(got) == sorted([before, after]), "part of an oversized message was written"


def test_sigkill_during_heavy_ingest_leaves_no_torn_line(daemon_factory, workdir):
    base = workdir / "logs"
    sock = workdir / "ingest.sock"
    cfg = base_config(workdir, listen=["unix://%s" % sock])
    d = daemon_factory(cfg).start()

    sent = []
    stop = threading.Event()
    errors = []

    def sender():
        s = unix_sender()
        s.settimeout(1)
        seq = 0
        t_end = time.monotonic() + 4.0
        try:
            while not stop.is_set() and time.monotonic() < t_end and seq < 200000:
                batch = [sample_line(seq + k, "heavy", entry=seq + k) for k in range(20)]
                try:
                    s.sendto(b"\n".join(batch), str(sock))
                except socket.timeout:
                    continue
                except OSError as exc:
                    if exc.errno in (errno.ECONNREFUSED, errno.ENOENT):
                        return  # the daemon is gone
                    if exc.errno in (errno.EAGAIN, errno.ENOBUFS):
                        continue
                    errors.append(exc)
                    return
                sent.extend(batch)
                seq += 20
                time.sleep(0.002)  # about 10000 lines/s
        finally:
            s.close()

    t = threading.Thread(target=sender)
    t.start()
    try:
        time.sleep(2.0)  # ingest phase length, by design
        assert d.alive()
        d.kill()
    finally:
        stop.set()
        t.join(timeout=10)
    assert not errors, errors
    assert len(sent) >= 5000, "sender too slow: %d lines" % len(sent)
    sent_set = set(sent)

    def check_files():
        files = log_files(base)
        assert files, "nothing written before the kill"
        for path in files:
            data = open(path, "rb").read()
            assert data == b"" or data.endswith(b"\n"), "torn last line in %s: %r" % (
                path, data[-120:])
            lines = read_lines([path])
            for line in lines:
                assert SAMPLE_RE.match(line), (path, line[:200])
                assert line in sent_set, (path, line[:200])
            assert len(lines) == len(set(lines)), "duplicate lines in %s" % path

    check_files()
    written = count_lines(base, "hourly")
    assert written > 0
    # restarted on the same files, the daemon appends cleanly
    d.start()
    extra = sample_line(1, "after-kill")
    send_unix(sock, [extra])
    wait_until(lambda: extra in lines_of(base, "hourly"), what="line after the restart")
    assert d.stop() == 0
    sent_set.add(extra)
    check_files()


def this_year():
    return time.strftime("%Y", time.gmtime())


def test_symlink_at_a_trace_log_path_is_not_followed(daemon_factory, workdir):
    year = this_year()
    base = workdir / "logs"
    trap = base / "yearly"
    trap.mkdir(parents=True)
    outside = workdir / "outside.txt"
    outside.write_bytes(b"precious\n")
    dangling = workdir / "created-through-link.txt"
    os.symlink(str(outside), str(trap / ("%s.all.log" % year)))
    os.symlink(str(dangling), str(trap / ("%s.index.log" % year)))
    sock = workdir / "ingest.sock"
    cfg = base_config(workdir, listen=["unix://%s" % sock])
    cfg["logs"] = [{"period": "yearly", "format": "%Y", "retain": 5},
                   {"period": "control", "format": "%Y", "retain": 5}]
    d = daemon_factory(cfg).start()
    line = sample_line(1, "link", entry=0)  # an index line
    send_unix(sock, [line])
    # the same line reaches the control group: it has been processed by then
    wait_until(lambda: lines_of(base, "control") == [line], what="line in the control group")
    fresh_metrics(workdir)
    fresh_metrics(workdir)  # a couple of flush intervals later
    assert d.alive()
    assert d.stop() == 0
    assert outside.read_bytes() == b"precious\n", "wrote through a symlink"
    assert not dangling.exists(), "created a file through a dangling symlink"
    assert files_outside(workdir, base) == ["outside.txt"]


def test_partial_last_line_left_by_a_crash_is_cut_when_the_file_is_opened(
        daemon_factory, workdir):
    year = this_year()
    base = workdir / "logs"
    group = base / "yearly"
    group.mkdir(parents=True)
    old = b"/srv/a/index.php;old 1\n/srv/a/index.php;older 2\n"
    (group / ("%s.all.log" % year)).write_bytes(old + b"/srv/a/index.php;tor")
    (group / ("%s.index.log" % year)).write_bytes(old)
    sock = workdir / "ingest.sock"
    cfg = base_config(workdir, listen=["unix://%s" % sock])
    cfg["logs"] = [{"period": "yearly", "format": "%Y", "retain": 5}]
    d = daemon_factory(cfg).start()
    line = sample_line(1, "after-crash", entry=0)
    send_unix(sock, [line])
    wait_until(lambda: line in lines_of(base, "yearly", "index"), what="the new line")
    assert d.stop() == 0
    if this_year() != year:  # pragma: no cover - new year's eve
        return
    assert (group / ("%s.all.log" % year)).read_bytes() == old + line + b"\n"
    assert (group / ("%s.index.log" % year)).read_bytes() == old + line + b"\n"

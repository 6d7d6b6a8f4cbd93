"""`arclamp-svg generate` on a directory tree: graphs for every log (plain and
.gz, one read for forward, reversed and per-function graphs), up-to-date
skip, stale removal, atomic replacement, the lock, bad logs, hostile names,
and the index (index.html well-formed with working relative links,
index.json matching the files)."""

import fcntl
import html.parser
import json
import os
import re
import subprocess
import threading
import time
import urllib.parse
import zlib

import pytest

from conftest import EDIT, ENTRY, RUN, UPLOAD, read_svgz, stack, xml_well_formed

HOUR = "2026-11-22_05"
DAY = "2026-11-21"
OLD = 1700000000


def basic_lines():
    return [
        stack(RUN, "Foo::bar", count=3),
        stack(RUN, EDIT, "Baz::qux", count=2),
        stack(RUN, UPLOAD, count=1),
        stack("Skin::output", count=4),
    ]


def title_of(svg):
    m = re.search(r'<text id="title"[^>]*>([^<]*)<', svg)
    assert m, svg[:500]
    return m.group(1)


def total_of(svg):
    m = re.search(r"<title>all \(([0-9,]+) samples, 100%\)</title>", svg)
    assert m, svg[-2000:]
    return int(m.group(1).replace(",", ""))


def graph_names(tree, period):
    d = tree.svgs / period
    return sorted(os.listdir(d)) if d.exists() else []


def summary(proc):
    return proc.stdout.decode()


# --- graphs ---------------------------------------------------------------


def test_draws_forward_reversed_and_function_graphs(tree):
    tree.log("hourly", HOUR + ".all", basic_lines())
    tree.log("hourly", HOUR + ".index", basic_lines())
    tree.log("daily", DAY + ".all", basic_lines(), gz=True)
    proc = tree.ok("generate")
    assert "3 logs: 3 drawn" in summary(proc)
    assert graph_names(tree, "hourly") == sorted([
        HOUR + ".all.svgz", HOUR + ".all.reversed.svgz",
        HOUR + ".all.fn-EditAction.svgz", HOUR + ".all.fn-EditAction.reversed.svgz",
        HOUR + ".all.fn-Upload.svgz", HOUR + ".all.fn-Upload.reversed.svgz",
        HOUR + ".index.svgz", HOUR + ".index.reversed.svgz",
    ])
    assert DAY + ".all.svgz" in graph_names(tree, "daily")  # from the .log.gz
    for period in ("hourly", "daily"):
        for name in graph_names(tree, period):
            svg = read_svgz(tree.svgs / period / name)
            ok, why = xml_well_formed(svg)
            assert ok, (name, why)
    fwd = read_svgz(tree.svgs / "hourly" / (HOUR + ".all.svgz"))
    assert title_of(fwd) == "MediaWiki - hourly - 2026-11-22 05 - all (10 samples)"
    assert total_of(fwd) == 10
    assert "font-family:monospace" in fwd and "font-size:11px" in fwd
    rev = read_svgz(tree.svgs / "hourly" / (HOUR + ".all.reversed.svgz"))
    assert title_of(rev) == "MediaWiki - hourly - 2026-11-22 05 - all - reversed (10 samples)"
    assert total_of(rev) == 10
    assert title_of(read_svgz(tree.svgs / "daily" / (DAY + ".all.svgz"))) == \
        "MediaWiki - daily - 2026-11-21 - all (10 samples)"


def test_reversed_graph_puts_leaves_at_the_bottom(tree):
    tree.log("hourly", HOUR + ".index", [stack("A::a", "Leaf::x", count=5)])
    tree.ok("generate")

    def bottom_frame(svg):
        # the deepest y of a box (flame graphs grow up): the first frame above "all"
        boxes = re.findall(r"<title>([^<(]*) \(.*?<rect x=\"[^\"]*\" y=\"([0-9.]+)\"", svg, re.S)
        ys = sorted({float(y) for _, y in boxes}, reverse=True)
        return [n for n, y in boxes if float(y) == ys[1]]

    fwd = read_svgz(tree.svgs / "hourly" / (HOUR + ".index.svgz"))
    rev = read_svgz(tree.svgs / "hourly" / (HOUR + ".index.reversed.svgz"))
    assert bottom_frame(fwd) == [ENTRY]
    assert bottom_frame(rev) == ["Leaf::x"]


def test_function_graphs_hold_only_stacks_with_the_function(tree):
    tree.log("hourly", HOUR + ".all", basic_lines() + [stack(EDIT, count=7),  # leaf
                                                       stack(EDIT + "Later", count=100)])
    tree.ok("generate")
    svg = read_svgz(tree.svgs / "hourly" / (HOUR + ".all.fn-EditAction.svgz"))
    assert total_of(svg) == 9
    assert "Foo::bar" not in svg and "Skin::output" not in svg
    assert title_of(svg) == "MediaWiki - hourly - 2026-11-22 05 - all - EditAction (9 samples)"
    assert not (tree.svgs / "hourly" / (HOUR + ".all.fn-PreSend.svgz")).exists()


def test_function_list_and_title_come_from_the_config(tree):
    tree.write_config("title: 'Wiki {entrypoint} @ {time} ({period})'\n"
                      "functions:\n  - {function: 'Foo::bar', label: FooBar}\n")
    tree.log("hourly", HOUR + ".all", basic_lines())
    tree.ok("generate")
    names = graph_names(tree, "hourly")
    assert HOUR + ".all.fn-FooBar.svgz" in names
    assert not any("EditAction" in n for n in names)
    svg = read_svgz(tree.svgs / "hourly" / (HOUR + ".all.fn-FooBar.reversed.svgz"))
    assert title_of(svg) == "Wiki all @ 2026-11-22 05 (hourly) - FooBar - reversed (3 samples)"
    assert total_of(svg) == 3


def test_up_to_date_logs_are_skipped(tree):
    tree.log("hourly", HOUR + ".all", basic_lines(), mtime=OLD)
    tree.ok("generate")
    before = {n: os.stat(tree.svgs / "hourly" / n) for n in graph_names(tree, "hourly")}
    assert all(st.st_mtime == OLD for st in before.values())
    proc = tree.ok("generate")
    assert "0 drawn (0 graphs), 1 up to date" in summary(proc)
    after = {n: os.stat(tree.svgs / "hourly" / n) for n in graph_names(tree, "hourly")}
    assert {n: (s.st_ino, s.st_mtime_ns) for n, s in before.items()} == \
        {n: (s.st_ino, s.st_mtime_ns) for n, s in after.items()}


def test_newer_log_is_drawn_again_and_force_draws_all(tree):
    path = tree.log("hourly", HOUR + ".index", basic_lines(), mtime=OLD)
    tree.log("hourly", "2026-11-22_04.index", basic_lines(), mtime=OLD)
    tree.ok("generate")
    with open(path, "ab") as f:
        f.write(stack("New::frame", count=5).encode() + b"\n")
    os.utime(path, (OLD + 60, OLD + 60))
    proc = tree.ok("generate")
    assert "1 drawn (2 graphs), 1 up to date" in summary(proc)
    svg = read_svgz(tree.svgs / "hourly" / (HOUR + ".index.svgz"))
    assert total_of(svg) == 15 and "New::frame" in svg
    assert os.stat(tree.svgs / "hourly" / (HOUR + ".index.svgz")).st_mtime == OLD + 60
    proc = tree.ok("generate", "--force")
    assert "2 drawn" in summary(proc)


def test_graphs_of_deleted_logs_are_removed(tree):
    gone = tree.log("hourly", HOUR + ".all", basic_lines())
    tree.log("hourly", "2026-11-22_06.all", basic_lines())
    tree.log("daily", DAY + ".index", basic_lines())
    tree.ok("generate")
    (tree.svgs / "hourly" / "README.txt").write_text("not a graph")
    os.unlink(gone)
    os.unlink(tree.logs / "daily" / (DAY + ".index.log"))
    os.rmdir(tree.logs / "daily")
    proc = tree.ok("generate")
    # 6 of the all log, 2 of the daily period, and the 2 of _06's diff against
    # the hour before, which is gone
    assert "10 graphs removed" in summary(proc)
    names = graph_names(tree, "hourly")
    assert not any(n.startswith(HOUR) for n in names)
    assert "2026-11-22_06.all.svgz" in names and "README.txt" in names
    assert not (tree.svgs / "daily").exists()


def test_graphs_of_a_label_no_longer_configured_are_removed(tree):
    tree.log("hourly", HOUR + ".all", basic_lines(), mtime=OLD)
    tree.ok("generate")
    assert HOUR + ".all.fn-Upload.svgz" in graph_names(tree, "hourly")
    tree.write_config("functions: [{function: '%s', label: EditAction}]\n"
                      % EDIT.replace("\\", "\\\\"))
    tree.ok("generate")
    names = graph_names(tree, "hourly")
    assert HOUR + ".all.fn-EditAction.svgz" in names
    assert not any("Upload" in n for n in names)


def test_temporary_files_of_an_interrupted_run_are_removed(tree):
    tree.log("hourly", HOUR + ".index", basic_lines())
    (tree.svgs / "hourly").mkdir(parents=True)
    (tree.svgs / "hourly" / ".arclamp-tmp-0123456789abcdef").write_bytes(b"\x1f\x8bhalf")
    (tree.root / ".arclamp-tmp-fedcba9876543210").write_text("<html>half")
    proc = tree.ok("generate")
    assert "2 temporary files removed" in summary(proc)
    assert not [n for n in os.listdir(tree.svgs / "hourly") if n.startswith(".")]
    assert not [n for n in os.listdir(tree.root) if n.startswith(".arclamp-tmp")]


def test_graph_is_never_seen_half_written(tree):
    # A log big enough that writing its graphs takes a while, redrawn again
    # and again while a reader keeps opening the graph: every read must be
    # a complete gzip stream of a complete SVG.
    lines = [stack("Mod%d::f" % (i % 97), "Cls%d::m" % (i % 89), "leaf%d" % i, count=1 + i % 5)
             for i in range(20000)]
    tree.log("hourly", HOUR + ".all", lines)
    tree.ok("generate")
    target = tree.svgs / "hourly" / (HOUR + ".all.svgz")
    stop = threading.Event()
    seen, bad = [0], []

    def reader():
        while not stop.is_set():
            try:
                data = target.read_bytes()
            except FileNotFoundError as exc:
                bad.append("missing: %s" % exc)
                continue
            try:
                svg = zlib.decompress(data, 31).decode("utf-8")
                if not svg.endswith("</svg>\n"):
                    bad.append("truncated svg")
            except Exception as exc:  # noqa: BLE001 - any failure is the bug
                bad.append(repr(exc))
            seen[0] += 1

    t = threading.Thread(target=reader)
    t.start()
    try:
        for _ in range(6):
            tree.ok("generate", "--force")
    finally:
        stop.set()
        t.join(timeout=30)
    assert seen[0] > 10
    assert not bad, bad[:5]
    assert not [n for n in os.listdir(tree.svgs / "hourly") if n.startswith(".")]


# --- the lock -------------------------------------------------------------


def test_second_run_refuses_while_the_lock_is_held(tree):
    tree.log("hourly", HOUR + ".index", basic_lines())
    tree.write_config("lock_timeout: 0\n")
    (tree.root / ".arclamp-svg").mkdir(mode=0o700)
    lock = tree.root / ".arclamp-svg" / "run.lock"
    with open(lock, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        proc = tree.run("generate")
        assert proc.returncode == 75, proc.stderr
        assert b"lock" in proc.stderr and b"nothing done" in proc.stderr
        assert not tree.svgs.exists()
        assert not (tree.root / "index.html").exists()
    tree.ok("generate")
    assert (tree.svgs / "hourly" / (HOUR + ".index.svgz")).exists()


def test_concurrent_runs_one_works_one_refuses(tree):
    lines = [stack("F%d" % (i % 500), "G%d" % i, count=1) for i in range(30000)]
    for h in range(4):
        tree.log("hourly", "2026-11-22_0%d.all" % h, lines)
    tree.write_config("lock_timeout: 0\n")
    argv = [tree.binary, "generate", "--config", str(tree.config), "--data-dir", str(tree.root)]
    first = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # wait until the first run holds the lock (its graph directory appears)
        deadline = time.monotonic() + 30
        while not (tree.svgs / "hourly").exists() and first.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.005)
        second = tree.run("generate")
    finally:
        out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    if (tree.svgs / "hourly").exists() and second.returncode == 0:
        pytest.skip("the first run finished before the second started")
    assert second.returncode == 75, second.stderr


# --- bad input ------------------------------------------------------------


def test_bad_logs_do_not_stop_the_others(tree):
    tree.log("hourly", "2026-11-22_01.index", basic_lines())
    bad_gz = tree.log("hourly", "2026-11-22_02.index", b"", gz=True)
    with open(bad_gz, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00garbage that is not deflate")
    tree.log("hourly", "2026-11-22_03.index", b"\x00\x01\x02binary junk without counts\n" * 50)
    tree.log("hourly", "2026-11-22_04.index", basic_lines())
    unreadable = tree.log("hourly", "2026-11-22_05.index", basic_lines())
    os.unlink(unreadable)
    os.mkfifo(unreadable)  # a log that is not a regular file is not a log
    proc = tree.run("generate")
    assert proc.returncode == 1, proc.stderr
    assert "4 logs: 2 drawn" in summary(proc) and "2 failed" in summary(proc)
    err = proc.stderr.decode("utf-8", "replace")
    assert "2026-11-22_02.index.log.gz" in err and "2026-11-22_03.index.log" in err
    names = graph_names(tree, "hourly")
    assert "2026-11-22_01.index.svgz" in names and "2026-11-22_04.index.svgz" in names
    assert not any(n.startswith(("2026-11-22_02", "2026-11-22_03")) for n in names)
    index = json.loads((tree.root / "index.json").read_text())
    failed = {e["name"] for e in index["logs"] if e["failed"]}
    assert failed == {"2026-11-22_02.index", "2026-11-22_03.index"}


def test_truncated_gzip_log_fails_and_keeps_its_graphs(tree):
    # A .log.gz cut short (a copy interrupted, a full disk): zlib hands out
    # the lines before the cut without complaint. The log must be reported
    # as failed, its earlier graphs kept, not redrawn from part of the data.
    lines = [stack(RUN, "Foo::f%d" % i, count=1) for i in range(20000)]
    path = tree.log("daily", DAY + ".all", lines, gz=True, mtime=OLD)
    tree.ok("generate")
    before = read_svgz(tree.svg("daily", DAY + ".all.svgz"))
    assert total_of(before) == 20000
    with open(path, "rb") as f:
        whole = f.read()
    with open(path, "wb") as f:
        f.write(whole[: len(whole) // 2])
    proc = tree.run("generate")
    assert proc.returncode == 1, proc.stderr
    assert "1 failed" in summary(proc)
    assert "truncated gzip" in proc.stderr.decode("utf-8", "replace")
    assert read_svgz(tree.svg("daily", DAY + ".all.svgz")) == before
    index = json.loads((tree.root / "index.json").read_text())
    assert [e["failed"] for e in index["logs"] if e["name"] == DAY + ".all"] == [True]


def test_verbose_logs_every_graph_removed(tree):
    tree.log("hourly", HOUR + ".all", basic_lines(), mtime=OLD)
    tree.ok("generate")
    assert HOUR + ".all.fn-EditAction.svgz" in graph_names(tree, "hourly")
    # The function is gone from the log: its two graphs go, and --verbose
    # names each of them, as it does for graphs of deleted logs.
    tree.log("hourly", HOUR + ".all", [stack(RUN, "Foo::bar", count=3), stack(RUN, UPLOAD, count=1)],
             mtime=OLD + 60)
    proc = tree.ok("generate", "--verbose")
    err = proc.stderr.decode("utf-8", "replace")
    assert "2 graphs removed" in summary(proc)
    for name in (HOUR + ".all.fn-EditAction.svgz", HOUR + ".all.fn-EditAction.reversed.svgz"):
        assert name not in graph_names(tree, "hourly")
        assert "graph_removed: hourly/" + name + "\n" in err, err


def test_missing_logs_dir_fails_without_touching_graphs(tree):
    tree.log("hourly", HOUR + ".index", basic_lines())
    tree.ok("generate")
    tree.write_config("logs_dir: %s/nope\n" % tree.root)
    proc = tree.run("generate")
    assert proc.returncode == 1
    assert b"nope" in proc.stderr
    assert (tree.svgs / "hourly" / (HOUR + ".index.svgz")).exists()


def test_command_line_and_config_errors(tree):
    assert tree.run("generate", "--bogus").returncode == 2
    assert tree.run("generate", "extra").returncode == 2
    tree.write_config("width: 1200\nfont_sise: 3\n")
    proc = tree.run("generate")
    assert proc.returncode == 78
    assert b"config.yaml:3: font_sise: unknown key" in proc.stderr
    help_text = tree.run("generate", "--help", config=False, data_dir=False).stdout
    assert b"logs_dir" in help_text and b"75" in help_text


def test_works_with_no_config_file_at_all(tree):
    if os.path.exists("/etc/arclamp/arclamp-svg.yaml"):
        pytest.skip("a system configuration exists here")
    tree.log("hourly", HOUR + ".index", basic_lines())
    tree.ok("generate", config=False)
    assert (tree.svgs / "hourly" / (HOUR + ".index.reversed.svgz")).exists()


def test_hostile_names_are_handled(tree):
    names = [b"2026-11-22_05.sp ace", b"2026-11-22_05.q\"uote'", b"2026-11-22_05.<b>&amp;",
             b"2026-11-22_05.bad\xff\xfe", b"2026-11-22_05.nl\nline"]
    for n in names:
        tree.log("hourly", n, basic_lines())
    tree.log(b"we\xffird <period>", b"2026-11-22.all", basic_lines())
    # Their tags are refused under %Y-%m-%d_%H (test_trust.py); with no format
    # matching them they keep the old reading and must still be safe.
    tree.write_config("log_formats: ['%Y-%m-%d']\n")
    tree.ok("generate")
    svgdir = os.fsencode(str(tree.svgs))
    for n in names:
        assert os.path.exists(os.path.join(svgdir, b"hourly", n + b".svgz")), n
    assert os.path.exists(os.path.join(svgdir, b"we\xffird <period>", b"2026-11-22.all.svgz"))
    page = (tree.root / "index.html").read_bytes()
    ok, why = xml_well_formed(page, html=True)
    assert ok, why
    assert b".<b>&" not in page and b"&lt;b&gt;&amp;amp;" in page
    check_links(tree, page.decode("utf-8"))
    check_index_json(tree)


# --- index ----------------------------------------------------------------


class LinkParser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.srcs, self.headings, self.tags = [], [], [], []
        self._h = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        if "src" in a:
            self.srcs.append(a["src"])
        if tag in ("h2", "h3"):
            self._h = [tag, ""]

    def handle_data(self, data):
        if self._h is not None:
            self._h[1] += data

    def handle_endtag(self, tag):
        if self._h is not None and tag == self._h[0]:
            self.headings.append(tuple(self._h))
            self._h = None


def check_links(tree, page):
    p = LinkParser()
    p.feed(page)
    assert not p.srcs and "link" not in p.tags and "script" not in p.tags
    targets = []
    for href in p.links:
        if href.startswith("#"):
            continue
        assert "://" not in href and not href.startswith("/"), href
        path = os.path.join(os.fsencode(str(tree.root)), urllib.parse.unquote_to_bytes(href))
        assert os.path.isfile(path), href
        targets.append(path)
    return p, targets


def check_index_json(tree):
    index = json.loads((tree.root / "index.json").read_text(encoding="utf-8",
                                                            errors="surrogatepass"))
    root = str(tree.root)
    listed = set()
    for e in index["logs"]:
        log = os.path.join(root, e["log"])
        st = os.stat(log)
        assert st.st_size == e["log_size"] and int(st.st_mtime) == e["log_mtime"]
        for key in ("svg", "reversed_svg"):
            assert e[key] and os.path.isfile(os.path.join(root, e[key]))
            listed.add(os.fsencode(e[key]))
        for fn in e["functions"]:
            for key in ("svg", "reversed_svg"):
                listed.add(os.fsencode(fn[key]))
    assert listed == tree.files("svgs")
    return index


def test_index_html_is_well_formed_with_working_relative_links(tree):
    tree.log("hourly", "2026-11-22_05.all", basic_lines())
    tree.log("hourly", "2026-11-22_05.index", basic_lines())
    tree.log("hourly", "2026-11-21_23.index", basic_lines())
    tree.log("daily", "2026-11-20.api", basic_lines(), gz=True)
    tree.log("daily", "2026-11-21.api", basic_lines())
    tree.ok("generate")
    page = (tree.root / "index.html").read_text()
    ok, why = xml_well_formed(page, html=True)
    assert ok, why
    p, targets = check_links(tree, page)
    # forward, reversed, 2 x 2 fn graphs of the all log, the api's diff vs the
    # day before (forward, reversed), and every log
    assert len([t for t in targets if t.endswith(b".svgz")]) == 2 * 5 + 4 + 2
    assert len([t for t in targets if b"/logs/" in t]) == 5
    # the command lines first (indexcmds.c), then grouped by period, then
    # date newest first
    assert [h for h in p.headings] == [("h2", "Open in pprof, speedscope or compare"),
                                       ("h2", "daily"), ("h3", "2026-11-21"), ("h3", "2026-11-20"),
                                       ("h2", "hourly"), ("h3", "2026-11-22"),
                                       ("h3", "2026-11-21")]
    # within a date: the all entry point first, each with forward/reversed/fn links
    hourly = page.index("<h2>hourly</h2>")
    day = page[page.index(">2026-11-22<", hourly):page.index(">2026-11-21<", hourly)]
    assert day.index("2026-11-22_05.all.svgz") < day.index("2026-11-22_05.index.svgz")
    assert "fn-EditAction.reversed.svgz" in day


def test_index_json_matches_the_files(tree):
    tree.log("hourly", HOUR + ".all", basic_lines(), mtime=OLD)
    tree.log("daily", DAY + ".index", basic_lines(), gz=True, mtime=OLD)
    tree.log("daily", "weird name", basic_lines(), mtime=OLD)
    tree.ok("generate")
    index = check_index_json(tree)
    by_name = {e["name"]: e for e in index["logs"]}
    e = by_name[HOUR + ".all"]
    assert (e["period"], e["time"], e["date"], e["entrypoint"]) == \
        ("hourly", HOUR, "2026-11-22", "all")
    assert e["log"] == "logs/hourly/%s.all.log" % HOUR
    assert e["svg"] == "svgs/hourly/%s.all.svgz" % HOUR
    assert [f["label"] for f in e["functions"]] == ["EditAction", "Upload"]
    assert e["functions"][0]["function"] == EDIT
    d = by_name[DAY + ".index"]
    assert d["compressed"] is True and d["log"].endswith(".log.gz") and d["functions"] == []
    w = by_name["weird name"]
    assert w["time"] is None and w["entrypoint"] == "weird name"
    assert w["date"] == time.strftime("%Y-%m-%d", time.gmtime(OLD))


def test_index_links_work_with_svgs_dir_outside_data_dir(tree):
    site = tree.root / "site"
    other = tree.root / "web" / "graphs"
    tree.write_config("svgs_dir: %s\nlogs_dir: %s\n" % (other, tree.logs))
    tree.log("hourly", HOUR + ".index", basic_lines())
    tree.ok("generate", "--data-dir", str(site), data_dir=False)
    page = (site / "index.html").read_text()
    assert 'href="../web/graphs/hourly/%s.index.svgz"' % HOUR in page
    assert 'href="../logs/hourly/%s.index.log"' % HOUR in page
    assert (other / "hourly" / (HOUR + ".index.svgz")).exists()


def test_file_names_cannot_forge_log_lines(tree):
    tree.log("hourly", b"2026-11-22_05.x\n2026-11-22T00:00:00Z arclamp-svg[1] info forged: \x1b[2J",
             b"garbage without a count\n")
    tree.write_config("log_formats: ['%Y-%m-%d']\n")  # not refused: drawn, and it fails
    proc = tree.run("generate")
    assert proc.returncode == 1
    err = proc.stderr
    assert b"\x1b" not in err
    assert not [l for l in err.split(b"\n") if l.startswith(b"2026-11-22T00:00:00Z")]
    assert b"\\x0a2026-11-22T00:00:00Z" in err


def test_missing_data_dir_without_logs_is_not_created(tree):
    # A mistyped --data-dir (or the built-in default on a machine without
    # Arc Lamp) must not appear on disk: nothing to draw, nothing created.
    missing = tree.root / "no" / "such" / "arclamp"
    proc = tree.run("generate", "--data-dir", str(missing), data_dir=False)
    assert proc.returncode == 1
    assert b"logs_dir: %s/logs: No such file or directory (nothing done)" % str(missing).encode() \
        in proc.stderr
    assert not (tree.root / "no").exists()

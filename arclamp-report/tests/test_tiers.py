"""arclamp-report tiers, the request-tier pages, on tier tables as
arclamp-log writes them (<logs>/<period>/<bucket>.tiers: merged tier lines,
common/src/tierline.h; the .tiers.json view beside them is not read): one
page per bucket with the header figures, identities by their _total time,
tiers with shares and percentiles from their histograms, the trend over
the previous buckets; hostile identities; malformed lines counted and the
rest shown; a page that cannot be written costing only itself; pages
rewritten only when their inputs (the trend's included) change, and
removed when their table goes; generate running it and the indexes
linking it."""

import fcntl
import json
import math
import os
import re
import subprocess
from html.parser import HTMLParser

from test_generate import SVG_BIN
from test_generate import report as run

HOUR0 = 1764115200  # 2025-11-26 00:00 UTC
EVIL = '</td><script>alert(1)</script><img src=x onerror="alert(2)">\'"&amp;'


def hist_index(ns):
    """The histogram bucket of a time (common/src/tierhist.h's formula)."""
    if ns < 64:
        return ns
    e = ns.bit_length() - 1
    return (e - 5) * 64 + ((ns >> (e - 6)) & 63)


def tier(calls, mean, p90=None):
    """`calls` calls of mean `mean` us: half at 0.8 x mean, up to 90% at p90
    (2 x mean), the rest at 4 x mean, so the percentiles are those."""
    values = []
    for i in range(1, calls + 1):
        v = mean * 0.8 if i <= math.ceil(calls * 0.5) else \
            (p90 if p90 is not None else mean * 2) if i <= math.ceil(calls * 0.9) else mean * 4
        values.append(int(v * 1000))
    hist = {}
    for v in values:
        hist[hist_index(v)] = hist.get(hist_index(v), 0) + 1
    return {"calls": calls, "total_ns": round(calls * mean * 1000), "hist": hist}


def table(bucket, start, identities, **figures):
    doc = {"start": start, "requests": 5000, "traced": 500, "trips": 0, "resumes": 0,
           "skipped": 0, "identities": identities}
    doc.update(figures)
    return doc


def escape(identity):
    """IDENTITY as a tier line spells it: '%', space, control bytes, DEL as %XX."""
    out = []
    for b in identity.encode():
        out.append("%%%02X" % b if b in b"% \x7f" or b < 0x20 else chr(b))
    return "".join(out)


def tier_lines(doc):
    """The table as arclamp-log's merged lines of its first minute."""
    start = doc["start"]
    head = "tiers/1 %s %d %d * 0 " % ("%s", start, start + 60)
    lines = []
    for identity, tiers in doc["identities"].items():
        for name, t in tiers.items():
            hist = ",".join("%d:%d" % kv for kv in sorted(t["hist"].items()))
            lines.append(head % "agg" + "%s %s %d %d %s\n" % (escape(identity), name, t["calls"],
                                                             t["total_ns"], hist))
    lines.append(head % "status" + "%d %d %d %d 0 %d\n" % (
        doc["requests"], doc["traced"], doc["trips"], doc["resumes"], doc["skipped"]))
    return "".join(lines)


def write_table(data, period, bucket, doc):
    d = data / "logs" / period
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{bucket}.tiers"
    path.write_text(doc if isinstance(doc, str) else tier_lines(doc))
    return path


def hour(h):
    return "2026-11-26_%02d.excimer" % h


def simple(h, view_mean=100000.0):
    """view: _total, db (a third of it), parse; edit heavier per request
    but rarer; api has no _total."""
    return table(hour(h), HOUR0 + 3600 * h, {
        "view": {"_total": tier(100, view_mean), "db": tier(300, view_mean / 9),
                 "parse": tier(100, view_mean / 4)},
        "edit": {"_total": tier(10, 5000000.0), "db": tier(40, 100000.0)},
        "api:query": {"db": tier(5, 1000.0)},
    })


def tier_pages(data):
    root = data / "reports" / "tiers"
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


class Page(HTMLParser):
    """The text of a page's cells by table, its elements, its titles."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.tables, self.headings, self.titles = [], [], [], []
        self._cell = self._text = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag in ("h1", "h2", "title"):
            self._text = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self._cell.strip())
            self._cell = None
        elif tag in ("h1", "h2"):
            self.headings.append(self._text)
            self._text = None
        elif tag == "title":
            self.titles.append(self._text)
            self._text = None

    def handle_data(self, data):
        if self._text is not None:
            self._text += data
        if self._cell is not None and self._text is None:
            self._cell += data


def page(data, period, bucket):
    return Page((data / "reports" / "tiers" / period / f"{bucket}.html").read_text())


def rows(tbl):
    """{first cell: the row} of a table without its header."""
    return {r[0]: r for r in tbl[1:]}


def test_a_page_per_bucket_with_figures_ranking_and_trend(tmp_path):
    for h in range(10):  # view's mean grows 10% an hour
        write_table(tmp_path, "hourly", hour(h), simple(h, 100000.0 * 1.1 ** h))
    write_table(tmp_path, "hourly", hour(10), table(hour(10), HOUR0 + 36000, {
        "view": simple(9)["identities"]["view"]}, trips=3, resumes=2, skipped=11))
    write_table(tmp_path, "daily", "2026-11-26.excimer", table("2026-11-26.excimer", HOUR0, {}))
    run("tiers", tmp_path)
    assert tier_pages(tmp_path) == sorted(
        ["daily/2026-11-26.excimer.html", "index.html"]
        + ["hourly/%s.html" % hour(h) for h in range(11)])

    p = page(tmp_path, "hourly", hour(9))
    assert p.headings[0] == "Request tiers: hourly \u2013 %s" % hour(9)
    figures = p.tables[0]
    assert figures[1] == ["5,000", "500 (10.0%)", "0", "0", "0"]
    # identities by _total time: edit 50 s, view 100 x 236 ms; api (none) last
    summary = p.tables[1]
    assert [r[0] for r in summary[1:]] == ["edit", "view", "api:query"]
    assert p.headings[2:5] == ["edit", "view", "api:query"]
    view = rows(p.tables[3])
    assert list(view) == ["_total", "db", "parse"]  # _total first, then by time
    # p50, p90, p99: the midpoints of their histogram buckets (within 1%)
    assert view["_total"][1:8] == ["100", "23.6 s", "100.0%", "236 ms", "188 ms", "472 ms",
                                   "944 ms"]
    assert view["db"][3] == "33.3%" and view["parse"][3] == "25.0%"
    assert rows(p.tables[4])["db"][3] == "\u2013"  # api: no _total, no share
    # the trend: the 8 buckets before (01..08) and this one; +10% a bucket
    spark = [t for t in p.titles[1:] if t.startswith(hour(1))][0]
    assert [line.split(":")[0] for line in spark.strip().split("\n")] == \
        [hour(h) for h in range(1, 10)]
    assert hour(0) not in "".join(p.titles)
    assert view["_total"][-1] == "mean +10%"
    assert view["db"][-1].startswith("mean +10%") and "share +0.0 pt" in view["db"][-1]

    # the breaker and skipped calls are said; edit is gone, view's mean fell back
    p = page(tmp_path, "hourly", hour(10))
    text = (tmp_path / "reports/tiers/hourly" / f"{hour(10)}.html").read_text()
    assert "breaker tripped 3 times (2 resumes)" in text
    assert "11 tier calls were not recorded" in text
    assert p.tables[0][1][2:] == ["3", "2", "11"]
    assert rows(p.tables[2])["_total"][-1] == "mean -58%"
    # the first bucket has no trend; the daily one no identity
    assert "no trend" in (tmp_path / "reports/tiers/hourly" / f"{hour(0)}.html").read_text()
    assert "No identity in this bucket" in \
        (tmp_path / "reports/tiers/daily/2026-11-26.excimer.html").read_text()

    index = (tmp_path / "reports/tiers/index.html").read_text()
    assert 'href="hourly/%s.html"' % hour(10) in index
    assert index.index(hour(10)) < index.index(hour(9))  # newest first


def test_hostile_identities_stay_text_and_are_capped(tmp_path):
    ids = {EVIL: {"_total": tier(1, 9e9), "db": tier(1, 5e9)},
           "x" * 250: {"_total": tier(1, 8e9)}}
    for i in range(150):
        ids["id%03d" % i] = {"_total": tier(1, 1000.0 + i)}
    ids["many"] = {"_total": tier(1, 7e9), **{"t%02d" % i: tier(1, 100.0 + i) for i in range(40)}}
    write_table(tmp_path, "hourly", hour(1), table(hour(1), HOUR0 + 3600, ids))
    write_table(tmp_path, "hourly", hour(2), table(hour(2), HOUR0 + 7200, ids))
    run("tiers", tmp_path)
    text = (tmp_path / "reports/tiers/hourly" / f"{hour(2)}.html").read_text()
    p = Page(text)
    assert "script" not in p.tags and "img" not in p.tags
    assert EVIL in p.headings  # shown as the text it is
    assert rows(p.tables[1])[EVIL][0] == EVIL
    # the long name is cut, the caps (100 identities, 32 tiers) say what is left out
    assert "x" * 250 not in text and "x" * 200 + "\u2026 (250 bytes)" in text
    assert len(p.tables[1]) == 1 + 100
    assert "53 more identities not shown" in text
    assert "9 more tiers not shown" in text
    # the caps are options
    run("tiers", tmp_path, "--reports-dir", str(tmp_path / "other"), "--max-identities", "2",
        "--max-tiers", "1")
    text = (tmp_path / "other/tiers/hourly" / f"{hour(2)}.html").read_text()
    assert "151 more identities not shown" in text and "1 more tier not shown." in text


def test_a_page_that_cannot_be_written_costs_only_itself(tmp_path):
    for h in range(1, 4):
        write_table(tmp_path, "hourly", hour(h), simple(h))
    # where hour 2's page goes, a directory: its page cannot be written
    (tmp_path / "reports/tiers/hourly" / f"{hour(2)}.html").mkdir(parents=True)
    proc = run("tiers", tmp_path, ok=False)
    assert proc.returncode == 1
    assert re.search(r"error table_failed: .*%s\.html" % re.escape(hour(2)), proc.stderr.decode())
    assert tier_pages(tmp_path) == ["hourly/%s.html" % hour(h) for h in (1, 3)] + ["index.html"]
    # the next bucket's trend has the bucket all the same: its table was read
    p3 = page(tmp_path, "hourly", hour(3))
    assert [t for t in p3.titles[1:] if t.startswith(hour(1))]
    assert "Could not be read" not in (tmp_path / "reports/tiers/hourly" /
                                       f"{hour(3)}.html").read_text()
    index = (tmp_path / "reports/tiers/index.html").read_text()
    assert "not updated: %s.html: " % hour(2) in index
    assert str(tmp_path) not in index  # no path of this host on the web


def test_a_table_with_no_json_view_beside_it_has_its_page(tmp_path):
    """The report reads <bucket>.tiers, the source of truth: a table whose
    .tiers.json view is missing (or stale, or alone) is shown as it is."""
    write_table(tmp_path, "hourly", hour(1), simple(1))
    assert not (tmp_path / "logs/hourly" / f"{hour(1)}.tiers.json").exists()
    # a JSON view alone, and one saying otherwise than its table: not read
    (tmp_path / "logs/hourly" / f"{hour(2)}.tiers.json").write_text("{}")
    (tmp_path / "logs/hourly" / f"{hour(1)}.tiers.json").write_text("not even JSON")
    run("tiers", tmp_path)
    assert tier_pages(tmp_path) == ["hourly/%s.html" % hour(1), "index.html"]
    p = page(tmp_path, "hourly", hour(1))
    assert [r[0] for r in p.tables[1][1:]] == ["edit", "view", "api:query"]
    assert p.tables[0][1] == ["5,000", "500 (10.0%)", "0", "0", "0"]


def test_malformed_lines_are_counted_and_the_rest_shown(tmp_path):
    """A line that is no valid tier line (a count above 2^53, a bad
    histogram, garbage, a torn last line) is skipped and counted: said on
    stderr and on the page, whose figures are the other lines'; the run
    succeeds and the next page's trend reads the table too."""
    write_table(tmp_path, "hourly", hour(1), simple(1))
    start = HOUR0 + 3600 * 2
    bad = ("tiers/1 status %d %d * 0 %d 0 0 0 0 0\n" % (start, start + 60, 2 ** 53 + 2)
           + "tiers/1 agg %d %d * 0 view db 2 5 1:1\n" % (start, start + 60)
           + "\x00\xff not a tier line\n")
    torn = "tiers/1 agg %d %d * 0 view db 1 5" % (start, start + 60)
    write_table(tmp_path, "hourly", hour(2), bad + tier_lines(simple(2)) + torn)
    proc = run("tiers", tmp_path)
    err = proc.stderr.decode()
    assert "warning table_lines_skipped: " in err
    assert "%s.tiers: 4 lines skipped: no valid tier line" % hour(2) in err
    text = (tmp_path / "reports/tiers/hourly" / f"{hour(2)}.html").read_text()
    assert "4 lines of this bucket's table could not be read" in text
    p = page(tmp_path, "hourly", hour(2))
    assert p.tables[0][1] == ["5,000", "500 (10.0%)", "0", "0", "0"]
    view = rows(p.tables[3])
    assert view["db"][1] == "300"  # the bad lines' calls are not in it
    assert view["_total"][-1] == "mean +0%"  # the trend from hour 1
    assert "not updated" not in (tmp_path / "reports/tiers/index.html").read_text()


def test_pages_follow_their_inputs_and_the_trend(tmp_path):
    paths = [write_table(tmp_path, "hourly", hour(h), simple(h)) for h in range(12)]
    run("tiers", tmp_path)
    out = tmp_path / "reports/tiers/hourly"
    inode = {h: (out / f"{hour(h)}.html").stat().st_ino for h in range(12)}
    assert (out / f"{hour(11)}.html").stat().st_mtime_ns == max(
        p.stat().st_mtime_ns for p in paths[3:12])
    proc = run("tiers", tmp_path)
    assert b"0 pages brought up to date" in proc.stderr
    assert {h: (out / f"{hour(h)}.html").stat().st_ino for h in range(12)} == inode
    # bucket 2 changes: its page and the 8 after it (its trend) are rewritten
    paths[2].write_text(tier_lines(simple(2, 500000.0)))
    os.utime(paths[2], ns=(paths[11].stat().st_mtime_ns + 10**9,) * 2)
    proc = run("tiers", tmp_path)
    assert b"9 pages brought up to date" in proc.stderr
    changed = {h for h in range(12) if (out / f"{hour(h)}.html").stat().st_ino != inode[h]}
    assert changed == set(range(2, 11))
    view = rows(page(tmp_path, "hourly", hour(3)).tables[3])
    assert view["_total"][-1] == "mean -80%"


def test_stale_pages_go_with_their_tables(tmp_path):
    a = write_table(tmp_path, "hourly", hour(1), simple(1))
    b = write_table(tmp_path, "daily", "2026-11-26.excimer", simple(1))
    run("tiers", tmp_path)
    stray = tmp_path / "reports/tiers/hourly/leftover.html"
    stray.write_text("x")
    (tmp_path / "reports/tiers/hourly/.arclamp-tmp-abc").write_text("x")
    run("tiers", tmp_path)
    assert tier_pages(tmp_path) == ["daily/2026-11-26.excimer.html",
                                    "hourly/%s.html" % hour(1), "index.html"]
    a.unlink()
    run("tiers", tmp_path)
    assert tier_pages(tmp_path) == ["daily/2026-11-26.excimer.html", "index.html"]
    assert not (tmp_path / "reports/tiers/hourly").exists()
    b.unlink()
    run("tiers", tmp_path)
    assert not (tmp_path / "reports/tiers").exists()  # nothing to link any more


def test_odd_files_are_skipped_and_nothing_escapes(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "x.tiers"
    secret.write_text(tier_lines(simple(1)))
    write_table(tmp_path, "hourly", hour(1), simple(1))
    logs = tmp_path / "logs"
    (logs / "hourly" / f"{hour(2)}.tiers").symlink_to(secret)
    (logs / "hourly" / "notabucket.tiers").write_text(tier_lines(simple(1)))
    (logs / "linked").symlink_to(outside, target_is_directory=True)
    fifo = logs / "hourly" / f"{hour(3)}.tiers"
    os.mkfifo(fifo)
    # a tiers/ directory planted as a symlink to outside is not written through
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "tiers").symlink_to(outside, target_is_directory=True)
    before = sorted(os.listdir(outside))
    proc = run("tiers", tmp_path, ok=False)
    assert proc.returncode == 1
    assert b"notabucket.tiers: no configured format names it" in proc.stderr
    assert sorted(os.listdir(outside)) == before
    (tmp_path / "reports" / "tiers").unlink()
    run("tiers", tmp_path)
    assert tier_pages(tmp_path) == ["hourly/%s.html" % hour(1), "index.html"]


def test_a_table_past_the_report_s_limit_adds_the_rest_up_as_other(tmp_path):
    """Memory follows --max-table-identities (2000), not the file: the lines
    of further identities are added up as _other (as arclamp-log does),
    said on stderr and on the page."""
    ids = {"id%05d" % i: {"_total": tier(1, 1.0 + i)} for i in range(2500)}
    write_table(tmp_path, "hourly", hour(1), table(hour(1), HOUR0 + 3600, ids))
    proc = run("tiers", tmp_path)
    assert b"warning table_limited: " in proc.stderr
    assert b"(--max-table-identities 2000): 500 lines added up as _other, 0 dropped" in \
        proc.stderr
    text = (tmp_path / "reports/tiers/hourly" / f"{hour(1)}.html").read_text()
    assert "500 lines were added up as _other" in text
    p = page(tmp_path, "hourly", hour(1))
    assert p.tables[1][1][0] == "_other"  # 500 identities' time: the heaviest
    assert "1,901 more identities not shown" in text
    run("tiers", tmp_path, "--reports-dir", str(tmp_path / "other"),
        "--max-table-identities", "10")
    text = (tmp_path / "other/tiers/hourly" / f"{hour(1)}.html").read_text()
    assert "2,490 lines were added up as _other" in text


def test_one_job_at_a_time(tmp_path):
    write_table(tmp_path, "hourly", hour(1), simple(1))
    (tmp_path / "reports").mkdir()
    with open(tmp_path / "reports" / ".arclamp-report.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = run("tiers", tmp_path, ok=False)
    assert proc.returncode == 75 and b"another generate is running" in proc.stderr
    assert not (tmp_path / "reports" / "tiers").exists()


def test_generate_makes_them_and_every_index_links_them(tmp_path):
    write_table(tmp_path, "hourly", hour(1), simple(1))
    (tmp_path / "logs/hourly" / f"{hour(1)}.index.log").write_text("index.php;main 3\n")
    # a period of run logs named as the tier pages' directory gets no XHProf pages
    (tmp_path / "logs/tiers").mkdir()
    (tmp_path / "logs/tiers" / f"{hour(1)}.index.runs").write_text("")
    run("generate", tmp_path)
    assert tier_pages(tmp_path) == ["hourly/%s.html" % hour(1), "index.html"]
    reports = (tmp_path / "reports/index.html").read_text()
    assert 'href="tiers/index.html"' in reports
    assert 'href="../index.html">XHProf reports' in \
        (tmp_path / "reports/tiers/index.html").read_text()
    subprocess.run([SVG_BIN, "generate", "--data-dir", str(tmp_path)], check=True,
                   capture_output=True, timeout=120)
    assert 'href="reports/tiers/index.html"' in (tmp_path / "index.html").read_text()
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["tiers_index"] == "reports/tiers/index.html"
    assert index["reports_index"] == "reports/index.html"
    # no tables left: no tier pages, and no links to them
    (tmp_path / "logs/hourly" / f"{hour(1)}.tiers").unlink()
    run("generate", tmp_path)
    subprocess.run([SVG_BIN, "generate", "--data-dir", str(tmp_path)], check=True,
                   capture_output=True, timeout=120)
    assert "tiers/index.html" not in (tmp_path / "reports/index.html").read_text()
    assert json.loads((tmp_path / "index.json").read_text())["tiers_index"] is None
    assert "tiers/index.html" not in (tmp_path / "index.html").read_text()

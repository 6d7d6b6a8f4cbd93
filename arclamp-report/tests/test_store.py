"""arclamp-report and the object store (object_store: in --config FILE):
generate and tiers send this host's run logs and tier tables (gzip'ed,
host-prefixed) and every page to a real one-node Swift (scripts/swift-server,
v1 tempauth, and its s3api for S3), only what changed; a store that is down
costs the uploads only; a generator drawing from the store reports every
host's runs and requests."""

import gzip
import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from test_generate import report, run_lines, write_log, RUN_A, RUN_B
from test_tiers import page, simple, table, write_table, hour, HOUR0

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common" / "tests"))
from swiftkit import SwiftClient, s3_config, swift_config, swift_missing, swift_server  # noqa: E402

pytestmark = pytest.mark.skipif(bool(swift_missing()), reason=swift_missing() or "-")

BUCKET = "2026-11-26_00.excimer"   # hour(0) of test_tiers
RUNLOG = BUCKET + ".index"


@pytest.fixture(scope="module")
def swift(tmp_path_factory):
    with swift_server(tmp_path_factory.mktemp("swift")) as s:
        yield s


@pytest.fixture
def client(swift):
    return SwiftClient(swift)


def job(cmd, data, config_text, ok=True):
    """arclamp-report CMD on `data` with the configuration; its stderr (the
    job's events: run_finished carries the store's summary)."""
    cfg = data / "arclamp-report.yaml"
    cfg.write_text(config_text)
    proc = report(cmd, data, "--config", str(cfg), ok=ok)
    return proc, proc.stderr.decode(errors="replace")


def fill(data, runs=(("r1", RUN_A), ("r2", RUN_B)), requests=5000, host="web1"):
    write_log(data, "hourly", RUNLOG,
              "".join(run_lines(rid, arcs, host=host) for rid, arcs in runs))
    write_table(data, "hourly", BUCKET, table(BUCKET, HOUR0, simple(0)["identities"],
                                              requests=requests))


def local_pages(data):
    root = data / "reports"
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.is_file() and not any(part.startswith(".")
                                             for part in p.relative_to(root).parts))


def test_generate_publishes_runs_tiers_and_pages(tmp_path, swift, client):
    prefix = "r1"
    fill(tmp_path)
    _p, err = job("generate", tmp_path, swift_config(swift, prefix))
    pages = local_pages(tmp_path)
    assert "store: 1 run logs, 1 tier tables, %d pages sent" % len(pages) in err, err

    # this host's files, gzip'ed, with the retention
    logs = {i["name"] for i in client.listing(prefix + "-logs-hourly")}
    assert logs == {RUNLOG + ".runs.gz", BUCKET + ".tiers.gz"}
    for name, local in ((RUNLOG + ".runs.gz", "%s.runs" % RUNLOG),
                        (BUCKET + ".tiers.gz", "%s.tiers" % BUCKET)):
        status, h, body = client.request("GET", "%s-logs-hourly/%s" % (prefix, name))
        assert status == 200
        assert h["Content-Encoding"] == "gzip"
        assert gzip.decompress(body) == (tmp_path / "logs/hourly" / local).read_bytes()
        assert abs(int(h["X-Delete-At"]) - (time.time() + 1095 * 86400)) < 3600

    # every page under its path, with its type; nothing private
    stored = {i["name"]: i for i in client.listing(prefix + "-reports")}
    assert sorted(stored) == pages
    assert "index.html" in stored and "tiers/index.html" in stored
    assert "tiers/hourly/%s.html" % BUCKET in stored
    types = {"html": "text/html; charset=utf-8", "svg": "image/svg+xml",
             "json": "application/json"}
    for name in ("hourly/report/%s.html" % RUNLOG, "hourly/callgraph/%s.svg" % RUNLOG,
                 "hourly/summary/%s.json" % RUNLOG, "tiers/hourly/%s.html" % BUCKET):
        _s, h, body = client.request("GET", prefix + "-reports/" + name)
        assert h["Content-Type"] == types[name.rsplit(".", 1)[1]], name
        assert body == (tmp_path / "reports" / name).read_bytes()
    private = tmp_path / "reports" / ".arclamp-report"
    assert stat.S_IMODE(private.stat().st_mode) == 0o700
    assert (private / "published-reports").exists()

    # only what changed is sent again
    _p, err = job("generate", tmp_path, swift_config(swift, prefix))
    assert "store: 0 run logs, 0 tier tables, 0 pages sent" in err, err
    assert "%d unchanged" % (len(pages) + 2) in err, err
    write_log(tmp_path, "hourly", RUNLOG, run_lines("r1", RUN_A) + run_lines("r3", RUN_A))
    _p, err = job("generate", tmp_path, swift_config(swift, prefix))
    assert "store: 1 run logs, 0 tier tables" in err, err
    _s, _h, body = client.request("GET", prefix + "-reports/hourly/summary/%s.json" % RUNLOG)
    assert body == (tmp_path / ("reports/hourly/summary/%s.json" % RUNLOG)).read_bytes()

    # `tiers` publishes too
    write_table(tmp_path, "hourly", BUCKET, table(BUCKET, HOUR0, simple(0)["identities"],
                                                  requests=7000))
    _p, err = job("tiers", tmp_path, swift_config(swift, prefix))
    assert "store: 0 run logs, 1 tier tables, 1 pages sent" in err, err


def test_partial_last_line_is_not_published(tmp_path, swift, client):
    prefix = "r2"
    whole = run_lines("r1", RUN_A)
    write_log(tmp_path, "hourly", RUNLOG, whole + "xhprof/1 r2 begin 17641")
    job("generate", tmp_path, swift_config(swift, prefix))
    _s, _h, body = client.request("GET", "%s-logs-hourly/%s.runs.gz" % (prefix, RUNLOG))
    assert gzip.decompress(body).decode() == whole


def test_store_down_costs_the_uploads_only(tmp_path, swift, client):
    prefix = "r3"
    config = swift_config(swift, prefix, "  connect_timeout: 2\n  request_timeout: 10\n")
    fill(tmp_path)
    swift.stop()
    try:
        proc, err = job("generate", tmp_path, config, ok=False)
    finally:
        swift.start()
    assert proc.returncode == 0, err
    assert "store_failed" in err and "store_down" in err, err
    assert "failed (sent again next run)" in err, err
    # the pages are written all the same
    assert (tmp_path / ("reports/hourly/summary/%s.json" % RUNLOG)).exists()
    assert (tmp_path / ("reports/tiers/hourly/%s.html" % BUCKET)).exists()
    assert client.listing(prefix + "-reports") == []
    # the next run sends everything
    _p, err = job("generate", tmp_path, config)
    assert "store: 1 run logs, 1 tier tables, %d pages sent" % len(local_pages(tmp_path)) \
        in err, err
    assert "failed" not in err, err


def test_bad_config_is_refused(tmp_path, swift):
    fill(tmp_path)
    _p, err = job("generate", tmp_path, swift_config(swift, "r4") + "title: x\n", ok=False)
    assert _p.returncode == 78, err
    assert "arclamp-report.yaml:" in err and "title" in err, err
    _p, err = job("tiers", tmp_path, swift_config(swift, "r4", "  host: ../evil\n"), ok=False)
    assert _p.returncode == 78 and "object_store" in err and "host" in err, err
    _p, err = job("generate", tmp_path, "object_store:\n  retries: many\n", ok=False)
    assert _p.returncode == 78 and "object_store.retries" in err, err
    # no store: the jobs as before
    _p, err = job("generate", tmp_path, "object_store:\n  type: none\n")
    assert "store:" not in err


def host_publishes(root, swift, prefix, host, runs, requests):
    fill(root, runs, requests, host=host)
    _p, err = job("generate", root, swift_config(swift, prefix, "  host: %s\n" % host))
    assert "store: 1 run logs, 1 tier tables" in err, err


def test_generator_reports_every_hosts_runs_and_requests(tmp_path, swift, client):
    prefix = "r5"
    host_publishes(tmp_path / "eqiad", swift, prefix, "eqiad",
                   (("e1", RUN_A), ("e2", RUN_B)), 5000)
    host_publishes(tmp_path / "codfw", swift, prefix, "codfw",
                   (("c1", RUN_A), ("c2", RUN_A), ("c3", RUN_B)), 3000)
    names = {i["name"] for i in client.listing(prefix + "-logs-hourly")}
    assert names == {"%s/%s" % (h, n) for h in ("eqiad", "codfw")
                     for n in (RUNLOG + ".runs.gz", BUCKET + ".tiers.gz")}

    gen = tmp_path / "gen"
    gen.mkdir()
    config = swift_config(swift, prefix, "  from_store: true\n  publish: false\n")
    _p, err = job("generate", gen, config)
    assert "from the store: 2 files" in err, err
    summary = json.loads((gen / ("reports/hourly/summary/%s.json" % RUNLOG)).read_text())
    assert summary["runs"] == 2 + 3
    all_view = json.loads((gen / ("reports/hourly/summary/%s.all.json" % BUCKET)).read_text())
    assert all_view["runs"] == 5
    assert page(gen, "hourly", BUCKET).tables[0][1][0] == "8,000"
    # publish: false (the hosts' own pages are in the store, not the generator's)
    assert "; store:" not in err, err
    assert not (gen / "reports/.arclamp-report/published-reports").exists()

    # one host's runs change: only that file is fetched again; tiers alone too
    write_log(tmp_path / "codfw", "hourly", RUNLOG, run_lines("c9", RUN_A))
    job("generate", tmp_path / "codfw", swift_config(swift, prefix, "  host: codfw\n"))
    _p, err = job("tiers", gen, config)
    assert "(1 fetched, 2 objects" in err, err
    _p, err = job("generate", gen, config)
    summary = json.loads((gen / ("reports/hourly/summary/%s.json" % RUNLOG)).read_text())
    assert summary["runs"] == 2 + 1

    # only the chosen hosts
    _p, err = job("generate", gen, config + "  hosts: [codfw]\n")
    summary = json.loads((gen / ("reports/hourly/summary/%s.json" % RUNLOG)).read_text())
    assert summary["runs"] == 1
    assert page(gen, "hourly", BUCKET).tables[0][1][0] == "3,000"


@pytest.mark.parametrize("bucket", ["arclamp-report-s3"])
def test_s3_publish(tmp_path, swift, client, bucket):
    client.request("PUT", bucket)  # s3api's buckets are Swift containers
    prefix = "r6"
    fill(tmp_path)
    _p, err = job("generate", tmp_path, s3_config(swift, prefix, bucket, "  host: eqiad\n"))
    pages = local_pages(tmp_path)
    assert "store: 1 run logs, 1 tier tables, %d pages sent" % len(pages) in err, err
    keys = {i["name"] for i in client.listing(bucket)}
    assert "%s-logs-hourly/eqiad/%s.runs.gz" % (prefix, RUNLOG) in keys
    assert "%s-logs-hourly/eqiad/%s.tiers.gz" % (prefix, BUCKET) in keys
    assert {k for k in keys if k.startswith(prefix + "-reports/")} == \
        {"%s-reports/%s" % (prefix, p) for p in pages}
    _s, h, body = client.request("GET", "%s/%s-logs-hourly/eqiad/%s.runs.gz"
                                 % (bucket, prefix, RUNLOG))
    assert h["Content-Encoding"] == "gzip"
    assert gzip.decompress(body) == (tmp_path / ("logs/hourly/%s.runs" % RUNLOG)).read_bytes()
    _s, h, _b = client.request("GET", "%s/%s-reports/hourly/report/%s.html"
                               % (bucket, prefix, RUNLOG))
    assert h["Content-Type"] == "text/html; charset=utf-8"
    _p, err = job("generate", tmp_path, s3_config(swift, prefix, bucket, "  host: eqiad\n"))
    assert "0 pages sent" in err, err

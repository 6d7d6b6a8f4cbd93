"""arclamp-svg and the object store: generate and publish send logs, graphs
and the index to a real one-node Swift (scripts/swift-server, v1 tempauth,
and its s3api for S3), only what changed; a store that is down costs the
uploads only; a generator draws one graph per bucket and entry point from
the logs several hosts published, and export's time range adds them up."""

import gzip
import json
import os
import sys
import time
import urllib.parse
from pathlib import Path

import pytest

from conftest import Tree, read_svgz, root_total, stack

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common" / "tests"))
from swiftkit import SwiftClient, s3_config, swift_config, swift_missing, swift_server  # noqa: E402

pytestmark = pytest.mark.skipif(bool(swift_missing()), reason=swift_missing() or "-")

HOUR = "2026-11-28_10.excimer"
DAY = "2026-11-28.excimer"


@pytest.fixture(scope="module")
def swift(tmp_path_factory):
    with swift_server(tmp_path_factory.mktemp("swift")) as s:
        yield s


@pytest.fixture
def client(swift):
    return SwiftClient(swift)


def samples_of(svgz):
    """The root box's sample count of a graph."""
    return root_total(read_svgz(svgz))


def metric_values(tree):
    """The unlabelled samples of `arclamp-svg metrics`, by name."""
    out = tree.ok("metrics").stdout.decode()
    values = {}
    for line in out.splitlines():
        if line and not line.startswith("#") and "{" not in line:
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


def fill(tree, index_count=3, api_count=2):
    tree.log("hourly", HOUR + ".index", [stack("A", "B", count=index_count)])
    tree.log("hourly", HOUR + ".api", [stack("C", count=api_count)], gz=True)
    tree.log("daily", DAY + ".index", [stack("A", count=5)])


def test_generate_publishes_logs_graphs_and_index(tree, swift, client):
    prefix = "t1"
    tree.write_config(swift_config(swift, prefix))
    fill(tree)
    out = tree.ok("generate").stdout.decode()
    assert "store: 3 logs, 6 graphs sent" in out, out

    logs = {i["name"]: i for i in client.listing(prefix + "-logs-hourly")}
    assert set(logs) == {HOUR + ".index.log.gz", HOUR + ".api.log.gz"}
    status, headers, body = client.request("GET", prefix + "-logs-hourly/" + HOUR + ".index.log.gz")
    assert status == 200
    assert headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(body).decode() == stack("A", "B", count=3) + "\n"
    # the original's three years, as X-Delete-After: an X-Delete-At that far ahead
    delete_at = int(headers["X-Delete-At"])
    assert abs(delete_at - (time.time() + 94608000)) < 3600
    # a log that was gzip'ed already is stored as it is
    _s, _h, api = client.request("GET", prefix + "-logs-hourly/" + HOUR + ".api.log.gz")
    assert api == (tree.logs / "hourly" / (HOUR + ".api.log.gz")).read_bytes()

    svgs = {i["name"]: i for i in client.listing(prefix + "-svgs-hourly")}
    assert HOUR + ".index.svgz" in svgs and HOUR + ".index.reversed.svgz" in svgs
    _s, h, body = client.request("GET", prefix + "-svgs-hourly/" + HOUR + ".index.svgz")
    assert h["Content-Type"] == "image/svg+xml" and h["Content-Encoding"] == "gzip"
    assert body == (tree.svgs / "hourly" / (HOUR + ".index.svgz")).read_bytes()

    # the original's index: the listing items of the svgs containers
    _s, h, body = client.request("GET", prefix + "-index/index.json")
    index = json.loads(body)
    assert body == (tree.root / "store-index.json").read_bytes()
    assert isinstance(index, list)
    names = {(i["container"], i["name"]) for i in index}
    assert (prefix + "-svgs-daily", DAY + ".index.svgz") in names
    assert (prefix + "-svgs-hourly", HOUR + ".api.reversed.svgz") in names
    for item in index:
        assert set(item) >= {"name", "hash", "bytes", "last_modified", "content_type"}
        listed = {i["name"]: i for i in client.listing(item["container"])}[item["name"]]
        assert item["hash"] == listed["hash"] and item["bytes"] == listed["bytes"]

    # only what changed is sent again
    out = tree.ok("generate").stdout.decode()
    assert "store: 0 logs, 0 graphs sent" in out and "9 unchanged" in out, out
    tree.log("hourly", HOUR + ".index", [stack("A", "B", count=3), stack("A", count=1)])
    out = tree.ok("generate").stdout.decode()
    assert "store: 1 logs, 2 graphs sent" in out, out
    _s, _h, body = client.request("GET", prefix + "-logs-hourly/" + HOUR + ".index.log.gz")
    assert gzip.decompress(body).decode().count("\n") == 2


def test_partial_last_line_is_not_published(tree, swift, client):
    prefix = "t2"
    tree.write_config(swift_config(swift, prefix))
    tree.log("hourly", HOUR + ".index", (stack("A") + "\n" + "X;Y 1").encode())
    tree.ok("publish")
    _s, _h, body = client.request("GET", prefix + "-logs-hourly/" + HOUR + ".index.log.gz")
    assert gzip.decompress(body).decode() == stack("A") + "\n"


def test_store_down_costs_the_uploads_only(tree, swift, client):
    prefix = "t3"
    tree.write_config(swift_config(
        swift, prefix, "  connect_timeout: 2\n  request_timeout: 10\n"))
    fill(tree)
    swift.stop()
    try:
        proc = tree.run("generate")
    finally:
        swift.start()
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 0, (out, err)
    assert "store_failed" in err or "store_down" in err, err
    assert "failed (sent again next run)" in out, out
    # the graphs are drawn and the logs kept
    assert samples_of(tree.svg("hourly", HOUR + ".index.svgz")) == 3
    assert (tree.logs / "hourly" / (HOUR + ".index.log")).exists()
    assert client.listing(prefix + "-logs-hourly") == []
    metrics = metric_values(tree)
    assert metrics["arclamp_svg_store_failures_total"] >= 1, metrics
    assert metrics["arclamp_svg_store_uploads_total"] == 0, metrics
    assert "arclamp_svg_store_last_success_timestamp_seconds" not in metrics
    # the next run sends everything
    out = tree.ok("generate").stdout.decode()
    assert "store: 3 logs, 6 graphs sent" in out, out
    assert len(client.listing(prefix + "-logs-hourly")) == 2
    metrics = metric_values(tree)
    assert metrics["arclamp_svg_store_uploads_total"] == 3 + 6 + 1, metrics  # and the index
    assert metrics["arclamp_svg_store_upload_bytes_total"] > 0
    assert abs(metrics["arclamp_svg_store_last_success_timestamp_seconds"] - time.time()) < 600


def test_publish_without_store_is_a_config_error(tree):
    proc = tree.run("publish")
    assert proc.returncode == 78
    assert b"no object_store configured" in proc.stderr


def test_bad_store_config_is_refused(tree, swift):
    tree.write_config(swift_config(swift, "t4", "  host: ../evil\n"))
    proc = tree.run("generate")
    assert proc.returncode == 78
    assert b"object_store: host:" in proc.stderr
    tree.write_config("object_store:\n  type: swift\n")
    proc = tree.run("generate", env={"ST_AUTH": "", "ST_USER": "", "ST_KEY": ""})
    assert proc.returncode == 78, proc.stderr


def test_credentials_file_must_be_private(tree, swift, client):
    prefix = "t5"
    creds = tree.root / "creds.env"
    creds.write_text("# credentials\nST_USER=%s\nST_KEY=%s\n" % (swift.user, swift.key))
    os.chmod(creds, 0o644)
    tree.write_config("object_store:\n  type: swift\n  auth_url: %s\n"
                      "  container_prefix: %s\n  credentials_file: %s\n"
                      % (swift.auth_url, prefix, creds))
    proc = tree.run("publish")
    assert proc.returncode == 78, proc.stderr
    assert b"credentials_file" in proc.stderr
    os.chmod(creds, 0o600)
    fill(tree)
    tree.ok("publish")
    assert len(client.listing(prefix + "-logs-hourly")) == 2


def new_tree(binary, root):
    os.makedirs(root)
    return Tree(binary, root)


def publish_host(binary, root, swift, prefix, host, index_count, api_count):
    t = new_tree(binary, root)
    t.write_config(swift_config(swift, prefix, "  host: %s\n" % host))
    fill(t, index_count, api_count)
    out = t.ok("publish").stdout.decode()
    assert "3 logs" in out, out
    assert "index sent" not in out, out  # a collector without graphs leaves the index alone
    return t


def test_generator_draws_every_hosts_logs(arclamp_svg, tmp_path, swift, client):
    prefix = "t6"
    eqiad = publish_host(arclamp_svg, tmp_path / "eqiad", swift, prefix, "eqiad", 3, 2)
    publish_host(arclamp_svg, tmp_path / "codfw", swift, prefix, "codfw", 10, 7)
    names = {i["name"] for i in client.listing(prefix + "-logs-hourly")}
    assert "eqiad/" + HOUR + ".index.log.gz" in names
    assert "codfw/" + HOUR + ".index.log.gz" in names
    assert client.request("HEAD", prefix + "-index/index.json")[0] == 404

    gen = new_tree(arclamp_svg, tmp_path / "gen")
    gen.write_config(swift_config(
        swift, prefix, "  from_store: true\n  publish: false\n"))
    out = gen.ok("generate").stdout.decode()
    assert "from the store: 3 logs" in out, out
    # sample counts: the sum of both hosts' logs
    assert samples_of(gen.svg("hourly", HOUR + ".index.svgz")) == 13
    assert samples_of(gen.svg("hourly", HOUR + ".api.svgz")) == 9
    assert samples_of(gen.svg("daily", DAY + ".index.svgz")) == 10
    index = json.loads((gen.root / "index.json").read_text())
    by_name = {e["name"]: e for e in index["logs"]}
    assert by_name[HOUR + ".index"]["hosts"] == ["codfw", "eqiad"]
    assert "hosts: codfw, eqiad" in (gen.root / "index.html").read_text()

    # one host's log changes: only that log is fetched again
    t = eqiad
    t.log("hourly", HOUR + ".index", [stack("A", "B", count=3), stack("Z", count=100)])
    t.ok("publish")
    out = gen.ok("generate").stdout.decode()
    assert "(1 fetched, 2 objects" in out, out
    assert samples_of(gen.svg("hourly", HOUR + ".index.svgz")) == 113

    # only the chosen hosts
    gen.write_config(swift_config(
        swift, prefix, "  from_store: true\n  publish: false\n  hosts: [codfw]\n"))
    gen.ok("generate")
    assert samples_of(gen.svg("hourly", HOUR + ".index.svgz")) == 10


def test_hostile_tags_never_leave_their_prefix(tree, swift, client):
    """Logs whose names an older daemon or a hostile sender chose: only the
    ones whose tags pass the rule are published, each under this host's
    prefix; the others are refused as generate refuses them."""
    prefix = "t9"
    tree.write_config(swift_config(swift, prefix, "  host: eqiad\n"))
    tree.log("hourly", HOUR + ".index", [stack("A")])
    for bad in (HOUR + ".<script>", HOUR + ".a b", HOUR + ".evil\nforged", HOUR + ".index.reversed",
                HOUR + ".%2e%2e", "..", HOUR + ".\xff"):
        tree.log("hourly", bad.encode("utf-8", "surrogateescape")
                 if "\xff" not in bad else (HOUR + ".").encode() + b"\xff", [stack("B")])
    out = tree.ok("publish").stdout.decode()
    assert "1 logs" in out, out
    names = [i["name"] for i in client.listing(prefix + "-logs-hourly")]
    assert names == ["eqiad/" + HOUR + ".index.log.gz"], names
    for container in (prefix + "-logs-hourly", prefix + "-svgs-hourly"):
        for item in client.listing(container):
            assert item["name"].startswith("eqiad/") or container.endswith("svgs-hourly")
            assert ".." not in item["name"].split("/") and "\n" not in item["name"]


def test_hostile_objects_in_the_store_stay_in_their_place(arclamp_svg, tmp_path, swift, client):
    prefix = "t7"
    container = prefix + "-logs-hourly"
    client.request("PUT", container)
    good = gzip.compress((stack("A", count=4) + "\n").encode())
    for name in ("a/../../../escape.log.gz", "a/b/c.log.gz", "../x.log.gz", "h/.hidden.log.gz",
                 "h/notgzip.index.log.gz", "bad host!/%s.index.log.gz" % HOUR,
                 "h/%s.index.log.gz" % HOUR):
        data = b"plain text" if "notgzip" in name else good
        status, _h, _b = client.request("PUT", container + "/" + name, data=data)
        assert status in (201, 400, 412), (name, status)
    gen = new_tree(arclamp_svg, tmp_path / "gen")
    gen.write_config(swift_config(
        swift, prefix, "  from_store: true\n  publish: false\n"))
    proc = gen.run("generate")
    out = proc.stdout.decode()
    assert "objects skipped" in out, out
    assert samples_of(gen.svg("hourly", HOUR + ".index.svgz")) == 4
    # nothing outside logs_dir/<period>/
    for dirpath, _dirs, files in os.walk(tmp_path):
        for f in files:
            assert "escape" not in f, os.path.join(dirpath, f)
    # only the one good object became a log; the not-gzip one is refused
    assert os.listdir(gen.logs / "hourly") == [HOUR + ".index.log.gz"]
    assert "1 failed" in out or "failed" in out, out


@pytest.mark.parametrize("bucket", ["arclamp-s3"])
def test_s3_publish_and_retention(tree, swift, client, bucket):
    client.request("PUT", bucket)  # s3api's buckets are Swift containers
    prefix = "t8"
    tree.write_config(s3_config(
        swift, prefix, bucket, "  host: eqiad\n  retention_days: 0.0002\n"))
    fill(tree)
    out = tree.ok("generate").stdout.decode()
    assert "store: 3 logs, 6 graphs sent" in out, out
    keys = {i["name"] for i in client.listing(bucket)}
    assert "%s-logs-hourly/eqiad/%s.index.log.gz" % (prefix, HOUR) in keys
    assert "%s-svgs-hourly/%s.index.svgz" % (prefix, HOUR) in keys
    assert "%s-index/index.json" % prefix in keys
    _s, h, body = client.request("GET", "%s/%s-logs-hourly/eqiad/%s.index.log.gz"
                                 % (bucket, prefix, HOUR))
    assert h["Content-Encoding"] == "gzip"
    assert gzip.decompress(body).decode() == stack("A", "B", count=3) + "\n"
    # past the retention (17 s), this host's logs are deleted by the next run
    # (it waits for the api log itself: a run may expire other objects first)
    api = "%s-logs-hourly/eqiad/%s.api.log.gz" % (prefix, HOUR)
    deadline, said = time.time() + 120, ""
    while time.time() < deadline:
        time.sleep(1)
        tree.log("hourly", HOUR + ".index", [stack("A", count=1)])  # sent again: new
        out = tree.ok("generate").stdout.decode()
        said += out if "expired" in out else ""
        keys = {i["name"] for i in client.listing(bucket)}
        if api not in keys:
            break
    assert "expired" in said, out
    assert "%s-logs-hourly/eqiad/%s.api.log.gz" % (prefix, HOUR) not in keys


def collapsed(text):
    """`export --format collapsed` output as {stack: count}."""
    out = {}
    for line in text.splitlines():
        name, count = line.rsplit(" ", 1)
        out[name] = int(count)
    return out


def two_hosts_and_a_generator(arclamp_svg, tmp_path, swift, prefix):
    """eqiad (index 3, api 2) and codfw (10, 7) publish their logs; returns
    a fresh data directory drawing from the store only (from_store)."""
    publish_host(arclamp_svg, tmp_path / "eqiad", swift, prefix, "eqiad", 3, 2)
    publish_host(arclamp_svg, tmp_path / "codfw", swift, prefix, "codfw", 10, 7)
    gen = new_tree(arclamp_svg, tmp_path / "gen")
    gen.logs.rmdir()  # a fresh data directory: the store is the only source
    gen.write_config(swift_config(swift, prefix, "  from_store: true\n  publish: false\n"))
    return gen


def export_fails_with_the_store_down(gen, swift, prefix):
    """With the store's auth URL pointing nowhere, export of a range exits 1,
    says why and writes nothing."""
    gen.write_config(swift_config(swift, prefix, "  from_store: true\n  publish: false\n")
                     .replace(swift.auth_url, "http://127.0.0.1:1/auth/v1.0"))
    proc = gen.run("export", "--format", "collapsed", "--from", "2026-11-28T10",
                   "--to", "2026-11-28T11", "-e", "index")
    assert proc.returncode == 1, proc
    assert b"fetching the logs from the store" in proc.stderr, proc.stderr
    assert proc.stdout == b""


def test_export_merges_every_hosts_logs_first(arclamp_svg, tmp_path, swift):
    """export --from/--to with from_store merges every host's logs from the
    store first, as generate does: the samples are both hosts' sum."""
    prefix = "t28"
    gen = two_hosts_and_a_generator(arclamp_svg, tmp_path, swift, prefix)
    proc = gen.ok("export", "--format", "collapsed", "--from", "2026-11-28T10",
                  "--to", "2026-11-28T11", "-e", "index", "-e", "api")
    assert "from the store: 3 logs" in proc.stderr.decode(), proc.stderr
    assert collapsed(proc.stdout.decode()) == {
        stack("A", "B", count=13).rsplit(" ", 1)[0]: 13,
        stack("C", count=9).rsplit(" ", 1)[0]: 9,
    }

    # a store that cannot be reached: an error, nothing exported ...
    export_fails_with_the_store_down(gen, swift, prefix)
    # ... unless --no-fetch: the logs merged before
    proc = gen.ok("export", "--format", "collapsed", "--no-fetch", "--from", "2026-11-28",
                  "--to", "2026-11-29", "-e", "index")
    assert collapsed(proc.stdout.decode()) == {stack("A", count=10).rsplit(" ", 1)[0]: 10}


def test_export_as_root_merges_as_the_data_dirs_owner(arclamp_svg, tmp_path, swift):
    """Before: run as root, export's merge wrote root-owned logs and lock
    into a data directory of another user (generate and publish become its
    owner first). Now the merge runs in a child that is the owner, and the
    export itself keeps root's rights: -o goes to a directory only root
    may write to."""
    import pwd
    import shutil
    import tempfile
    nobody = pwd.getpwnam("nobody")
    prefix = "t28root"
    publish_host(arclamp_svg, tmp_path / "eqiad", swift, prefix, "eqiad", 3, 2)
    root = tempfile.mkdtemp(prefix="arclamp-svg-root-")   # /tmp: others may enter
    private_out = tempfile.mkdtemp(prefix="arclamp-svg-out-")  # 0700, root's
    try:
        os.chmod(root, 0o755)
        gen = Tree(arclamp_svg, root)
        gen.write_config(swift_config(swift, prefix, "  from_store: true\n  publish: false\n"))
        for p in [root, gen.logs, gen.config]:
            os.chown(p, nobody.pw_uid, nobody.pw_gid)
        out = os.path.join(private_out, "x.collapsed")
        proc = gen.ok("export", "--format", "collapsed", "-o", out, "--from", "2026-11-28T10",
                      "--to", "2026-11-28T11", "-e", "index")
        assert "from the store: 3 logs" in proc.stderr.decode(), proc.stderr
        assert collapsed(open(out).read()) == {stack("A", "B", count=3).rsplit(" ", 1)[0]: 3}
        assert os.stat(out).st_uid == 0
        made = [os.path.join(d, n) for d, dirs, files in os.walk(root) for n in dirs + files]
        assert any(p.endswith(HOUR + ".index.log.gz") for p in made), made
        assert any(p.endswith("run.lock") for p in made), made
        for p in made:
            assert os.lstat(p).st_uid == nobody.pw_uid, p
        # the child's error reaches the caller: a store that cannot be reached
        export_fails_with_the_store_down(gen, swift, prefix)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(private_out, ignore_errors=True)


def test_diff_of_ranges_merges_every_hosts_logs_once_first(arclamp_svg, tmp_path, swift):
    """diff --before/--after with from_store merges every host's logs from the
    store first, once for both sides: each side is both hosts' sum."""
    prefix = "t28d"
    gen = two_hosts_and_a_generator(arclamp_svg, tmp_path, swift, prefix)
    out = tmp_path / "merged.txt"
    proc = gen.ok("diff", "--before", "2026-11-28T10", "--after", "2026-11-28", "-e", "index",
                  "--diff-out", out, "-o", tmp_path / "d.svg")
    err = proc.stderr.decode()
    assert err.count("merged every host's logs") == 1, err
    assert "from the store: 3 logs" in err, err
    # BEFORE: the hour's index logs, 3 + 10 of A;B; AFTER: the day's, 5 + 5 of A
    # (BEFORE's 13 scaled to AFTER's total, 10)
    ab, a = stack("A", "B").rsplit(" ", 1)[0], stack("A").rsplit(" ", 1)[0]
    assert out.read_text() == "%s 0 10\n%s 10 0\n" % (a, ab)

    # a store that cannot be reached: an error, nothing drawn ...
    gen.write_config(swift_config(swift, prefix, "  from_store: true\n  publish: false\n")
                     .replace(swift.auth_url, "http://127.0.0.1:1/auth/v1.0"))
    out.unlink()
    proc = gen.run("diff", "--before", "2026-11-28T10", "--after", "2026-11-28", "-e", "index",
                   "--diff-out", out)
    assert proc.returncode == 1, proc
    assert b"fetching the logs from the store" in proc.stderr, proc.stderr
    assert b"nothing drawn" in proc.stderr, proc.stderr
    assert proc.stdout == b"" and not out.exists()
    # ... unless --no-fetch: the logs merged before
    gen.ok("diff", "--no-fetch", "--before", "2026-11-28T10", "--after", "2026-11-28", "-e",
           "index", "--diff-out", out)
    assert out.read_text() == "%s 0 10\n%s 10 0\n" % (a, ab)

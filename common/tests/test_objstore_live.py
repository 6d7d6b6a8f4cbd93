"""objstore against a real one-node Swift, through both protocols (Swift v1
auth and S3 SigV4 by s3api), with build/tests/objstore-tool doing one call
per run; and against a small lying server on 127.0.0.1 that answers auth
and then redirects to itself, streams 100 MB, sends garbage or a page whose
marker never advances: the client must refuse (exit 2) promptly, with a
clear message. The lying server tests refusal, not the protocol.

Exit codes of the tool: 0 OK, 1 OBJ_ERR, 2 OBJ_REFUSED, 3 NOT_FOUND."""

import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from swiftkit import swift_missing, swift_server  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOOL = os.environ.get("ARCLAMP_OBJSTORE_TOOL", str(ROOT / "build" / "tests" / "objstore-tool"))
BUCKET = "arclamp"
# Generous: a loaded 2-core machine; the tool's own bounds are what is tested.
RUN_WAIT = 120
NAMES = ["plain.log", "a b/with space.log", "d\u00fcr/\u00fcn\u00efc\u00f6de.log",
         "pct%20not-decoded%", "q?x=1", "hash#frag", "2026-11-22/all.svgz"]


def tool(args, env, timeout=RUN_WAIT):
    r = subprocess.run([TOOL] + args, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def stat(stderr, key):
    line = [l for l in stderr.splitlines() if l.startswith("stats:")][-1]
    return int(dict(f.split("=") for f in line.split()[1:])[key])


def login(s):
    req = urllib.request.Request(s.auth_url, headers={"X-Auth-User": s.user,
                                                      "X-Auth-Key": s.key})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.headers["X-Storage-Url"], r.headers["X-Auth-Token"]


def head(s, container, name):
    url, token = login(s)
    quoted = urllib.parse.quote(container) + "/" + urllib.parse.quote(name)
    req = urllib.request.Request(url + "/" + quoted, method="HEAD",
                                 headers={"X-Auth-Token": token})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.headers


class Proto:
    """How one protocol names the store: options, environment, and where an
    object lands in Swift's own namespace (for HEADs)."""

    def __init__(self, kind, s):
        self.kind = kind
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(("ST_", "OS_", "AWS_", "S3_"))}
        if kind == "swift":
            self.opts = []
            self.env = dict(base, ST_AUTH=s.auth_url, ST_USER=s.user, ST_KEY=s.key)
        else:
            self.opts = ["--s3", "--bucket", BUCKET, "--path-style"]
            self.env = dict(base, S3_ENDPOINT=s.s3_endpoint, AWS_ACCESS_KEY_ID=s.access_key,
                            AWS_SECRET_ACCESS_KEY=s.secret_key, AWS_REGION=s.region)

    def run(self, *args, extra=()):
        return tool(self.opts + list(extra) + list(args), self.env)

    def swift_path(self, container, name):
        return (container, name) if self.kind == "swift" else (BUCKET, container + "/" + name)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    if swift_missing():
        pytest.skip(swift_missing())
    with swift_server(tmp_path_factory.mktemp("swift")) as s:
        # The S3 bucket is a Swift container of the same account.
        rc, _, err = Proto("swift", s).run("ensure", BUCKET)
        assert rc == 0, err
        yield s


@pytest.fixture(params=["swift", "s3"])
def proto(request, store):
    return Proto(request.param, store)


def test_objects_round_trip_with_their_md5(proto, tmp_path):
    container = "arclamp-logs-rt"
    assert proto.run("ensure", container)[0] == 0
    bodies = {}
    for i, name in enumerate(NAMES):
        f = tmp_path / ("in%d" % i)
        f.write_bytes(os.urandom(1000 * i + 1))
        bodies[name] = f.read_bytes()
        rc, out, err = proto.run("put", container, name, str(f))
        assert rc == 0, err
        assert out.strip() == hashlib.md5(bodies[name]).hexdigest()
    rc, out, err = proto.run("list", container)
    assert rc == 0, err
    listed = {l.split("\t")[0]: l.split("\t")[1:] for l in out.splitlines()}
    assert sorted(listed) == sorted(NAMES, key=lambda n: n.encode())
    for name, body in bodies.items():
        h, size, mtime = listed[name]
        assert (h, int(size)) == (hashlib.md5(body).hexdigest(), len(body))
        assert abs(int(mtime) - time.time()) < 3600
        got = tmp_path / "out"
        rc, out, err = proto.run("get", container, name, str(got))
        assert rc == 0, err
        assert got.read_bytes() == body
    rc, out, _ = proto.run("list", container, "a b/")
    assert out.splitlines() == ["a b/with space.log\t%s\t%d\t%s" % tuple(
        [listed["a b/with space.log"][0], len(bodies["a b/with space.log"]),
         listed["a b/with space.log"][2]])]
    for name in NAMES:
        assert proto.run("delete", container, name)[0] == 0
    assert proto.run("delete", container, NAMES[0])[0] == 0  # already gone: OK
    assert proto.run("get", container, NAMES[0], str(tmp_path / "out"))[0] == 3
    assert proto.run("list", container)[1] == ""


def test_gzip_encoding_type_and_delete_after_reach_the_store(proto, store, tmp_path):
    f = tmp_path / "g.svgz"
    f.write_bytes(b"\x1f\x8b\x08\x00 compressed bytes")
    container = "arclamp-svgs-enc"
    assert proto.run("ensure", container)[0] == 0
    rc, _, err = proto.run("put", container, "x.svgz", str(f),
                           extra=["--type", "image/svg+xml", "--encoding", "gzip",
                                  "--delete-after", "86400"])
    assert rc == 0, err
    h = head(store, *proto.swift_path(container, "x.svgz"))
    assert h["Content-Encoding"] == "gzip"
    assert h["Content-Type"] == "image/svg+xml"
    if proto.kind == "swift":  # X-Delete-After becomes X-Delete-At
        assert 0 < int(h["X-Delete-At"]) - time.time() <= 86400
    else:
        assert "X-Delete-At" not in h
    # A download keeps the bytes as stored (no decoding).
    rc, _, err = proto.run("get", container, "x.svgz", str(tmp_path / "o"))
    assert rc == 0, err
    assert (tmp_path / "o").read_bytes() == f.read_bytes()


def test_download_over_max_is_refused(proto, tmp_path):
    f = tmp_path / "big"
    f.write_bytes(b"x" * 100000)
    assert proto.run("ensure", "arclamp-logs-max")[0] == 0
    assert proto.run("put", "arclamp-logs-max", "big", str(f))[0] == 0
    rc, _, err = proto.run("get", "arclamp-logs-max", "big", str(tmp_path / "o"),
                           extra=["--max", "99999"])
    assert rc == 2
    assert "answer larger than 99999 bytes" in err


@pytest.mark.parametrize("name", ["../x", "a//b", "/a", "a/./b", "a\nb", "a\x01", "\xff"])
def test_hostile_name_is_refused_without_a_request(proto, tmp_path, name):
    f = tmp_path / "f"
    f.write_bytes(b"x")
    arg = name if name != "\xff" else os.fsdecode(b"\xff")
    rc, _, err = proto.run("put", "arclamp-logs-rt", arg, str(f))
    assert rc == 2
    assert "bad object name" in err and "\n" not in err.split("bad object name")[1].rstrip("\n")
    assert stat(err, "requests") == 0


def test_listing_page_over_the_bound_is_refused(proto, tmp_path):
    container = "arclamp-logs-many"
    assert proto.run("ensure", container)[0] == 0
    f = tmp_path / "f"
    f.write_bytes(b"x")
    for i in range(30):
        assert proto.run("put", container, "n%03d" % i, str(f))[0] == 0
    rc, out, err = proto.run("list", container, extra=["--max-listing-bytes", "2000"])
    assert rc == 2
    assert "listing page larger than 2000 bytes" in err
    rc, out, err = proto.run("list", container, extra=["--max-listing-items", "29"])
    assert rc == 2 and "more than 29 items" in err
    rc, out, err = proto.run("list", container)
    assert rc == 0 and len(out.splitlines()) == 30


def test_store_down_is_a_retryable_error_within_the_budget(store, tmp_path):
    for kind in ("swift", "s3"):
        assert Proto(kind, store).run("list", BUCKET if kind == "swift" else "x")[0] == 0
    f = tmp_path / "f"
    f.write_bytes(b"payload")
    store.stop()
    try:
        for kind in ("swift", "s3"):
            p = Proto(kind, store)
            t0 = time.monotonic()
            rc, _, err = p.run("put", "arclamp-logs-rt", "down", str(f),
                               extra=["--run-budget", "3", "--retries", "100",
                                      "--retry-delay", "0.2"])
            took = time.monotonic() - t0
            assert rc == 1, err
            assert took < 3 + 10  # the budget, plus a process start on a loaded box
            assert stat(err, "retries") >= 1
    finally:
        store.start()
    for kind in ("swift", "s3"):
        p = Proto(kind, store)
        rc, _, err = p.run("ensure", "arclamp-logs-rt")
        assert rc == 0, err
        rc, out, err = p.run("put", "arclamp-logs-rt", "back", str(f))
        assert rc == 0, err


# --- a server that lies ------------------------------------------------------

class Liar(http.server.BaseHTTPRequestHandler):
    """Answers Swift v1 auth, then lies about listings as `mode` says."""
    protocol_version = "HTTP/1.1"
    mode = "garbage"
    auths = 0
    listings = 0
    hosts = []
    paths = []
    release = threading.Event()

    def log_message(self, *a):
        pass

    def send(self, code, body=b"", headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_HEAD(self):  # S3 bucket check
        type(self).hosts.append((self.headers["Host"], self.path))
        self.send(200)

    def do_GET(self):
        cls = type(self)
        base = "http://127.0.0.1:%d" % self.server.server_port
        if self.path.startswith("/auth"):
            cls.auths += 1
            return self.send(200, b"", [("X-Storage-Url", base + "/v1/AUTH_x"),
                                        ("X-Auth-Token", "tok%d" % cls.auths)])
        cls.listings += 1
        cls.paths.append(self.path)
        getattr(self, "lie_" + cls.mode)(base)

    def lie_redirect(self, base):
        self.send(302, b"", [("Location", base + self.path)])

    def lie_garbage(self, base):
        self.send(200, b'[{"name": "a", "bytes": ', [("Content-Type", "application/json")])

    def lie_object(self, base):
        self.send(200, b'{"name": "a"}')

    def lie_outside(self, base):
        self.send(200, json.dumps([{"name": "q/a", "hash": "x", "bytes": 1,
                                    "last_modified": "x"}]).encode())

    def lie_badnames(self, base):
        # names any writer of the container may choose, around a good one
        names = ["../../etc/passwd", "a", "a//b", "b\nforged"]
        if "marker=" in self.path:
            names = []
        self.send(200, json.dumps([{"name": n, "hash": "d41d8cd98f00b204e9800998ecf8427e",
                                    "bytes": 1, "last_modified": "2026-11-22T05:00:00.000000"}
                                   for n in sorted(names)]).encode())

    def lie_huge(self, base):
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b"[" + b" " * 65535
        try:
            for _ in range(100 * 16):  # 100 MB
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def lie_loop(self, base):
        # A full page (1000 names) whatever the marker: the same page forever.
        page = [{"name": "n%04d" % i, "hash": "d41d8cd98f00b204e9800998ecf8427e", "bytes": 0,
                 "last_modified": "2026-11-22T05:00:00.000000"} for i in range(1000)]
        self.send(200, json.dumps(page).encode())

    def lie_s3loop(self, base):
        items = "".join("<Contents><Key>c/n%d</Key><LastModified>2026-11-22T05:00:00.000Z"
                        "</LastModified><ETag>&quot;e&quot;</ETag><Size>1</Size></Contents>" % i
                        for i in range(2))
        self.send(200, ("<ListBucketResult><IsTruncated>true</IsTruncated>"
                        "<NextContinuationToken>same</NextContinuationToken>%s"
                        "</ListBucketResult>" % items).encode())

    def lie_stall(self, base):
        # Headers never come: only the client's timeout ends this.
        type(self).release.wait(60)

    def lie_busy(self, base):
        self.send(503, b"busy")

    def lie_expired(self, base):
        # The first token is refused once; a new one works.
        if type(self).auths < 2:
            return self.send(401, b"expired")
        self.send(200, b"[]")


@pytest.fixture
def liar():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Liar)
    server.daemon_threads = True
    Liar.auths = Liar.listings = 0
    Liar.hosts = []
    Liar.paths = []
    Liar.release = threading.Event()
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    base = "http://127.0.0.1:%d" % server.server_port
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ST_", "OS_", "AWS_"))}
    swift_env = dict(env, ST_AUTH=base + "/auth/v1.0", ST_USER="a:b", ST_KEY="k")
    s3_env = dict(env, AWS_ENDPOINT_URL=base, AWS_ACCESS_KEY_ID="a:b", AWS_SECRET_ACCESS_KEY="s")
    try:
        yield swift_env, s3_env
    finally:
        Liar.release.set()
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("mode,why", [
    ("redirect", "redirect refused (Location: http://127.0.0.1:"),
    ("garbage", "not well-formed JSON"),
    ("object", "not an array"),
    ("outside", "name outside the prefix"),
    ("huge", "listing page larger than 16777216 bytes"),
    ("loop", "names do not advance"),
])
def test_lying_listing_is_refused_promptly(liar, mode, why):
    Liar.mode = mode
    t0 = time.monotonic()
    rc, out, err = tool(["--retries", "3", "list", "c"] + (["p/"] if mode == "outside" else []),
                        liar[0])
    assert rc == 2, err
    assert why in err
    assert time.monotonic() - t0 < 60
    assert Liar.listings <= 2  # refusals are not retried


def test_listed_bad_names_are_skipped_and_counted(liar):
    """A name any writer may choose ("../x", a newline) is no lie: it is
    skipped and counted, and the good object next to it is listed."""
    Liar.mode = "badnames"
    rc, out, err = tool(["list", "c"], liar[0])
    assert rc == 0, err
    assert [l.split("\t")[0] for l in out.splitlines()] == ["a"]
    assert stat(err, "skipped_names") == 3
    assert "etc/passwd" not in out and "forged" not in out


def test_s3_token_that_does_not_advance_is_refused(liar):
    Liar.mode = "s3loop"
    rc, out, err = tool(["--s3", "--bucket", "b", "--path-style", "list", "c"], liar[1])
    assert rc == 2, err
    assert "continuation token does not advance" in err
    assert Liar.listings == 2
    assert Liar.hosts[0][1] == "/b"
    assert Liar.paths[0] == "/b?list-type=2&prefix=c%2F"
    assert Liar.paths[1] == "/b?continuation-token=same&list-type=2&prefix=c%2F"


def test_busy_store_is_retried_then_an_error(liar):
    Liar.mode = "busy"
    rc, out, err = tool(["--retries", "2", "--retry-delay", "0.05", "list", "c"], liar[0])
    assert rc == 1
    assert "HTTP 503: busy" in err
    assert Liar.listings == 3 and stat(err, "retries") == 2


def test_expired_token_is_renewed_once(liar):
    Liar.mode = "expired"
    rc, out, err = tool(["list", "c"], liar[0])
    assert rc == 0, err
    assert Liar.auths == 2 and Liar.listings == 2


def test_stalled_store_times_out_as_a_retryable_error(liar):
    Liar.mode = "stall"
    t0 = time.monotonic()
    rc, out, err = tool(["--request-timeout", "1", "--retries", "1", "--retry-delay", "0.1",
                         "list", "c"], liar[0])
    assert rc == 1, err
    assert "Timeout was reached" in err
    assert Liar.listings == 2 and stat(err, "retries") == 1
    assert time.monotonic() - t0 < 30


def test_s3_virtual_host_names_the_bucket_in_the_host(liar):
    # curl resolves *.localhost to the loopback itself (no DNS needed).
    port = liar[1]["AWS_ENDPOINT_URL"].rsplit(":", 1)[1]
    env = dict(liar[1], AWS_ENDPOINT_URL="http://localhost:%s" % port)
    rc, out, err = tool(["--s3", "--bucket", "arclamp", "ensure", "c"], env)
    assert rc == 0, err
    assert Liar.hosts == [("arclamp.localhost:%s" % port, "/")]

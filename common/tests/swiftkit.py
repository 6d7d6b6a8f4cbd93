"""swiftkit: a real one-node OpenStack Swift (with Swift's S3 API, s3api)
for the object-store tests, started by scripts/swift-server in a directory
of the test's own on free ports of 127.0.0.1, and always stopped.

    from swiftkit import swift_server, swift_missing
    pytestmark = pytest.mark.skipif(swift_missing(), reason=swift_missing())

    with swift_server(tmp_path / "swift") as s:
        s.auth_url, s.user, s.key              # Swift v1 auth (tempauth)
        s.s3_endpoint, s.access_key, s.secret_key, s.region   # S3 SigV4
        s.other_user, s.other_key              # a second account (isolation)
        s.stop(); s.start()                    # same ports, same data

Standard library only.
"""

import contextlib
import json
import shutil
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "swift-server"
PROGRAMS = ("swift-proxy-server", "swift-account-server", "swift-container-server",
            "swift-object-server", "swift-ring-builder")
# swift-server's own bound is 60 s; this one only catches a hung script.
SCRIPT_WAIT = 120


def swift_missing():
    """Why Swift cannot run here (the first missing program), or ''."""
    for p in PROGRAMS:
        if shutil.which(p) is None:
            return "%s is not installed (Debian's swift packages; scripts/install-deps)" % p
    return ""


class SwiftServer:
    """One store in `dir`; attributes valid after start()."""

    def __init__(self, dir, port=0):
        self.dir = Path(dir)
        self.proxy_port = port
        self.other_user, self.other_key = "other:user2", "testing2"

    def _run(self, action, *extra):
        r = subprocess.run([str(SCRIPT), action, str(self.dir)] + list(extra),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=SCRIPT_WAIT)
        if r.returncode != 0:
            raise RuntimeError("swift-server %s failed (%d): %s%s" % (
                action, r.returncode, r.stderr, self._logs()))
        return r.stdout

    def _logs(self):
        out = []
        for f in sorted((self.dir / "log").glob("*.log")):
            out.append("\n--- %s (tail)\n%s" % (f.name, f.read_text(errors="replace")[-2000:]))
        return "".join(out)

    def start(self):
        extra = ["--port", str(self.proxy_port)] if self.proxy_port else []
        env = dict(line.split("=", 1) for line in self._run("start", *extra).splitlines()
                   if "=" in line)
        self.auth_url = env["ST_AUTH"]
        self.user, self.key = env["ST_USER"], env["ST_KEY"]
        self.s3_endpoint = env["S3_ENDPOINT"]
        self.access_key = env["AWS_ACCESS_KEY_ID"]
        self.secret_key = env["AWS_SECRET_ACCESS_KEY"]
        self.region = env["AWS_REGION"]
        self.proxy_port = int(self.s3_endpoint.rsplit(":", 1)[1])
        return self

    def stop(self):
        self._run("stop")

    def running(self):
        return subprocess.run([str(SCRIPT), "status", str(self.dir)],
                              stdout=subprocess.DEVNULL).returncode == 0


@contextlib.contextmanager
def swift_server(dir, port=0):
    """Starts a store in `dir` (created if needed), yields its SwiftServer,
    stops it whatever happens."""
    s = SwiftServer(dir, port)
    try:
        yield s.start()
    finally:
        subprocess.run([str(SCRIPT), "stop", str(s.dir)], timeout=SCRIPT_WAIT)



class SwiftClient:
    """The store seen through Swift's own API (v1 auth), for tests to check
    what a program stored: objects, their headers, listings. A token that
    expired with a proxy restart is renewed once."""

    def __init__(self, server, user=None, key=None):
        self.server = server
        self.user = user or server.user
        self.key = key or server.key
        self.url = self.token = None

    def _auth(self):
        req = urllib.request.Request(self.server.auth_url, headers={
            "X-Auth-User": self.user, "X-Auth-Key": self.key})
        with urllib.request.urlopen(req, timeout=60) as r:
            self.url, self.token = r.headers["X-Storage-Url"], r.headers["X-Auth-Token"]

    def request(self, method, path, data=None, headers=None, query=None):
        """(status, headers, body) of METHOD <storage url>/<path>[?query];
        path is quoted here ('/' kept), query is a dict."""
        for attempt in (0, 1):
            if not self.token:
                self._auth()
            h = {"X-Auth-Token": self.token}
            h.update(headers or {})
            url = self.url + "/" + urllib.parse.quote(path)
            if query:
                url += "?" + urllib.parse.urlencode(query)
            req = urllib.request.Request(url, data=data, headers=h, method=method)
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    return r.status, r.headers, r.read()
            except urllib.error.HTTPError as e:
                if e.code == 401 and attempt == 0:
                    self.token = None
                    continue
                return e.code, e.headers, e.read()
        raise AssertionError("unreachable")

    def listing(self, container, prefix=""):
        """The JSON listing items of a container ([] when it does not exist)."""
        items, marker = [], ""
        while True:
            status, _h, body = self.request("GET", container, query={
                "format": "json", "prefix": prefix, "marker": marker})
            if status == 404:
                return []
            assert status == 200, (status, body[:200])
            page = json.loads(body)
            if not page:
                return items
            items += page
            marker = page[-1]["name"]


def swift_config(swift, prefix, extra=""):
    """The `object_store:` YAML section of a program publishing to `swift`
    through the Swift protocol, containers <prefix>-...; `extra` is more
    indented keys. One retry, quick: the tests stop the store on purpose."""
    return ("object_store:\n  type: swift\n  auth_url: %s\n  user: %s\n  key: %s\n"
            "  container_prefix: %s\n  retries: 1\n  retry_delay: 0.1\n%s"
            % (swift.auth_url, swift.user, swift.key, prefix, extra))


def s3_config(swift, prefix, bucket, extra=""):
    """The same through S3 (the store's s3api), into `bucket`."""
    return ("object_store:\n  type: s3\n  endpoint: %s\n  region: %s\n  bucket: %s\n"
            "  access_key: %s\n  secret_key: %s\n  container_prefix: %s\n  retries: 1\n"
            "  retry_delay: 0.1\n%s"
            % (swift.s3_endpoint, swift.region, bucket, swift.access_key, swift.secret_key,
               prefix, extra))

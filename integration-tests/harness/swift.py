"""The object store of the fleet: a real one-node Swift (scripts/swift-server,
v1 tempauth and s3api) in a namespace of its own, listening on that
namespace's address, and a client of it that runs inside a namespace.

    store = SwiftStore(topo.add_host("store", 20), workdir / "store").start()
    store.stop(); store.start()                 # same address, port and data
    objs = store_dump(gen_ns, store, workdir, ["fleet-logs-hourly"])
    store_request(gen_ns, store, workdir, "PUT", "a-bucket")

The test process never talks to the store itself (network rule, README):
swift-server runs inside the store's namespace (`ip netns exec`), and the
client is `python3 -m harness.swift dump|request SPEC.json` run inside the
namespace the caller names, answering JSON on stdout. Standard library and
common/tests/swiftkit.py only.
"""

import base64
import gzip
import json
import os
import sys
import time
from pathlib import Path

from .procs import tail

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "swift-server"
HARNESS_PARENT = str(Path(__file__).resolve().parents[1])   # integration-tests/
# swift-server bounds its own start at 60 s; this only catches a hung script.
SCRIPT_WAIT = 120
CLIENT_WAIT = 120


class _Liveness:
    """What Fleet.unexpected_exits asks of a part's `proc`: the store's four
    servers run detached (swift-server's own sessions), so "exited" means
    swift-server status says one is gone while the test wants it up."""

    name = "swift store"

    def __init__(self, store):
        self.store = store

    def unexpected_exit(self):
        if self.store.wanted and not self.store.running():
            return "not running (swift-server status)"
        return None


class SwiftStore:
    """One store in `dir`, its proxy on the namespace's address. Fits in
    Fleet.parts: close() and diagnostics() are called at teardown."""

    def __init__(self, ns, dir):
        self.ns = ns
        self.dir = Path(dir)
        self.wanted = False             # started by the test and not stopped since
        self.proc = _Liveness(self)
        self.auth_url = self.user = self.key = None
        self.s3_endpoint = self.access_key = self.secret_key = self.region = None

    def _script(self, *args, check=True):
        cp = self.ns.run([str(SCRIPT)] + [str(a) for a in args], timeout=SCRIPT_WAIT,
                         check=False, env=client_env())
        if check and cp.returncode != 0:
            raise AssertionError("swift-server %s: exit %d\n%s\n%s" % (
                args[0], cp.returncode, cp.stderr.decode("utf-8", "replace")[-3000:],
                "".join("%s\n%s" % d for d in self.diagnostics(1500))))
        return cp

    def start(self):
        """Starts (or restarts) the store; returns once its proxy answers an
        authenticated request (swift-server's own check)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        cp = self._script("start", self.dir, "--bind", self.ns.address)
        env = dict(line.split("=", 1) for line in cp.stdout.decode().splitlines() if "=" in line)
        self.auth_url = env["ST_AUTH"]
        self.user, self.key = env["ST_USER"], env["ST_KEY"]
        self.s3_endpoint = env["S3_ENDPOINT"]
        self.access_key = env["AWS_ACCESS_KEY_ID"]
        self.secret_key = env["AWS_SECRET_ACCESS_KEY"]
        self.region = env["AWS_REGION"]
        assert "//%s:" % self.ns.address in self.auth_url, self.auth_url
        self.wanted = True
        return self

    def stop(self):
        self.wanted = False
        self._script("stop", self.dir)

    def running(self):
        return self._script("status", self.dir, check=False).returncode == 0

    def close(self):
        self.wanted = False
        if self.dir.exists():
            self._script("stop", self.dir, check=False)

    def diagnostics(self, limit=3000):
        logs = sorted((self.dir / "log").glob("*.log")) if (self.dir / "log").exists() else []
        return [("swift %s" % p.stem, tail(p, limit)) for p in logs if p.stat().st_size]

    def credentials(self):
        return {"auth_url": self.auth_url, "user": self.user, "key": self.key}


def client_env():
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LISTEN_", "NOTIFY_")) and k.lower() not in (
               "http_proxy", "https_proxy", "all_proxy", "no_proxy")}
    env["PYTHONPATH"] = HARNESS_PARENT
    return env


def _client(ns, store, workdir, spec):
    spec = dict(spec, **store.credentials())
    path = Path(workdir) / ("swift-client-%d.json" % time.monotonic_ns())
    path.write_text(json.dumps(spec))
    try:
        cp = ns.run([sys.executable, "-m", "harness.swift", str(path)], timeout=CLIENT_WAIT,
                    check=False, env=client_env())
    finally:
        path.unlink()
    if cp.returncode != 0:
        raise AssertionError("swift client in %s: exit %d\n%s" % (
            ns.host, cp.returncode, cp.stderr.decode("utf-8", "replace")[-3000:]))
    return json.loads(cp.stdout.decode())


def store_dump(ns, store, workdir, containers, prefix=""):
    """{container: {name: object}} of every object (under prefix) of the
    containers, read through Swift's API by a client inside ns. An object:
    the listing's bytes, last_modified; its headers (X-Delete-At,
    Content-Encoding, Content-Type); data (bytes: gunzipped when the
    object is gzip)."""
    out = _client(ns, store, workdir, {"op": "dump", "containers": list(containers),
                                       "prefix": prefix})
    for objs in out.values():
        for o in objs.values():
            o["data"] = base64.b64decode(o.pop("data_b64"))
    return out


def store_request(ns, store, workdir, method, path):
    """The status of METHOD <storage url>/<path>, by a client inside ns."""
    return _client(ns, store, workdir, {"op": "request", "method": method, "path": path})["status"]


# ---------------------------------------------------------------- the client side
HEADERS = ("X-Delete-At", "Content-Encoding", "Content-Type", "Etag")


def _dump(client, spec):
    out = {}
    for container in spec["containers"]:
        objs = {}
        for item in client.listing(container, spec.get("prefix", "")):
            status, headers, body = client.request("GET", container + "/" + item["name"])
            if status != 200:
                raise SystemExit("GET %s/%s: %d" % (container, item["name"], status))
            if body[:2] == b"\x1f\x8b":
                body = gzip.decompress(body)
            objs[item["name"]] = {
                "bytes": item["bytes"], "last_modified": item["last_modified"],
                "headers": {h: headers[h] for h in HEADERS if headers.get(h) is not None},
                "data_b64": base64.b64encode(body).decode()}
        out[container] = objs
    return out


def main(argv):
    from types import SimpleNamespace
    from swiftkit import SwiftClient      # common/tests, on sys.path by harness/__init__
    with open(argv[1]) as f:
        spec = json.load(f)
    client = SwiftClient(SimpleNamespace(auth_url=spec["auth_url"], user=spec["user"],
                                         key=spec["key"]))
    if spec["op"] == "dump":
        result = _dump(client, spec)
    elif spec["op"] == "request":
        status, _h, _b = client.request(spec["method"], spec["path"])
        result = {"status": status}
    else:
        raise SystemExit("unknown op %r" % spec["op"])
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

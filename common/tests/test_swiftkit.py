"""Pins down swiftkit / scripts/swift-server: a real Swift starts in a temp
dir, its v1 auth hands out a token, an object round-trips (with the headers
the publisher sends), the second account cannot see the first's data, and a
stop/start keeps ports and data."""

import hashlib
import json
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from swiftkit import swift_missing, swift_server  # noqa: E402

pytestmark = pytest.mark.skipif(bool(swift_missing()), reason=swift_missing() or "-")


def call(method, url, headers=None, data=None):
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, r.headers, r.read()


def login(s, user=None, key=None):
    _, h, _ = call("GET", s.auth_url, {"X-Auth-User": user or s.user,
                                       "X-Auth-Key": key or s.key})
    assert h["X-Auth-Token"].startswith("AUTH_tk")
    return h["X-Storage-Url"], h["X-Auth-Token"]


def test_object_round_trips_and_survives_restart(tmp_path):
    body = b"\x1f\x8b not really gzip, but labelled so"
    md5 = hashlib.md5(body).hexdigest()
    with swift_server(tmp_path / "swift") as s:
        assert s.s3_endpoint == "http://127.0.0.1:%d" % s.proxy_port
        assert (s.dir / "env").read_text().startswith("ST_AUTH=" + s.auth_url + "\n")
        url, tok = login(s)
        assert call("PUT", url + "/logs", {"X-Auth-Token": tok})[0] == 201
        before = int(time.time())
        st, _, _ = call("PUT", url + "/logs/day/a.gz", {
            "X-Auth-Token": tok, "ETag": md5, "Content-Encoding": "gzip",
            "X-Delete-After": "94608000"}, body)
        assert st == 201
        st, h, got = call("GET", url + "/logs/day/a.gz", {"X-Auth-Token": tok})
        assert got == body and h["ETag"] == md5 and h["Content-Encoding"] == "gzip"
        assert before + 94608000 <= int(h["X-Delete-At"]) <= int(time.time()) + 94608000
        listing = json.loads(call("GET", url + "/logs?format=json", {"X-Auth-Token": tok})[2])
        assert [(o["name"], o["hash"]) for o in listing] == [("day/a.gz", md5)]

        # A wrong ETag is refused, not stored.
        with pytest.raises(urllib.error.HTTPError) as e:
            call("PUT", url + "/logs/bad", {"X-Auth-Token": tok, "ETag": "0" * 32}, body)
        assert e.value.code == 422

        # The second account sees nothing of the first.
        ourl, otok = login(s, s.other_user, s.other_key)
        assert ourl != url
        with pytest.raises(urllib.error.HTTPError) as e:
            call("GET", url + "/logs/day/a.gz", {"X-Auth-Token": otok})
        assert e.value.code == 403

        port = s.proxy_port
        s.stop()
        assert not s.running()
        with pytest.raises(urllib.error.URLError):
            call("GET", s.auth_url, {"X-Auth-User": s.user, "X-Auth-Key": s.key})
        s.start()
        assert s.running() and s.proxy_port == port
        url, tok = login(s)
        assert call("GET", url + "/logs/day/a.gz", {"X-Auth-Token": tok})[2] == body
    assert not s.running()

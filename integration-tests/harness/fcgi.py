"""A small FastCGI client (stdlib only) and the load generator built on it.

Run inside a web host's namespace (the harness does it with `ip netns exec`):

    python3 -m harness.fcgi load  SPEC.json   -> JSON results on stdout
    python3 -m harness.fcgi stats SPEC.json   -> JSON of every worker's stats
    python3 -m harness.fcgi batch SPEC.json   -> given requests to many pools

`load` with spec["http"] = "HOST:PORT" sends HTTP GETs to a web server
instead (nginx in front of php-fpm), with the same bounds and results.

The load is bounded twice: at most `count` requests and at most `duration`
seconds (requests not started by then are not sent); every socket operation
has a timeout. Latency is measured from connect() to FCGI_END_REQUEST, which
php-fpm sends after the request's shutdown — so it includes the extension's
send at request end, which is what the cut-off scenario measures.
"""

import http.client
import json
import os
import random
import socket
import struct
import sys
import threading
import time

FCGI_VERSION = 1
BEGIN_REQUEST, ABORT_REQUEST, END_REQUEST, PARAMS, STDIN, STDOUT, STDERR = 1, 2, 3, 4, 5, 6, 7
RESPONDER = 1


class FcgiError(Exception):
    pass


def _record(rtype, req_id, content=b""):
    out = []
    for i in range(0, max(len(content), 1), 65535):
        chunk = content[i:i + 65535]
        pad = (8 - len(chunk) % 8) % 8
        out.append(struct.pack("!BBHHBB", FCGI_VERSION, rtype, req_id, len(chunk), pad, 0)
                   + chunk + b"\0" * pad)
    return b"".join(out)


def _nv_len(n):
    return struct.pack("!B", n) if n < 128 else struct.pack("!I", n | 0x80000000)


def encode_params(params):
    out = []
    for k, v in params.items():
        k = k.encode() if isinstance(k, str) else k
        v = v.encode() if isinstance(v, str) else v
        out.append(_nv_len(len(k)) + _nv_len(len(v)) + k + v)
    return b"".join(out)


def _recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise FcgiError("connection closed by the server")
        buf += chunk
    return buf


class Response:
    def __init__(self, status, headers, body, stderr, app_status):
        self.status = status
        self.headers = headers
        self.body = body
        self.stderr = stderr
        self.app_status = app_status


def request(sock_path, params, stdin=b"", timeout=10.0):
    """One FastCGI request over a unix socket; returns a Response."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(sock_path)
        req_id = 1
        msg = [_record(BEGIN_REQUEST, req_id, struct.pack("!HB5x", RESPONDER, 0))]
        if params:
            msg.append(_record(PARAMS, req_id, encode_params(params)))
        msg.append(_record(PARAMS, req_id))
        if stdin:
            msg.append(_record(STDIN, req_id, stdin))
        msg.append(_record(STDIN, req_id))
        s.sendall(b"".join(msg))
        out, err = [], []
        while True:
            version, rtype, rid, clen, plen, _ = struct.unpack("!BBHHBB", _recv_exact(s, 8))
            content = _recv_exact(s, clen + plen)[:clen]
            if rtype == STDOUT:
                out.append(content)
            elif rtype == STDERR:
                err.append(content)
            elif rtype == END_REQUEST:
                app_status = struct.unpack("!IB3x", content)[0]
                break
    finally:
        s.close()
    raw = b"".join(out)
    head, _, body = raw.partition(b"\r\n\r\n")
    headers = {}
    for line in head.split(b"\r\n"):
        k, _, v = line.partition(b":")
        if k:
            headers[k.strip().lower().decode("latin-1")] = v.strip().decode("latin-1")
    status = int(headers.get("status", "200").split()[0])
    return Response(status, headers, body, b"".join(err), app_status)


def http_get(addr, url, timeout=10.0):
    """One HTTP/1.1 GET of url from the web server at addr ("HOST:PORT");
    returns a Response (no FastCGI stderr, application status 0)."""
    host, _, port = addr.rpartition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request("GET", url, headers={"Host": "fleet.test"})
        r = conn.getresponse()
        body = r.read()
        headers = {k.lower(): v for k, v in r.getheaders()}
        return Response(r.status, headers, body, b"", 0)
    finally:
        conn.close()


def cgi_params(docroot, url, extra=None):
    """CGI parameters for a GET of url ('/rest.php/v1/page/X?y=1') under docroot."""
    path, _, query = url.partition("?")
    i = path.find(".php")
    script = path[:i + 4] if i >= 0 else path
    path_info = path[i + 4:] if i >= 0 else ""
    p = {
        "GATEWAY_INTERFACE": "CGI/1.1",
        "SERVER_SOFTWARE": "arclamp-integration",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "SERVER_NAME": "fleet.test",
        "SERVER_PORT": "80",
        "REMOTE_ADDR": "10.77.0.1",
        "REQUEST_METHOD": "GET",
        "DOCUMENT_ROOT": docroot,
        "SCRIPT_FILENAME": docroot + script,
        "SCRIPT_NAME": script,
        "PATH_INFO": path_info,
        "QUERY_STRING": query,
        "REQUEST_URI": url,
        "HTTP_HOST": "fleet.test",
        "CONTENT_LENGTH": "0",
    }
    p.update(extra or {})
    return p


def percentile(values, q):
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    v = sorted(values)
    if not v:
        return None
    k = max(0, min(len(v) - 1, int(-(-q * len(v) // 100)) - 1))
    return v[k]


# ---------------------------------------------------------------------------
# load


def run_load(spec):
    """spec: socket, docroot, urls (list), count, duration, concurrency, seed,
    timeout, params (extra CGI params), keep_body (each result carries the
    first 4 KB of its body); or http ("HOST:PORT") instead of socket and
    docroot. Returns a dict of results."""
    rnd = random.Random(spec.get("seed", 1))
    urls = spec["urls"]
    count = int(spec["count"])
    plan = [urls[i % len(urls)] if spec.get("round_robin", True) else rnd.choice(urls)
            for i in range(count)]
    deadline = time.monotonic() + float(spec["duration"])
    results = [None] * count
    lock = threading.Lock()
    nxt = [0]

    def worker():
        while True:
            with lock:
                i = nxt[0]
                if i >= count or time.monotonic() >= deadline:
                    return
                nxt[0] += 1
            url = plan[i]
            t0 = time.monotonic()
            rec = {"url": url, "start": t0}
            try:
                if spec.get("http"):
                    r = http_get(spec["http"], url, timeout=float(spec.get("timeout", 10)))
                else:
                    r = request(spec["socket"], cgi_params(spec["docroot"], url, spec.get("params")),
                                timeout=float(spec.get("timeout", 10)))
                rec["status"] = r.status
                rec["bytes"] = len(r.body)
                if spec.get("keep_body"):
                    rec["body"] = r.body[:4096].decode("utf-8", "replace")
                if r.status != 200:
                    rec["error"] = "HTTP %d: %s" % (r.status, r.body[:300].decode("utf-8", "replace"))
                if r.stderr:
                    rec["stderr"] = r.stderr[:300].decode("utf-8", "replace")
            except (OSError, FcgiError, http.client.HTTPException) as exc:
                rec["status"] = 0
                rec["error"] = "%s: %s" % (type(exc).__name__, exc)
            rec["latency"] = time.monotonic() - t0
            results[i] = rec

    t_start = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(int(spec.get("concurrency", 1)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done = [r for r in results if r is not None]
    for r in done:
        r["start"] -= t_start
    # t0: CLOCK_MONOTONIC at the start (system-wide, so the test can place
    # each request's start and end against the moments of its faults)
    return {"requests": done, "elapsed": time.monotonic() - t_start,
            "not_sent": count - len(done), "t0": t_start}


def run_stats(spec):
    """Ask every worker of a static pool for its excimer_arclamp_stats().

    Sends `workers` requests at once to admin/stats.php?hold=S; each holds
    its worker for S seconds, so while all are in flight they occupy
    distinct workers. stats.php calls excimer_arclamp_skip_request() first,
    so these requests send nothing themselves. (PHP_ADMIN_VALUE cannot turn
    collection off for them: php-fpm writes it into the worker's settings,
    where it sticks for the worker's later requests.)"""
    n = int(spec["workers"])
    hold = float(spec.get("hold", 0.5))
    out = [None] * n

    def one(i):
        try:
            r = request(spec["socket"], cgi_params(spec["docroot"], "/admin/stats.php?hold=%g" % hold,
                                                   spec.get("params")),
                        timeout=float(spec.get("timeout", 10)))
            out[i] = json.loads(r.body.decode()) if r.status == 200 else {"error": r.status}
        except (OSError, FcgiError, ValueError) as exc:
            out[i] = {"error": "%s: %s" % (type(exc).__name__, exc)}

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"workers": out}


def cpu_ns(pids):
    """CPU time (ns) the kernel has accounted to every thread of these
    processes: /proc/PID/task/*/schedstat, first field."""
    total = 0
    for pid in pids:
        base = "/proc/%d/task" % pid
        try:
            tids = os.listdir(base)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("%s/%s/schedstat" % (base, tid)) as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    return total


def run_interleave(spec):
    """spec: targets [{name, socket, docroot, pids, params}], urls, rounds,
    timeout; params: more FastCGI parameters for the target's requests
    (PHP_ADMIN_VALUE: several variants of one pool, see WebHost.variant).
    One request at a time: for each round, for each url, one request to every
    target (in a random order each time, seeded by spec["seed"]), so the pools
    being compared share the machine's moment-to-moment conditions. With
    `pids` (the target's php-fpm workers), also the CPU time they used
    during the request ("cpu", s: every thread, the sampler's included) and
    from its start to the start of the next request to the same workers
    ("cpu_all", s: also what they did after the response, such as a thread
    that sends the request's samples; other pools' requests run meanwhile,
    these workers are idle). Stops at the first failed request."""
    targets = spec["targets"]
    out = []
    # socket -> (the record of the last request its workers served, their CPU
    # reading at its start): variants of one pool share the workers.
    previous = {}

    def close_previous(t, now_ns):
        if t["socket"] in previous:
            rec, c0 = previous.pop(t["socket"])
            rec["cpu_all"] = (now_ns - c0) / 1e9

    shuffle = random.Random(int(spec.get("seed", 0)))
    for rnd in range(int(spec["rounds"])):
        for url in spec["urls"]:
            # A fresh random order for every round and url: a rotation keeps
            # each target right behind the same one, and the request after
            # another pool's finds the caches colder (measured: 0.3-0.4 ms).
            order = list(targets)
            shuffle.shuffle(order)
            for t in order:
                pids = t.get("pids") or []
                c0 = cpu_ns(pids) if pids else 0
                if pids:
                    close_previous(t, c0)
                t0 = time.monotonic()
                rec = {"target": t["name"], "url": url, "round": rnd}
                try:
                    r = request(t["socket"], cgi_params(t["docroot"], url, t.get("params")),
                                timeout=float(spec.get("timeout", 10)))
                    rec["status"] = r.status
                    if r.status != 200:
                        rec["error"] = "HTTP %d" % r.status
                except (OSError, FcgiError) as exc:
                    rec["status"] = 0
                    rec["error"] = "%s: %s" % (type(exc).__name__, exc)
                rec["latency"] = time.monotonic() - t0
                if pids:
                    rec["cpu"] = (cpu_ns(pids) - c0) / 1e9
                    previous[t["socket"]] = (rec, c0)
                out.append(rec)
                if "error" in rec:
                    return {"requests": out}
    time.sleep(0.3)  # the last requests' after-work
    for t in targets:
        if t.get("pids"):
            close_previous(t, cpu_ns(t["pids"]))
    return {"requests": out}


def run_batch(spec):
    """spec: requests [{id, socket, docroot, url, params}], concurrency,
    timeout, body_bytes (how much of each body to keep, default 1 MB).
    Requests to one socket go in the order given, one at a time (a pool of
    one worker then serves them in that order); different sockets are
    served by `concurrency` threads at once. Many pools in one client run:
    starting a client inside a namespace costs more than a request.
    Returns {"requests": [{id, url, status, body, latency, error?}]} in the
    order given."""
    reqs = spec["requests"]
    queues = {}
    for i, r in enumerate(reqs):
        queues.setdefault(r["socket"], []).append(i)
    order = list(queues.values())
    results = [None] * len(reqs)
    lock = threading.Lock()
    keep = int(spec.get("body_bytes", 1 << 20))
    timeout = float(spec.get("timeout", 10))

    def one(i):
        r = reqs[i]
        rec = {"id": r.get("id"), "url": r["url"]}
        t0 = time.monotonic()
        try:
            resp = request(r["socket"], cgi_params(r["docroot"], r["url"], r.get("params")),
                           timeout=timeout)
            rec["status"] = resp.status
            rec["body"] = resp.body[:keep].decode("utf-8", "replace")
            if resp.status != 200:
                rec["error"] = "HTTP %d: %s" % (resp.status, resp.body[:300].decode("utf-8", "replace"))
            if resp.stderr:
                rec["stderr"] = resp.stderr[:300].decode("utf-8", "replace")
        except (OSError, FcgiError) as exc:
            rec["status"] = 0
            rec["error"] = "%s: %s" % (type(exc).__name__, exc)
        rec["latency"] = time.monotonic() - t0
        results[i] = rec

    def worker():
        while True:
            with lock:
                if not order:
                    return
                queue = order.pop(0)
            for i in queue:
                one(i)

    threads = [threading.Thread(target=worker) for _ in range(int(spec.get("concurrency", 2)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"requests": results}


def main(argv):
    modes = {"load": run_load, "stats": run_stats, "interleave": run_interleave, "batch": run_batch}
    if len(argv) != 3 or argv[1] not in modes:
        print("usage: python3 -m harness.fcgi load|stats|interleave|batch SPEC.json", file=sys.stderr)
        return 64
    with open(argv[2]) as f:
        spec = json.load(f)
    res = modes[argv[1]](spec)
    json.dump(res, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

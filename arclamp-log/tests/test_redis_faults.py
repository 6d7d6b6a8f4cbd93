"""Fault injection for arclamp-log's Redis input (issue "One Redis client,
the faults it must survive").

A fake Redis (common/tests/fakeredis.py) answers the daemon in every broken
way a server, a proxy or a network can: unparseable bytes, errors, replies
cut short or never finished, silence, refused AUTH or SELECT, a hostile array
header. For each fault the daemon must
 - not crash (the daemon fixture fails the test on an unexpected exit or a
   sanitizer report),
 - log the cause in one line, not once per reconnect attempt,
 - reconnect with a backoff (0.1 s doubling up to reconnect_max_delay),
 - read again once the server behaves: messages land; in stream mode every
   entry acknowledged has its lines in the trace logs, and every entry is
   written in the end.
Real redis-servers cover the limits: 1,000 channels and stream keys, a
restart under load, unix sockets, redis-py's configuration keys; a host name
with two addresses of which only the second listens covers the address walk.

Only 127.0.0.1, ::1 and unix sockets in the test's directory are used.
"""

import collections
import os
import shutil
import socket
import subprocess
import threading
import time

import pytest

from conftest import (RedisError, RedisServer, base_config, count_lines, lines_of, make_batch)
from fakeredis import FakeRedis
from testkit import metric, read_metrics, wait_until

MAX_DELAY = 1.0           # reconnect_max_delay of every fake case
CONNECT_TIMEOUT = 0.5     # connect_timeout of every fake case: the handshake's deadline
CONSUMER = "test-consumer"
GROUP = "arclamp-log"
CHANNEL = "excimer"


# --------------------------------------------------------------------------
# Helpers


@pytest.fixture
def fake_redis():
    """fake_redis(**FakeRedis kwargs) -> a started FakeRedis, stopped at teardown."""
    made = []

    def make(**kw):
        f = FakeRedis(**kw)
        made.append(f)
        return f

    yield make
    for f in made:
        f.stop()


def fake_config(workdir, fake, mode="pubsub", **redis_over):
    cfg = base_config(workdir)
    r = {"reconnect_max_delay": MAX_DELAY, "connect_timeout": CONNECT_TIMEOUT,
         "health_check_interval": 1, "mode": mode}
    if fake.unix_path:
        r["unix_socket"] = fake.unix_path
    else:
        r["host"], r["port"] = fake.host, fake.port
    if mode == "stream":
        r["stream_consumer"] = CONSUMER
    r.update(redis_over)
    cfg["redis"] = r
    cfg["redis_channel"] = CHANNEL
    return cfg


def failure_lines(d, cause=""):
    """The daemon's log lines reporting a Redis failure (with this cause)."""
    return [l for l in d.stderr_text().splitlines()
            if ("redis_connect_failed:" in l or "redis_disconnected:" in l) and cause in l]


def backoffs(n):
    """The first n reconnect delays: 0.1 s doubling up to MAX_DELAY."""
    out, b = [], 0.1
    for _ in range(n):
        out.append(b)
        b = min(b * 2, MAX_DELAY)
    return out


def vm_kib(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError("no %s in /proc/%d/status" % (field, pid))


def assert_reported_once_with_backoff(d, fake, cause, attempts):
    """The cause is logged once while the fake sees `attempts` connections,
    each at least the backoff after the one before."""
    wait_until(lambda: failure_lines(d, cause), what="the cause %r in the log" % cause,
               describe=d.stderr_text)
    wait_until(lambda: fake.accepted >= attempts, timeout=15,
               what="%d connection attempts" % attempts, describe=lambda: fake.accepted)
    assert d.alive()
    lines = failure_lines(d, cause)
    assert len(lines) == 1, "the cause was logged %d times over %d attempts:\n%s" % (
        len(lines), fake.accepted, "\n".join(lines))
    others = [l for l in failure_lines(d) if cause not in l]
    assert not others, "other failures logged:\n" + "\n".join(others)
    times = fake.accept_times[:attempts]
    gaps = [b - a for a, b in zip(times, times[1:])]
    for i, (gap, want) in enumerate(zip(gaps, backoffs(len(gaps)))):
        # a timer never fires early; 50 ms of slack for the clocks of two processes
        assert gap >= want - 0.05, (
            "attempt %d came %.3fs after the one before, under the backoff of %.1fs; gaps %s"
            % (i + 2, gap, want, ["%.2f" % g for g in gaps]))


# --- pub/sub and stream traffic through the fake ------------------------------------


def publish_to_fake(fake, lines):
    for l in lines:
        assert fake.publish(CHANNEL, l) == 1, "the daemon is not subscribed (once) any more"


def recover_pubsub(d, fake, base, marker):
    """The fake behaves again: the daemon subscribes, published messages land."""
    fake.behaviour = "normal"
    wait_until(lambda: fake.subscribers(CHANNEL) == 1, timeout=10,
               what="the daemon to subscribe once the server behaves",
               describe=lambda: "%d connections; log:\n%s" % (fake.accepted, d.stderr_text()))
    lines, _ = make_batch(20, marker)
    publish_to_fake(fake, lines)
    wait_until(lambda: count_lines(base, "hourly") >= len(lines), what="the published lines",
               describe=lambda: count_lines(base, "hourly"))
    assert sorted(lines_of(base, "hourly")) == sorted(lines)
    assert "redis_connected:" in d.stderr_text()


class StreamLedger:
    """The entries a test added to the fake's stream, to check what was
    acknowledged against what was written."""

    def __init__(self, fake, db=0):
        self.fake, self.db = fake, db
        self.by_id = {}

    def add(self, lines):
        for l in lines:
            self.by_id[self.fake.add_entry(CHANNEL, db=self.db, sample=l)] = l

    def assert_acked_were_written(self, base):
        written = collections.Counter(lines_of(base, "hourly"))
        for key, entry_id in list(self.fake.acked):
            assert key == CHANNEL.encode()
            assert entry_id in self.by_id, "an id never added was acknowledged: %r" % entry_id
            assert written[self.by_id[entry_id]] >= 1, (
                "entry %r acknowledged, its line not written" % entry_id)

    def wait_all_written_and_acked(self, base):
        want = set(self.by_id.values())
        wait_until(lambda: set(lines_of(base, "hourly")) >= want, timeout=15,
                   what="every entry's line in the trace log",
                   describe=lambda: "%d of %d" % (len(set(lines_of(base, "hourly")) & want),
                                                  len(want)))
        wait_until(lambda: {i for _, i in self.fake.acked} >= set(self.by_id), timeout=10,
                   what="every entry acknowledged",
                   describe=lambda: "%d of %d; pending %r" % (
                       len({i for _, i in self.fake.acked} & set(self.by_id)), len(self.by_id),
                       self.fake.pending(CHANNEL, GROUP, db=self.db)))
        self.assert_acked_were_written(base)
        assert set(lines_of(base, "hourly")) == want, "lines written that were never sent"


def recover_stream(d, fake, base, ledger, marker):
    fake.behaviour = "normal"
    lines, _ = make_batch(20, marker)
    ledger.add(lines)
    ledger.wait_all_written_and_acked(base)
    assert "redis_connected:" in d.stderr_text()


def reads_new_entries(cmd):
    """XREADGROUP ... STREAMS key >: the read of new entries, not the pending pass."""
    return cmd[0].upper() == b"XREADGROUP" and cmd[-1] == b">"


# --------------------------------------------------------------------------
# One fault at a time

PROTOCOL = 'Protocol error, got "!" as reply type byte'
HANDSHAKE = "no complete answer to the handshake within %.1fs" % CONNECT_TIMEOUT
CLOSED = "the server closed the connection before answering"
HUGE = "a reply announced 2147483647 elements"

# id: (behaviour, mode, FakeRedis kwargs, redis config, cause, attempts watched)
FAULTS = {
    "malformed-pubsub": ("malformed", "pubsub", {}, {}, PROTOCOL, 7),
    "malformed-stream-read": ("malformed", "stream", {"trigger": reads_new_entries}, {},
                              PROTOCOL, 5),
    "error-pubsub": ("error", "pubsub", {}, {}, "refused: ERR injected", 5),
    "error-stream": ("error", "stream", {}, {}, "XGROUP CREATE refused: ERR injected", 5),
    "never_complete-pubsub": ("never_complete", "pubsub", {}, {}, HANDSHAKE, 4),
    "never_complete-stream-read": ("never_complete", "stream", {"trigger": reads_new_entries},
                                   {"health_check_interval": 0.3},
                                   "no answer to the health check within 0.6s", 4),
    "close_mid_reply-pubsub": ("close_mid_reply", "pubsub", {}, {}, CLOSED, 5),
    "close_mid_reply-stream-read": ("close_mid_reply", "stream", {"trigger": reads_new_entries},
                                    {}, CLOSED, 5),
    "silent-pubsub": ("silent", "pubsub", {}, {}, HANDSHAKE, 4),
    "silent-unix-socket": ("silent", "pubsub", {"unix": True}, {}, HANDSHAKE, 4),
    "auth_fails": ("auth_fails", "pubsub", {"password": "s3cret"}, {"password": "s3cret"},
                   "AUTH refused: WRONGPASS invalid username-password pair", 5),
    "select_fails": ("select_fails", "stream", {}, {"db": 3},
                     "SELECT 3 refused: ERR DB index is out of range", 5),
    "huge_array-pubsub": ("huge_array", "pubsub", {}, {}, HUGE, 4),
    "huge_array-stream-read": ("huge_array", "stream", {"trigger": reads_new_entries}, {},
                               HUGE, 4),
}


@pytest.mark.parametrize("case", list(FAULTS))
def test_fault_is_reported_once_retried_with_backoff_and_reading_resumes(
        case, fake_redis, daemon_factory, workdir):
    behaviour, mode, fake_kw, redis_over, cause, attempts = FAULTS[case]
    fake_kw = dict(fake_kw)
    if fake_kw.pop("unix", False):
        fake_kw["unix_path"] = str(workdir / "fake-redis.sock")
    fake = fake_redis(behaviour=behaviour, **fake_kw)
    base = workdir / "logs"
    ledger = StreamLedger(fake, db=redis_over.get("db", 0)) if mode == "stream" else None
    if ledger:
        # entries waiting before the daemon starts: the fault hits reading them
        ledger.add(make_batch(30, "before")[0])
    d = daemon_factory(fake_config(workdir, fake, mode, **redis_over)).start()

    assert_reported_once_with_backoff(d, fake, cause, attempts)
    if behaviour == "huge_array":
        assert "refused" in failure_lines(d, cause)[0]
        # the header was refused as it came, not allocated (2^31 pointers: 16 GiB)
        assert vm_kib(d.pid, "VmHWM") < 100 * 1024, "peak RSS %d KiB" % vm_kib(d.pid, "VmHWM")
    if ledger:
        # whatever was acknowledged so far (pending passes between faults) is on disk
        ledger.assert_acked_were_written(base)
        recover_stream(d, fake, base, ledger, "after")
    else:
        recover_pubsub(d, fake, base, "after")
    assert d.alive()
    assert d.stop() == 0


@pytest.mark.parametrize("mode", ["pubsub", "stream"])
def test_replies_written_one_byte_at_a_time_work_normally(
        mode, fake_redis, daemon_factory, workdir):
    fake = fake_redis(behaviour="split")
    base = workdir / "logs"
    d = daemon_factory(fake_config(workdir, fake, mode, client_name="arclamp-split")).start()
    lines, _ = make_batch(10, "split")
    if mode == "pubsub":
        wait_until(lambda: fake.subscribers(CHANNEL) == 1, what="the subscription",
                   describe=d.stderr_text)
        publish_to_fake(fake, lines)
        wait_until(lambda: count_lines(base, "hourly") >= len(lines), what="the lines")
        assert sorted(lines_of(base, "hourly")) == sorted(lines)
    else:
        ledger = StreamLedger(fake)
        ledger.add(lines)
        ledger.wait_all_written_and_acked(base)
    assert fake.accepted == 1, "reconnected %d times" % (fake.accepted - 1)
    assert not failure_lines(d), failure_lines(d)
    assert fake.commands("CLIENT") == [[b"CLIENT", b"SETNAME", b"arclamp-split"]]
    assert d.stop() == 0


@pytest.mark.parametrize("elements", [1400000, 500000])
def test_array_of_tiny_elements_cannot_grow_memory_past_the_reply_limit(
        elements, fake_redis, daemon_factory, workdir):
    """An array header under the element limit, then ":1" elements: 4 bytes
    each on the wire, some 70 in memory. The limit of a reply bounds its
    memory, not only its bytes. Here it is about 5 MB (stream_batch 1000
    entries of max_message_bytes 4096, plus some overhead each); the fake announces
    1,400,000 elements (their vector alone is 11 MB: refused at the header)
    or 500,000 (4 MB of vector: refused after some 15,000 elements), then
    sends up to 8 MiB of them. Without the object charge the first case
    peaked at 83 MB and the second was parsed whole (36 MB)."""
    fake = fake_redis(behaviour="huge_array", trigger=reads_new_entries,
                      huge_elements=elements)
    cfg = fake_config(workdir, fake, "stream", stream_batch=1000)
    cfg["max_message_bytes"] = 4096
    cfg["max_line_bytes"] = 4096
    d = daemon_factory(cfg).start()
    cause = "bytes of memory; refused"
    assert_reported_once_with_backoff(d, fake, cause, 3)
    hwm = vm_kib(d.pid, "VmHWM")
    assert hwm < 60 * 1024, "peak RSS %d KiB for a reply limited to about 5 MB" % hwm
    recover_stream(d, fake, workdir / "logs", StreamLedger(fake), "after-huge")
    assert d.stop() == 0


# --------------------------------------------------------------------------
# A host name with two addresses, the first refusing


def _can_bind_mount():
    if os.geteuid() != 0:
        return "needs root (mount namespaces)"
    if not shutil.which("unshare"):
        return "needs unshare (util-linux)"
    return None


def in_namespace_with_hosts(hosts_file):
    """argv prefix: a private mount namespace with hosts_file over /etc/hosts."""
    return ["unshare", "-m", "--propagation", "private", "sh", "-c",
            "mount --bind '%s' /etc/hosts && exec \"$0\" \"$@\"" % hosts_file]


def test_host_name_whose_first_address_refuses_is_reached_on_its_second(
        fake_redis, daemon_factory, workdir):
    why = _can_bind_mount()
    if why:
        pytest.skip(why)
    hosts = workdir / "hosts"
    hosts.write_text("::1 redis.test\n127.0.0.1 redis.test\n")
    probe = subprocess.run(
        in_namespace_with_hosts(hosts) + [
            "/usr/bin/python3", "-c",
            "import socket; print(' '.join(a[4][0] for a in socket.getaddrinfo("
            "'redis.test', 6379, type=socket.SOCK_STREAM)))"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
    if probe.returncode != 0:
        pytest.skip("cannot bind-mount /etc/hosts in a mount namespace: %s"
                    % probe.stderr.decode(errors="replace").strip())
    addrs = probe.stdout.decode().split()
    if len(set(addrs)) != 2:
        pytest.skip("redis.test resolved to %r, not to ::1 and 127.0.0.1" % addrs)
    first, last = addrs[0], addrs[-1]
    try:
        fake = fake_redis(host=last)
    except OSError as exc:
        pytest.skip("cannot listen on %s: %s" % (last, exc))
    # nothing listens on the first address at that port: it refuses
    with socket.socket(socket.AF_INET6 if ":" in first else socket.AF_INET) as s:
        assert s.connect_ex((first, fake.port)) != 0, "%s:%d is taken" % (first, fake.port)

    cfg = fake_config(workdir, fake)
    cfg["redis"]["host"] = "redis.test"
    d = daemon_factory(cfg, argv_prefix=in_namespace_with_hosts(hosts)).start()
    wait_until(lambda: fake.subscribers(CHANNEL) == 1, what="the subscription on %s" % last,
               describe=d.stderr_text)
    lines, _ = make_batch(10, "second-address")
    publish_to_fake(fake, lines)
    base = workdir / "logs"
    wait_until(lambda: count_lines(base, "hourly") >= len(lines), what="the lines")
    assert sorted(lines_of(base, "hourly")) == sorted(lines)
    assert fake.accepted == 1
    assert not failure_lines(d), "the refused first address was reported as a failure"
    assert d.stop() == 0


# --------------------------------------------------------------------------
# Real redis-server at the limits


def test_1000_pubsub_channels_are_all_subscribed_and_the_last_one_delivers(
        redis_server, daemon_factory, workdir):
    channels = ["ch%04d" % i for i in range(1000)]
    cfg = base_config(workdir, redis=redis_server, redis_channels=channels)
    del cfg["redis_channel"]
    d = daemon_factory(cfg).start()

    def subscribed():
        with redis_server.client() as c:
            reply = c.command("PUBSUB", "NUMSUB", *channels)
        return sum(int(n) for n in reply[1::2])

    wait_until(lambda: subscribed() == 1000, what="1000 subscriptions", describe=subscribed)
    line = make_batch(1, "ch999")[0][0]
    with redis_server.client() as c:
        assert c.command("PUBLISH", "ch0999", line) == 1
    base = workdir / "logs"
    wait_until(lambda: count_lines(base, "hourly") >= 1, what="the line published on ch0999")
    assert lines_of(base, "hourly") == [line]
    assert "subscribed to 1000 keys" in d.stderr_text()
    assert d.stop() == 0


def test_1000_stream_keys_are_read_and_entries_on_several_land(
        redis_server, daemon_factory, workdir):
    keys = ["st%04d" % i for i in range(1000)]
    cfg = base_config(workdir, redis=redis_server, redis_channels=keys)
    del cfg["redis_channel"]
    cfg["redis"].update(mode="stream", stream_consumer=CONSUMER)
    d = daemon_factory(cfg).start()
    wait_until(lambda: "reading the streams of 1000 keys" in d.stderr_text(),
               what="the groups on 1000 keys", describe=d.stderr_text)
    sent = []
    with redis_server.client() as c:
        for i, key in enumerate(("st0000", "st0001", "st0500", "st0998", "st0999")):
            lines, _ = make_batch(3, "key%d" % i)
            assert all(isinstance(r, bytes) for r in
                       c.pipeline([("XADD", key, "*", "sample", l) for l in lines]))
            sent += lines
    base = workdir / "logs"
    wait_until(lambda: count_lines(base, "hourly") >= len(sent), what="entries of 5 keys",
               describe=lambda: count_lines(base, "hourly"))
    with redis_server.client() as c:
        wait_until(lambda: all(int(c.command("XPENDING", k, GROUP)[0]) == 0
                               for k in ("st0000", "st0500", "st0999")),
                   what="every entry acknowledged")
    assert sorted(lines_of(base, "hourly")) == sorted(sent)
    assert not failure_lines(d), failure_lines(d)
    assert d.stop() == 0


class Publisher(threading.Thread):
    """XADDs batches to a real Redis until `total` lines were confirmed or the
    deadline passed, reconnecting when Redis goes away. A batch whose replies
    did not all come back is `uncertain`: Redis may or may not have it."""

    def __init__(self, server, total, batch=20, deadline=30.0):
        super().__init__(daemon=True, name="xadd-publisher")
        self.server, self.total, self.batch = server, total, batch
        self.deadline = time.monotonic() + deadline
        self.confirmed, self.uncertain, self.failures = [], [], 0
        self.stop_flag = threading.Event()

    def run(self):
        lines, _ = make_batch(self.total, "load")
        i, client = 0, None
        while i < len(lines) and time.monotonic() < self.deadline and not self.stop_flag.is_set():
            chunk = lines[i:i + self.batch]
            try:
                if client is None:
                    client = self.server.client(timeout=2)
                replies = client.pipeline([("XADD", CHANNEL, "*", "sample", l) for l in chunk])
                if not all(isinstance(r, bytes) for r in replies):
                    raise ConnectionError("XADD refused: %r" % replies[:2])
                self.confirmed += chunk
                i += len(chunk)
                time.sleep(0.005)
            except (OSError, ConnectionError, RedisError):
                self.failures += 1
                self.uncertain += chunk
                i += len(chunk)
                if client is not None:
                    client.close()
                client = None
                time.sleep(0.05)
        if client is not None:
            client.close()


def test_stream_redis_restarted_under_load_loses_nothing(
        redis_server_aof, daemon_factory, workdir):
    redis = redis_server_aof
    base = workdir / "logs"
    cfg = base_config(workdir, redis=redis)
    cfg["redis"].update(mode="stream", stream_consumer=CONSUMER, stream_batch=50,
                        health_check_interval=1)
    d = daemon_factory(cfg).start()
    pub = Publisher(redis, total=4000)
    pub.start()
    try:
        wait_until(lambda: count_lines(base, "hourly") >= 500, what="lines under load",
                   describe=lambda: count_lines(base, "hourly"))
        redis.kill()
        time.sleep(0.3)
        redis.start()  # same port, the AOF replayed
        pub.join(timeout=40)
        assert not pub.is_alive(), "the publisher did not finish"
    finally:
        pub.stop_flag.set()
        pub.join(timeout=10)
    assert d.alive()
    assert len(pub.confirmed) >= 3000, "only %d lines confirmed" % len(pub.confirmed)
    assert pub.failures >= 1, "the restart did not interrupt the publisher"
    confirmed = set(pub.confirmed)
    wait_until(lambda: set(lines_of(base, "hourly")) >= confirmed, timeout=20,
               what="every confirmed line written",
               describe=lambda: "%d of %d" % (len(set(lines_of(base, "hourly")) & confirmed),
                                              len(confirmed)))
    with redis.client() as c:
        wait_until(lambda: int(c.command("XPENDING", CHANNEL, GROUP)[0]) == 0,
                   what="nothing pending")
    assert d.stop() == 0
    written = lines_of(base, "hourly")
    assert set(written) <= confirmed | set(pub.uncertain), "lines never sent were written"
    m = read_metrics(workdir / "metrics.prom")
    assert metric(m, "arclamp_log_redis_reconnects_total") >= 1
    dups = len(written) - len(set(written))
    print("%d lines confirmed, %d uncertain, %d written twice (at least once is the promise)"
          % (len(confirmed), len(pub.uncertain), dups))


# --------------------------------------------------------------------------
# Unix sockets and redis-py's keys, against a real redis-server


@pytest.fixture
def unix_redis_factory(workdir):
    """unix_redis_factory(password=None) -> a started redis-server on a unix
    socket only (conftest's RedisServer), stopped at the end."""
    made = []

    def make(**kw):
        r = RedisServer(workdir / ("redis%d" % len(made)), unix=True, **kw).start()
        made.append(r)
        return r

    yield make
    for r in made:
        r.stop()


@pytest.mark.parametrize("mode", ["pubsub", "stream"])
def test_redis_on_a_unix_socket_with_redis_py_key_unix_socket_path(
        mode, unix_redis_factory, daemon_factory, workdir):
    redis = unix_redis_factory()
    cfg = base_config(workdir)
    cfg["redis"] = {"unix_socket_path": str(redis.path), "mode": mode,
                    "stream_consumer": CONSUMER, "reconnect_max_delay": 1,
                    "connect_timeout": 1}
    d = daemon_factory(cfg).start()
    lines, _ = make_batch(15, "unix-" + mode)
    base = workdir / "logs"
    with redis.client() as c:
        if mode == "pubsub":
            wait_until(lambda: int(c.command("PUBSUB", "NUMSUB", CHANNEL)[1]) == 1,
                       what="the subscription", describe=d.stderr_text)
            assert c.pipeline([("PUBLISH", CHANNEL, l) for l in lines]) == [1] * len(lines)
        else:
            wait_until(lambda: "reading the streams" in d.stderr_text(), what="the group")
            c.pipeline([("XADD", CHANNEL, "*", "sample", l) for l in lines])
        wait_until(lambda: count_lines(base, "hourly") >= len(lines), what="the lines",
                   describe=lambda: count_lines(base, "hourly"))
        if mode == "stream":
            wait_until(lambda: int(c.command("XPENDING", CHANNEL, GROUP)[0]) == 0,
                       what="nothing pending")
    assert sorted(lines_of(base, "hourly")) == sorted(lines)
    # the connection completes at once on a unix socket: no bogus handshake timeout
    assert not failure_lines(d), failure_lines(d)
    assert d.stop() == 0


def test_redis_py_connection_keys_work_end_to_end(unix_redis_factory, daemon_factory, workdir):
    redis = unix_redis_factory(password="py-s3cret")
    cfg = base_config(workdir)
    cfg["redis"] = {"unix_socket_path": str(redis.path), "socket_timeout": 2,
                    "socket_connect_timeout": 1, "db": 5, "password": "py-s3cret",
                    "mode": "stream", "stream_consumer": CONSUMER, "reconnect_max_delay": 1}
    d = daemon_factory(cfg).start()
    wait_until(lambda: "reading the streams" in d.stderr_text(), what="the group",
               describe=d.stderr_text)
    lines, _ = make_batch(12, "redis-py")
    base = workdir / "logs"
    with redis.client(db=5) as c:
        # the group was made in database 5, not 0
        assert [g[1] for g in c.command("XINFO", "GROUPS", CHANNEL)] == [GROUP.encode()]
        c.pipeline([("XADD", CHANNEL, "*", "sample", l) for l in lines])
        wait_until(lambda: count_lines(base, "hourly") >= len(lines), what="the lines")
        wait_until(lambda: int(c.command("XPENDING", CHANNEL, GROUP)[0]) == 0,
                   what="nothing pending")
    with redis.client() as c:
        assert c.command("EXISTS", CHANNEL) == 0, "the stream was made in database 0"
    assert sorted(lines_of(base, "hourly")) == sorted(lines)
    assert "config_key_ignored" not in d.stderr_text()
    assert not failure_lines(d), failure_lines(d)
    assert d.stop() == 0


def test_unknown_redis_py_key_is_warned_about_and_the_daemon_runs(
        fake_redis, daemon_factory, workdir):
    fake = fake_redis()
    cfg = fake_config(workdir, fake, decode_responses=True)
    d = daemon_factory(cfg).start()
    wait_until(lambda: fake.subscribers(CHANNEL) == 1, what="the subscription",
               describe=d.stderr_text)
    warned = [l for l in d.stderr_text().splitlines() if "config_key_ignored" in l]
    assert len(warned) == 1 and "decode_responses" in warned[0], warned
    assert " warning " in warned[0]
    lines, _ = make_batch(5, "decode")
    publish_to_fake(fake, lines)
    wait_until(lambda: count_lines(workdir / "logs", "hourly") >= 5, what="the lines")
    assert d.stop() == 0

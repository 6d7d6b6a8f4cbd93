"""Scenario 13: the fleet and the object store. Two trace log hosts, each
fed by its own php-fpm web host, publish their logs to one Swift store
(`arclamp-svg publish`, object_store.host eqiad / codfw); a generator host
draws every bucket and entry point from the store (`from_store: true`).
The graphs hold the sum of both hosts' samples; a store that is down for a
run loses nothing and gets everything at the next run; log objects carry
an expiry (Swift) or are removed by their own host's run once past the
retention (S3 through the same store's s3api), never another host's.

Topology (one Fleet, transport udp, plus three namespaces of this test):

    web1 --udp--> tier2 (arclamp-log, "eqiad") --publish--\\
    web2 --udp--> tier3 (arclamp-log, "codfw") --publish---> store (Swift)
                                          gen (arclamp-svg generate) <--/

Why one fleet: a Fleet's namespaces hang on a bridge of their own, so a
second Fleet could not reach this one's store; web2's excimer sends to
tier3 instead (excimer.arclamp_target), which makes tier3 a collector with
traffic of its own. Every client runs inside a namespace: swift-server in
`store` (on its address), each publish in its collector, generate and the
checking client (harness.swift) in `gen`.
"""

import gzip
import json
import os
import re
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness import report
from harness.arclamp import ArclampLog, arclamp_svg_bin, metric_sum
from harness.procs import wait_until
from harness.swift import SwiftStore, store_dump, store_request

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common" / "tests"))
from swiftkit import swift_missing  # noqa: E402

pytestmark = pytest.mark.skipif(bool(swift_missing()), reason=swift_missing() or "-")

REQUESTS = int(os.environ.get("ARCLAMP_IT_REQUESTS", "30"))
UDP_PORT = 7761
PREFIX = "fleet"            # Swift containers fleet-logs-<period>, ...
S3_PREFIX = "s3fleet"       # key prefixes in the S3 bucket
BUCKET = "arclamp-fleet"
S3_RETENTION_DAYS = 0.0002  # 17.28 s
PERIODS = ("hourly", "daily")
SVG_NS = "{http://www.w3.org/2000/svg}"
PUBLISH_WAIT = 180
RETENTION_WAIT = 150


# ---------------------------------------------------------------- helpers

def svg_env():
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LISTEN_", "NOTIFY_")) and k != "JOURNAL_STREAM"}
    return env


def store_yaml(store, kind, host=None, extra=None):
    """arclamp-svg's configuration with an object_store: section (Swift v1
    or S3 through s3api), a failing store costing seconds, not minutes."""
    o = {"container_prefix": PREFIX, "retries": 1, "retry_delay": 0.1,
         "connect_timeout": 2, "request_timeout": 20}
    if kind == "swift":
        o.update(type="swift", auth_url=store.auth_url, user=store.user, key=store.key)
    else:
        o.update(type="s3", endpoint=store.s3_endpoint, region=store.region, bucket=BUCKET,
                 access_key=store.access_key, secret_key=store.secret_key,
                 container_prefix=S3_PREFIX, retention_days=S3_RETENTION_DAYS)
    if host:
        o["host"] = host
    o.update(extra or {})
    lines = ["log_target: stderr", "object_store:"]
    for k, v in o.items():
        v = ("true" if v else "false") if isinstance(v, bool) else v
        lines.append("  %s: %s" % (k, json.dumps(v) if isinstance(v, str) else v))
    return "\n".join(lines) + "\n"


def run_svg(ns, command, config, data_dir):
    """arclamp-svg COMMAND inside ns; returns (exit status, stdout, stderr)."""
    argv = [arclamp_svg_bin(), command, "--config", str(config), "--data-dir", str(data_dir)]
    cp = ns.run(argv, timeout=PUBLISH_WAIT, check=False, env=svg_env())
    return cp.returncode, cp.stdout.decode("utf-8", "replace"), cp.stderr.decode("utf-8", "replace")


def whole_lines(data):
    """data up to its last newline: what publish sends of a log being written."""
    return data[:data.rfind(b"\n") + 1]


def sample_count(data):
    """The sum of the counts of a collapsed log (the count is after the last
    space of each line)."""
    total = 0
    for line in whole_lines(data).splitlines():
        if line.strip():
            total += int(line.rsplit(b" ", 1)[1])
    return total


def root_total(svgz):
    """The root box's sample count of a graph ("all (N samples, 100%)")."""
    root = ET.fromstring(gzip.decompress(Path(svgz).read_bytes()))
    for t in root.iter(SVG_NS + "title"):
        if t.text and t.text.startswith("all (") and t.text.endswith(", 100%)"):
            return int(t.text[5:].split(" ")[0].replace(",", ""))
    raise AssertionError("%s: no root box" % svgz)


def sent_count(out):
    m = re.search(r"store: (\d+) logs", out)
    assert m, out
    return int(m.group(1))


class Collector:
    """A trace log host: arclamp-log in its namespace, fed by one web host
    over UDP, and `arclamp-svg publish` of its logs as `site`."""

    def __init__(self, fleet, ns, arclamp, web, site):
        self.fleet, self.ns, self.arclamp, self.web, self.site = fleet, ns, arclamp, web, site
        self.config = arclamp.dir / "svg-store.yaml"
        self.s3_dir = arclamp.dir / "s3"          # own manifest for the S3 target
        self.s3_config = arclamp.dir / "svg-s3.yaml"

    def logs(self):
        """{(period, name): bytes} of every trace log (gunzipped)."""
        out = {}
        for period in PERIODS:
            d = self.arclamp.base_path / period
            for p in sorted(d.iterdir()) if d.is_dir() else []:
                if p.name.endswith(".log"):
                    out[(period, p.name[:-4])] = p.read_bytes()
                elif p.name.endswith(".log.gz"):
                    out[(period, p.name[:-7])] = gzip.decompress(p.read_bytes())
        return out

    def write_configs(self, store):
        self.config.write_text(store_yaml(store, "swift", self.site))
        self.s3_dir.mkdir(exist_ok=True)
        self.s3_config.write_text(store_yaml(store, "s3", self.site) +
                                  "logs_dir: %s\n" % json.dumps(str(self.arclamp.base_path)))

    def publish(self, s3=False):
        if s3:
            return run_svg(self.ns, "publish", self.s3_config, self.s3_dir)
        return run_svg(self.ns, "publish", self.config, self.arclamp.data_dir)

    def settle(self, expected):
        """Waits until arclamp-log received `expected` lines and wrote each
        to every group, then until its counters stop moving."""
        groups = [g["period"] for g in self.arclamp.logs]

        def done():
            m = self.arclamp.metrics()
            got = metric_sum(m, "arclamp_log_lines_received_total")
            return got >= expected and all(
                metric_sum(m, "arclamp_log_lines_written_total", group=g) >= got for g in groups)
        wait_until(done, timeout=60, what="%s: %d lines received and written" % (self.site, expected),
                   describe=lambda: str(self.arclamp.metrics())[:2000])
        m = self.arclamp.wait_quiet(settle=0.6)
        return int(metric_sum(m, "arclamp_log_lines_received_total"))


class StoreFleet:
    def __init__(self, fleet, collectors, store, gen_ns):
        self.fleet, self.collectors, self.store, self.gen_ns = fleet, collectors, store, gen_ns
        self.gen_dir = fleet.workdir / "gen"
        (self.gen_dir / "logs").mkdir(parents=True)   # from_store fills it
        self.gen_config = self.gen_dir / "svg-gen.yaml"
        self.latencies = []
        self.gen_config.write_text(store_yaml(store, "swift", extra={
            "from_store": True, "publish": False}))

    def traffic(self, count):
        """count requests on each web host; returns once each collector
        received and wrote every line its web host sent."""
        loads = self.fleet.load_all(count=count, duration=90)
        assert not self.fleet.failed_requests(loads), self.fleet.failed_requests(loads)[:3]
        self.latencies += self.fleet.latencies(loads)
        sent = self.fleet.sent_by_host()
        for c in self.collectors:
            s = sent[c.web]
            assert s["sent"] > 0 and s["failed"] == 0, (c.web, s)
            assert c.settle(s["sent"]) == s["sent"], (c.site, s)

    def record(self, t0, note):
        """The results table's row: both collectors' lines, the samples of
        their hourly `all` logs (what the generator's graphs add up)."""
        sent = self.fleet.sent_by_host()
        received = written = invalid = samples = 0
        for c in self.collectors:
            m = c.arclamp.metrics()
            received += int(metric_sum(m, "arclamp_log_lines_received_total"))
            invalid += int(metric_sum(m, "arclamp_log_lines_invalid_total"))
            for (period, name), data in c.logs().items():
                if period == "hourly" and name.endswith(".all"):
                    written += whole_lines(data).count(b"\n")
                    samples += sample_count(data)
        return report.record("13 fleet and object store (udp, 2 collectors)",
                             sent=sum(sent[c.web]["sent"] for c in self.collectors),
                             received=received, written=written, invalid=invalid,
                             samples=samples, latencies=self.latencies,
                             seconds=time.monotonic() - t0, note=note)

    def dump(self, containers, prefix=""):
        return store_dump(self.gen_ns, self.store, self.fleet.workdir, containers, prefix)

    def check_store_holds_local_logs(self):
        """Every collector's every log is in the store under <site>/, its
        content the local file's whole lines; nothing else is there.
        Returns the dump."""
        dump = self.dump(["%s-logs-%s" % (PREFIX, p) for p in PERIODS])
        for c in self.collectors:
            local = c.logs()
            assert local, "%s has no logs" % c.site
            stored = {(container.rsplit("-", 1)[1], name[len(c.site) + 1:-len(".log.gz")]): o
                      for container, objs in dump.items() for name, o in objs.items()
                      if name.startswith(c.site + "/")}
            assert set(stored) == set(local), (c.site, sorted(stored), sorted(local))
            for key, data in local.items():
                assert stored[key]["data"] == whole_lines(data), (c.site, key)
                assert stored[key]["headers"].get("Content-Encoding") == "gzip", stored[key]
        return dump

    def generate(self):
        """`generate` on the gen host; checks every bucket's and entry
        point's graph against the sum of both collectors' logs. Returns the
        sums {(period, name): samples}."""
        rc, out, err = run_svg(self.gen_ns, "generate", self.gen_config, self.gen_dir)
        assert rc == 0, (rc, out, err)
        expected, hosts = {}, {}
        for c in self.collectors:
            for key, data in c.logs().items():
                expected[key] = expected.get(key, 0) + sample_count(data)
                hosts.setdefault(key, []).append(c.site)
        index = json.loads((self.gen_dir / "index.json").read_text())
        entries = {(e["period"], e["name"]): e for e in index["logs"]}
        for (period, name), samples in expected.items():
            svgz = self.gen_dir / "svgs" / period / (name + ".svgz")
            assert svgz.exists(), (svgz, out)
            assert root_total(svgz) == samples, (period, name, root_total(svgz), samples)
            e = entries[(period, name)]
            assert e["samples"] == samples, e
            assert e["hosts"] == sorted(hosts[(period, name)]), e
        # traffic reached both collectors under the same names: merged
        both = [k for k, h in hosts.items() if len(h) == 2]
        assert any(k[1].endswith(".all") for k in both), sorted(hosts)
        for key in both:
            assert entries[key]["hosts"] == ["codfw", "eqiad"], entries[key]
        return expected, out


@pytest.fixture
def store_fleet(fleet_factory):
    # web2's samples go to tier3 (10.77.0.13), created below, before any load
    fleet = fleet_factory(hosts=2, transport="udp", udp_port=UDP_PORT, per_host={
        "web2": {"ini": {"excimer.arclamp_target": "udp://10.77.0.13:%d" % UDP_PORT}}})
    tier3 = fleet.topo.add_host("tier3", 13)
    codfw = ArclampLog(tier3, fleet.workdir / "tier3", redis=None, udp_port=UDP_PORT, unix=False)
    fleet.parts.append(codfw)          # stopped and its log shown by the fleet's teardown
    codfw.start()
    store = SwiftStore(fleet.topo.add_host("store", 20), fleet.workdir / "store")
    fleet.parts.append(store)
    store.start()
    gen_ns = fleet.topo.add_host("gen", 21)
    collectors = [Collector(fleet, fleet.topo["tier2"], fleet.arclamp, "web1", "eqiad"),
                  Collector(fleet, tier3, codfw, "web2", "codfw")]
    for c in collectors:
        c.write_configs(store)
    return StoreFleet(fleet, collectors, store, gen_ns)


# ---------------------------------------------------------------- the scenario

def test_fleet_publishes_to_the_store(store_fleet):
    """Two collectors publish, the generator draws the sum; a store down
    for a run loses nothing; retention on Swift (X-Delete-At) and S3 (a
    host's run removes its own old logs only)."""
    t0 = time.monotonic()
    phases = []                 # (what, seconds): the note in the results

    def phase(what):
        phases.append((what, time.monotonic() - t0 - sum(t for _, t in phases)))
    sf = store_fleet
    eqiad, codfw = sf.collectors

    # -- 1: both collectors publish; the generator draws from the store
    sf.traffic(REQUESTS)
    first = {}
    for c in sf.collectors:
        rc, out, err = c.publish()
        assert rc == 0, (c.site, rc, out, err)
        assert sent_count(out) == len(c.logs()), out
        first[c.site] = c.logs()
    dump = sf.check_store_holds_local_logs()
    # Swift retention: every log object expires, the original's three years ahead
    for objs in dump.values():
        for name, o in objs.items():
            delete_at = int(o["headers"]["X-Delete-At"])
            assert abs(delete_at - (time.time() + 1095 * 86400)) < 3600, (name, o["headers"])
    sums1, _ = sf.generate()
    phase("publish+generate")

    # -- 2: more traffic, the store down: publish fails, nothing is lost
    sf.traffic(REQUESTS)
    sf.store.stop()
    assert not sf.store.running()
    for c in sf.collectors:
        before = c.logs()
        rc, out, err = c.publish()
        assert rc == 1, (c.site, rc, out, err)
        assert "failed (sent again next run)" in out, out
        assert c.logs() == before, c.site            # local logs untouched
    sf.traffic(REQUESTS)
    sf.store.start()
    phase("store down")

    # -- 3: the store is back: every log that changed since the last
    # confirmed upload is sent, and the store equals the local logs
    for c in sf.collectors:
        now = c.logs()
        changed = [k for k, v in now.items() if first[c.site].get(k) != v]
        assert changed, c.site
        rc, out, err = c.publish()
        assert rc == 0, (c.site, rc, out, err)
        assert "failed" not in out, out
        assert sent_count(out) == len(changed), (c.site, out, changed)
    # the S3 copies now (final logs), so their retention runs while we check
    assert store_request(sf.gen_ns, sf.store, sf.fleet.workdir, "PUT", BUCKET) in (201, 202)
    s3_sent_at = time.time()
    for c in sf.collectors:
        rc, out, err = c.publish(s3=True)
        assert rc == 0, (c.site, rc, out, err)
        assert sent_count(out) == len(c.logs()), out
        assert "expired" not in out, out
    sf.check_store_holds_local_logs()
    sums3, _ = sf.generate()
    grown = [k for k in sums3 if sums3[k] > sums1.get(k, 0)]
    assert any(k[1].endswith(".all") for k in grown), (sums1, sums3)
    phase("store back")

    # -- 4: S3 retention: eqiad's run removes eqiad's logs once older than
    # retention_days, codfw's (as old) stay
    def s3_logs():
        keys = sf.dump([BUCKET], prefix=S3_PREFIX + "-logs-")[BUCKET]
        return {site: {k: o for k, o in keys.items() if k.split("/")[1] == site}
                for site in ("eqiad", "codfw")}
    before = s3_logs()
    for c in sf.collectors:
        assert len(before[c.site]) == len(c.logs()), (c.site, sorted(before[c.site]))
        for key, data in c.logs().items():
            o = before[c.site]["%s-logs-%s/%s/%s.log.gz" % (S3_PREFIX, key[0], c.site, key[1])]
            assert o["data"] == whole_lines(data), key
    runs, expired = [], []

    def all_expired():
        rc, out, err = eqiad.publish(s3=True)
        assert rc == 0, (rc, out, err)
        assert sent_count(out) == 0, out            # nothing changed: only the expiry
        runs.append(out)
        m = re.search(r"(\d+) expired", out)
        if m:
            expired.append((time.time(), int(m.group(1))))
        return sum(n for _, n in expired) >= len(before["eqiad"])
    # each try is a run of the job; the first ones are within the retention.
    # The uploads took a moment: their expiry may fall into two runs.
    wait_until(all_expired, timeout=RETENTION_WAIT, interval=1.0,
               what="eqiad's S3 logs expired", describe=lambda: runs[-3:])
    assert sum(n for _, n in expired) == len(before["eqiad"]), (expired, runs[-3:])
    # not before their time (the listing's last-modified is in whole seconds)
    assert expired[0][0] - s3_sent_at >= S3_RETENTION_DAYS * 86400 - 1.5, (expired, s3_sent_at)
    after = s3_logs()
    assert after["eqiad"] == {}, sorted(after["eqiad"])
    assert {k: o["data"] for k, o in after["codfw"].items()} == \
        {k: o["data"] for k, o in before["codfw"].items()}
    # collectors draw no graphs: they leave the index to the host that does
    assert not sf.dump([BUCKET], prefix=S3_PREFIX + "-index/")[BUCKET]
    phase("S3 retention (%d runs)" % len(runs))

    row = sf.record(t0, "%d+%d logs published, merged, store down once, S3 expiry" % (
        len(eqiad.logs()), len(codfw.logs())))
    assert row["lost"] == 0, row
    report.note("13 fleet and object store: " + ", ".join("%s %.1f s" % p for p in phases))

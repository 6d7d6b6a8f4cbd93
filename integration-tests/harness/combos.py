"""Scenario 11: every combination of the extension's modes in php-fpm.

The zero-code sampler (off, on) x hierarchical profiling (off, zero-code,
the xhprof, tideways_xhprof and uprofiler APIs) x request tiers (off, on,
switched off and on between requests) x opcache (off, on): 60
combinations, each a pool of one worker (pm static, one child) serving
all the combination's requests, so they are several requests of one
process, as php-excimer-sampler/tests/test_combinations.py runs them in
`php-cgi -T`.

What a php-fpm master decides at module start is per master: opcache
(loaded or not), the API module loaded after excimer, and
excimer.hprof_sample_rate (the observers are registered at module start
only when a module is loaded or the rate is above 0). So one master per
hierarchical mode and opcache setting: 10 masters. The sampler and tiers
are per pool (php_admin_value, applied in the worker before its first
request): 6 pools a master. Pools of one master share its opcache (so the
tier functions one pool patches in opcache's memory are patched for the
others too, as on a production host with several pools).

Each combination has its own entry point (public/combo-*.php, written at
test time, all including includes/combination.php): its samples go to its
own trace log, its runs to its own run log and its tier calls to its own
identity, so one arclamp-log tells the combinations apart.
"""

import itertools
import json
import os
import re
from dataclasses import dataclass

from .fpm import WebHost, run_client
from .procs import wait_until

SAMPLER = ("off", "on")
HIERARCHICAL = ("off", "zero-code", "xhprof", "tideways_xhprof", "uprofiler")
TIER_MODES = ("off", "on", "switched")
OPCACHE = ("off", "on")
API_MODULES = ("xhprof", "tideways_xhprof", "uprofiler")
REQUESTS = 3
WORK = 60               # the page view's work (index.php's default is 150)
TIERS = ("db=App\\Db\\Database::query, parser=App\\Parser\\Parser::parse, "
         "cache=App\\Core\\ObjectCache::get, re=preg_match")
TIER_NAMES = ("_total", "db", "parser", "cache", "re")
# includes/combination.php's extra work: eval'd squares, a Fiber, an
# exception unwound through 6 frames
EXTRA = 2870 + 42 + 6 + 7


@dataclass(frozen=True)
class Combination:
    sampler: str
    hierarchical: str
    tiers: str
    opcache: str

    @property
    def tag(self):
        """Its entry point's name: the tag of its trace and run logs and its
        tier identity."""
        h = "zero" if self.hierarchical == "zero-code" else self.hierarchical
        return "combo-s%s-h%s-t%s-o%s" % (self.sampler, h, self.tiers, self.opcache)

    @property
    def pool(self):
        return "s%s-t%s" % (self.sampler, self.tiers)

    @property
    def master(self):
        return (self.hierarchical, self.opcache)

    @property
    def api(self):
        return self.hierarchical if self.hierarchical in API_MODULES else None

    @property
    def traced(self):
        """Requests whose tier calls must arrive: the second request of a
        switched one runs while the switch file says off."""
        return {"off": 0, "on": REQUESTS, "switched": REQUESTS - 1}[self.tiers]

    def config(self):
        """What includes/combination.php must find the worker running with."""
        return {"sampler": self.sampler == "on",
                "hprof_sample_rate": "1" if self.hierarchical == "zero-code" else "0",
                "modules": [self.api] if self.api else [],
                "tiers": self.tiers != "off", "tiers_control": self.tiers == "switched",
                "opcache": self.opcache == "on"}

    def url(self):
        return "/%s.php?title=Combination&work=%d%s" % (
            self.tag, WORK, "&api=" + self.api if self.api else "")


COMBINATIONS = [Combination(*c) for c in itertools.product(SAMPLER, HIERARCHICAL, TIER_MODES, OPCACHE)]


def write_entry_points(app):
    """The app_setup of the scenario: public/<tag>.php for every combination."""
    for c in COMBINATIONS:
        with open(os.path.join(app, "public", c.tag + ".php"), "w") as f:
            f.write("<?php\n// %s (scenario 11)\nrequire __DIR__ . '/../includes/combination.php';\n"
                    % c)


class ComboMaster(WebHost):
    """One php-fpm master of the scenario: its hierarchical mode and opcache
    are the master's, each of its combinations a pool of one worker with the
    sampler and tiers in php_admin_value. Samples, runs and tier lines go to
    Redis pub/sub (channels excimer, xhprof, tiers), the fleet's transport."""

    def __init__(self, ns, workdir, app_dir, hierarchical, opcache, redis, control, period,
                 timeout):
        self.hierarchical = hierarchical
        self.combos = [c for c in COMBINATIONS if c.master == (hierarchical, opcache)]
        self.redis = redis
        self.control = str(control)
        h = "zero" if hierarchical == "zero-code" else hierarchical
        ini = {"excimer.hprof_sample_rate": "1" if hierarchical == "zero-code" else "0",
               "excimer.hprof_target": redis.url("xhprof"),
               "excimer.tiers_target": redis.url("tiers")}
        super().__init__(ns, workdir, app_dir, target="", children=1, period=period,
                         event_type="cpu", timeout=timeout, ini=ini,
                         name="%s-h%s-o%s" % (ns.host, h, opcache),
                         modules=(hierarchical,) if hierarchical in API_MODULES else (),
                         fpm_conf=self._conf, opcache=opcache == "on")

    def pool_socket(self, combo):
        return str(self.dir / (combo.pool + ".sock"))

    def _conf(self, web):
        out = ["""[global]
pid = {d}/fpm.pid
error_log = {d}/fpm.log
daemonize = no
log_level = debug
""".format(d=self.dir)]
        for c in self.combos:
            admin = {}
            if c.sampler == "on":
                admin["excimer.arclamp_target"] = self.redis.url("excimer")
            if c.tiers != "off":
                admin["excimer.tiers"] = TIERS
            if c.tiers == "switched":
                admin["excimer.tiers_control"] = self.control
            out.append("""
[{pool}]
user = root
group = root
listen = {sock}
listen.mode = 0600
pm = static
pm.max_children = 1
catch_workers_output = yes
decorate_workers_output = no
clear_env = yes
security.limit_extensions = .php
request_terminate_timeout = 60
""".format(pool=c.pool, sock=self.pool_socket(c)) + "".join(
                'php_admin_value[%s] = "%s"\n' % kv for kv in admin.items()))
        return "".join(out)

    def launch(self):
        self.proc.start()
        return self

    def wait_ready(self):
        sockets = [self.pool_socket(c) for c in self.combos]
        wait_until(lambda: all(os.path.exists(s) for s in sockets) or self._check_alive(),
                   what="the pools' sockets of " + self.host)
        self.proc.wait_log("ready to handle connections")
        text = self.proc.log_text()
        if "PHP:" in text or "PHP Warning" in text or "PHP Fatal" in text:
            raise AssertionError("php-fpm %s complained at start:\n%s" % (self.host, text[-3000:]))
        return self

    def start(self):
        return self.launch().wait_ready()

    def worker_stats(self, *args, **kw):
        raise NotImplementedError("a master of pools: see combos.settled_stats()")

    def children_log(self):
        """{pool: [(pid, what)]} of php-fpm's log (its stderr: -F -O): every
        worker started ("started" is logged at log_level debug) and every one
        that exited, on a signal or with a status."""
        out = {}
        text = self.proc.log_text()
        for m in re.finditer(r"\[pool ([^\]]+)\] child (\d+) (started|exited[^\n]*)", text):
            out.setdefault(m.group(1), []).append((int(m.group(2)), m.group(3)))
        return out


def start_masters(fleet, web, control, period, timeout):
    """The 10 masters in web's namespace, serving web's application, each
    registered in fleet.web (teardown, diagnostics); started together."""
    masters = {}
    for h in HIERARCHICAL:
        for o in OPCACHE:
            m = ComboMaster(web.ns, fleet.workdir, web.app_dir, h, o, fleet.redis, control,
                            period=period, timeout=timeout)
            fleet.web[m.host] = m
            masters[(h, o)] = m
    for m in masters.values():
        m.launch()
    for m in masters.values():
        m.wait_ready()
    return masters


def batch(web, requests, concurrency=2, timeout=30.0):
    """harness.fcgi batch inside web's namespace: requests of one socket in
    order, sockets in parallel. Returns the results in the order given."""
    spec = {"requests": requests, "concurrency": concurrency, "timeout": timeout}
    res = run_client(web.ns, web.dir, "batch", spec, timeout=len(requests) * timeout + 30)
    return res["requests"]


def request_of(masters, combo, url, params=None):
    m = masters[combo.master]
    return {"id": combo.tag, "socket": m.pool_socket(combo), "docroot": m.docroot, "url": url,
            "params": params or {}}


# The stats requests leave request tiers off (excimer.tiers empty), so that
# they add no tier calls of their own: the accounting of lines stays exact.
# PHP_ADMIN_VALUE stays in the worker for its later requests, so this comes
# after the combinations' requests, never between them.
STATS_PARAMS = {"PHP_ADMIN_VALUE": 'excimer.tiers=""'}


def settled_stats(web, masters, timeout=30.0):
    """{combo: stats.php's answer} once every worker has sent what it holds:
    nothing queued for its sender, no tier aggregates held (a worker idle
    for 0.5 s hands them to its sender)."""
    last = {}

    def settled():
        res = batch(web, [request_of(masters, c, "/admin/stats.php", STATS_PARAMS)
                          for c in COMBINATIONS])
        bad = [r for r in res if r.get("error")]
        assert not bad, bad[:3]
        for c, r in zip(COMBINATIONS, res):
            last[c] = json.loads(r["body"])
        return all(a["stats"]["queued"] == 0 and a["tiers_held"] == 0 for a in last.values())
    wait_until(settled, timeout=timeout, what="every worker's samples, runs and tier lines sent",
               describe=lambda: {c.tag: (a["stats"]["queued"], a["tiers_held"])
                                 for c, a in last.items()
                                 if a["stats"]["queued"] or a["tiers_held"]})
    return dict(last)


def tier_tables(files_root, group):
    """{identity: {tier: calls}} and the status totals (requests, traced)
    summed over every bucket's <bucket>.tiers.json of a group."""
    ids, status = {}, {"requests": 0, "traced": 0, "trips": 0}
    gdir = os.path.join(str(files_root), group)
    for name in sorted(os.listdir(gdir)) if os.path.isdir(gdir) else []:
        if not name.endswith(".tiers.json"):
            continue
        with open(os.path.join(gdir, name)) as f:
            table = json.load(f)
        for k in status:
            status[k] += table[k]
        for identity, tiers in table["identities"].items():
            for tier, v in tiers.items():
                ids.setdefault(identity, {})
                ids[identity][tier] = ids[identity].get(tier, 0) + v["calls"]
    return ids, status

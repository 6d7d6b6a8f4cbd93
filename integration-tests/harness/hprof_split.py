"""The hierarchical-profiling split of one web host, from the files the
php-excimer-sampler package ships: the second, profiled PHP-FPM
(php-excimer-sampler/hprof-fpm/: php-fpm.conf, pool.d/www.conf, conf.d/,
which arclamp-hprof-fpm.service runs) next to the host's main php-fpm, and
Debian's nginx in front of both with the split_clients snippet
(nginx/arclamp-hprof-split.conf).

The shipped files are used as they are but for the paths and names only a
test can change (sockets, log files, the pool's user: the harness runs
php-fpm as root in a namespace) and the share of requests; every
replacement must find its text, so a shipped file that changes under the
test fails it instead of being tested half.
"""

import os
import re
from pathlib import Path

from .fpm import WebHost, api_module_so, run_client
from .procs import Proc, tail, wait_until

REPO = Path(__file__).resolve().parents[2]
SHIPPED_FPM = REPO / "php-excimer-sampler" / "hprof-fpm"
SHIPPED_SNIPPET = REPO / "nginx" / "arclamp-hprof-split.conf"
NGINX = "/usr/sbin/nginx"
NGINX_ETC = Path("/etc/nginx")
# The paths the shipped files name.
MAIN_SOCKET = "/run/php/php8.2-fpm.sock"
HPROF_SOCKET = "/run/arclamp-hprof-fpm/php-fpm.sock"
HPROF_ETC = "/etc/php/8.2/arclamp-hprof-fpm"


def replace_all(text, pairs, what, lines=False):
    """text with each (old, new) replaced; old must occur. lines: old and
    new are whole lines ("group = x" is not "listen.group = x")."""
    for old, new in pairs:
        pattern = re.compile(("^%s$" if lines else "%s") % re.escape(old), re.M)
        if not pattern.search(text):
            raise AssertionError("%s no longer contains %r: update the test with it" % (what, old))
        text = pattern.sub(new.replace("\\", "\\\\"), text)
    return text


def shipped_pool_children():
    """pm.max_children of the shipped pool (pm = static: its worker count)."""
    text = (SHIPPED_FPM / "pool.d" / "www.conf").read_text()
    assert re.search(r"^pm = static$", text, re.M), "the shipped pool is no longer pm = static"
    return int(re.search(r"^pm\.max_children = (\d+)$", text, re.M).group(1))


def hprof_fpm_conf(web):
    """php-fpm.conf and pool.d/www.conf as shipped, with the test's log file,
    socket and user (WebHost's fpm_conf callable)."""
    pool_dir = web.dir / "pool.d"
    pool_dir.mkdir(exist_ok=True)
    pool = replace_all((SHIPPED_FPM / "pool.d" / "www.conf").read_text(), [
        ("user = www-data", "user = root"), ("group = www-data", "group = root"),
        ("listen = " + HPROF_SOCKET, "listen = " + web.socket),
        ("listen.owner = www-data", "listen.owner = root"),
        ("listen.group = www-data", "listen.group = root"),
    ], "pool.d/www.conf", lines=True)
    (pool_dir / "www.conf").write_text(pool)
    return replace_all((SHIPPED_FPM / "php-fpm.conf").read_text(), [
        ("error_log = syslog", "error_log = %s/fpm.log" % web.dir),
        ("include = %s/pool.d/*.conf" % HPROF_ETC, "include = %s/*.conf" % pool_dir),
    ], "php-fpm.conf", lines=True)


def hprof_conf_d(dest, module=None):
    """The shipped conf.d/ in dest; `module` (xhprof, ...) enabled as an
    administrator would, by its commented line, from the build."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for src in sorted((SHIPPED_FPM / "conf.d").iterdir()):
        text = src.read_text()
        if module is not None:
            text = replace_all(text, [(";extension = %s.so" % module,
                                       "extension = %s" % api_module_so(module))], src.name,
                                   lines=True)
        (dest / src.name).write_text(text)
    return dest


def start_hprof_instance(fleet, main, module=None):
    """The profiled twin of WebHost `main`: another php-fpm master serving
    the same application with main's INI settings plus the shipped conf.d/,
    its php-fpm.conf and pool as shipped. Registered in fleet.web (stats,
    teardown) as "<host>-hprof"."""
    name = main.host + "-hprof"
    scan = hprof_conf_d(Path(fleet.workdir) / name / "conf.d", module)
    ini = {k: v for k, v in main.ini.items() if k != "error_log"}
    web = WebHost(main.ns, fleet.workdir, main.app_dir, main.target, children=shipped_pool_children(),
                  period=main.period, event_type=main.event_type, timeout=main.timeout, ini=ini,
                  name=name, fpm_conf=hprof_fpm_conf, scan_dir=scan)
    fleet.web[name] = web
    return web.start()


class Nginx:
    """Debian's nginx in a web host's namespace, on 127.0.0.1:port there,
    serving the application of `main` with the shipped split snippet
    (1 request in `every` to `hprof`'s socket, the rest to `main`'s) and a
    typical PHP location (Debian's snippets/fastcgi-php.conf; PATH_INFO
    allowed, for rest.php). Its access log says where each request went
    (upstreams())."""

    def __init__(self, ns, workdir, main, hprof, every, port=8080):
        self.ns = ns
        self.dir = Path(workdir) / (ns.host + "-nginx")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.main, self.hprof = main, hprof
        self.addr = "127.0.0.1:%d" % port
        self.access_log = self.dir / "access.log"
        # includes are relative to the directory of nginx.conf
        for name in ("snippets", "fastcgi.conf"):
            link = self.dir / name
            if not link.exists():
                link.symlink_to(NGINX_ETC / name)
        percent = 100.0 / every
        snippet = replace_all(SHIPPED_SNIPPET.read_text(), [
            ("unix:" + MAIN_SOCKET + ";", "unix:" + main.socket + ";"),
            ("unix:" + MAIN_SOCKET + " backup;", "unix:" + main.socket + " backup;"),
            ("unix:" + HPROF_SOCKET + ";", "unix:" + hprof.socket + ";"),
            ("    0.1%    arclamp_php_hprof;", "    %s%%    arclamp_php_hprof;" % format(percent, ".2f")),
        ], "nginx/arclamp-hprof-split.conf")
        (self.dir / "arclamp-hprof-split.conf").write_text(snippet)
        d = self.dir
        (d / "nginx.conf").write_text("""# Written by integration-tests/harness/hprof_split.py
user root;
daemon off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log notice;
events {{ worker_connections 256; }}
http {{
    log_format split '$request_id $arclamp_php_backend $upstream_addr $status "$request_uri"';
    access_log {d}/access.log split;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    include arclamp-hprof-split.conf;
    server {{
        listen {addr};
        root {root};
        location ~ \\.php(/|$) {{
            include snippets/fastcgi-php.conf;
            fastcgi_pass $arclamp_php_backend;
        }}
    }}
}}
""".format(d=d, addr=self.addr, root=main.docroot))
        self.argv = [NGINX, "-e", str(d / "error.log"), "-c", str(d / "nginx.conf")]
        self.proc = Proc(ns, "nginx@" + ns.host, self.argv, d / "nginx.stderr")

    def check_config(self):
        """`nginx -t` on the configuration; returns its output."""
        cp = self.ns.run(self.argv + ["-t"], check=False, timeout=30)
        out = (cp.stdout + cp.stderr).decode("utf-8", "replace")
        assert cp.returncode == 0 and "syntax is ok" in out, out
        return out

    def start(self):
        self.check_config()
        self.proc.start()
        wait_until(lambda: (self.dir / "nginx.pid").exists() or self._dead(), what="nginx to start")
        return self

    def _dead(self):
        if not self.proc.alive():
            raise AssertionError("nginx exited:\n%s\n%s" % (tail(self.proc.log), tail(self.dir / "error.log")))
        return False

    def load(self, urls, count, concurrency=2, duration=120.0, timeout=10.0):
        """GETs through nginx, from inside the namespace (harness.fcgi's load)."""
        spec = {"http": self.addr, "urls": list(urls), "count": count, "duration": duration,
                "concurrency": concurrency, "timeout": timeout}
        return run_client(self.ns, self.dir, "load", spec, timeout=duration + timeout + 30)

    def upstreams(self):
        """[(request_id, upstream group chosen by the split, [addresses tried],
        status, uri)] from the access log."""
        out = []
        for line in self.access_log.read_text().splitlines():
            rid, group, rest = line.split(" ", 2)
            ups, status, uri = re.fullmatch(r'(.*) (\d{3}) "(.*)"', rest).groups()
            out.append((rid, group, [u.strip() for u in ups.split(",")], int(status), uri))
        return out

    def stop(self):
        return self.proc.stop(sig=3)

    def close(self):
        if self.proc.alive():
            try:
                self.stop()
            except AssertionError:
                pass

    def diagnostics(self, limit=3000):
        return [("nginx " + name, tail(self.dir / name, limit))
                for name in ("error.log", "access.log", "nginx.stderr")
                if (self.dir / name).exists() and os.path.getsize(str(self.dir / name))]

"""Debian's MediaWiki 1.39 as a test application, installed into build/.

`ensure()` installs the code of /usr/share/mediawiki (Debian's package, never
changed) as a wiki of its own under build/apps/mediawiki/: a SQLite database,
the installer's settings (maintenance/install.php) and ours on top, the pages
of apps/mediawiki/pages/ plus a long generated article, imported with
maintenance/importDump.php, the localisation cache built once, and each URL
viewed once (what MediaWiki makes on first use is made then). Nothing
is written to /etc/mediawiki or /var/lib/mediawiki: MediaWiki finds its
settings through MW_CONFIG_FILE (an environment variable for php-cgi, the
pool's env[] for php-fpm), so the entry points run from /usr/share/mediawiki
as the package ships them.

The install is cached: `.complete` holds a fingerprint of everything that
went into it (this file, the pages, the MediaWiki and PHP versions); when it
matches, `ensure()` only reads that file. Otherwise the directory is removed
and made again, under a lock (two test runs at once wait for each other).

Settings on top of the installer's (LocalSettings.php), so that every view
does the whole work and a view writes nothing:
  - parser cache, main cache, message cache and main stash off (CACHE_NONE):
    every view parses its page again, and none writes to the SQLite files
    (two php-fpm workers would otherwise take turns at their locks);
  - no jobs run at the end of requests ($wgJobRunRate = 0);
  - the localisation cache built at install and never rebuilt by a request
    (manualRecache);
  - $wgRequestTimeLimit unset (MediaWiki starts no ExcimerTimer of its own);
  - ParserFunctions and Cite, which the pages' templates and references use.

PHP runs with `-n -c INI` only (see `write_ini`): the modules MediaWiki needs
are named there, so nothing a Debian package enabled system-wide (php-intl,
php-apcu, ...) reaches a test.

Usage as a program: `apps/mediawiki-fixture [--check] [--dir DIR]`.
"""

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from harness import fcgi
from harness.fpm import ini_value

from . import REPO_ROOT

MW_SRC = Path("/usr/share/mediawiki")
PHP_CLI = "/usr/bin/php8.2"
PHP_CGI = "/usr/bin/php-cgi8.2"
PHP_FPM = "/usr/sbin/php-fpm8.2"
PAGES_DIR = REPO_ROOT / "apps" / "mediawiki" / "pages"
DEFAULT_DIR = REPO_ROOT / "build" / "apps" / "mediawiki"

# Bumped when what an install holds changes in a way the fingerprint cannot
# see (it already covers this file and the pages).
FIXTURE_VERSION = 1

# PHP modules MediaWiki 1.39 needs with SQLite (Debian builds them shared);
# json, pcre, hash, session... are built in.
MW_PHP_MODULES = ["ctype", "dom", "fileinfo", "iconv", "intl", "mbstring", "xml", "simplexml",
                  "xmlreader", "xmlwriter", "pdo", "pdo_sqlite", "sqlite3", "tokenizer"]

SERVER = "http://wiki.test"
HOST = "wiki.test"
ADMIN, ADMIN_PASSWORD = "Admin", "Arclamp-fixture-pw-1"

# The URLs the drivers request, by entry point, and a text each response must
# hold: the page's own words (index, api) or ResourceLoader's (load).
URLS = {
    "index": "/index.php?title=Arc_lamp",
    "index_short": "/index.php?title=Carbon_electrode",
    "api": "/api.php?action=parse&page=Searchlight&format=json&formatversion=2&prop=text",
    "load": "/load.php?lang=en&modules=startup&only=scripts&raw=1&skin=vector",
}
EXPECT = {
    "index": "The arc lamp of section 40",
    "index_short": "A regulator is a small",
    "api": "the beam's reach depends",
    "load": "mw.loader.addSource",
}


# --- the long article ----------------------------------------------------

_SUBJECTS = ["the carbon arc", "the regulator", "the open arc", "the enclosed arc",
             "the flame arc", "the searchlight", "the street lamp", "the projector"]
_VERBS = ["needed", "replaced", "outshone", "fed", "steadied", "shortened", "cooled", "lit"]
_OBJECTS = ["the electrodes", "a city square", "the lighthouse", "the theatre stage",
            "the factory floor", "the film studio", "the harbour", "the railway yard"]
_LINKS = ["Carbon electrode", "Searchlight", "Yablochkov candle", "Incandescent lamp",
          "Mercury-vapour lamp", "Filament", "Nernst lamp", "Sodium lamp"]


def long_article(sections=40, rows=80):
    """The wikitext of "Arc lamp": sections of linked prose with references,
    lists, a table of template rows and nested templates; made the same
    every time (no randomness), about 60 KB."""
    out = ["{{Infobox device|name=Arc lamp|type=Electric light|inventor=Humphry Davy|"
           "year=1808|power=5000|electrodes=carbon}}",
           "An '''arc lamp''' makes light with an electric arc between two electrodes. "
           "This article is the fixture's long page: every view parses all of it.", ""]
    for s in range(1, sections + 1):
        out.append("== Section %d ==" % s)
        for p in range(3):
            i = s * 7 + p
            sentence = ("In period %d, %s %s %s, as [[%s]] describes; "
                        "'''%d''' lamps were counted.<ref>Count %d.%d of the survey.</ref>"
                        % (s, _SUBJECTS[i % 8], _VERBS[(i // 3) % 8], _OBJECTS[(i // 5) % 8],
                           _LINKS[i % 8], 100 + 13 * i, s, p))
            out.append(sentence + " " + sentence.replace("In period", "After period"))
            out.append("")
        if s % 5 == 0:
            out.append("=== Where it was used ===")
            out += ["* [[%s]] in %s" % (_LINKS[(s + k) % 8], _OBJECTS[(s + k) % 8])
                    for k in range(6)]
            out.append("")
        if s % 10 == 0:
            out.append("{{Note|the figures of section %d are estimates.}}" % s)
        out.append("The arc lamp of section %d ends here." % s)
        out.append("")
    out.append("== Timeline ==")
    out.append('{| class="wikitable sortable"')
    out.append("! Year !! Event !! Era !! Lumens")
    for r in range(rows):
        out.append("{{Year row|year=%d|event=[[%s]] improved (%d)|lumens=%d}}"
                   % (1808 + r * 2, _LINKS[r % 8], r, 400 + 37 * r))
    out.append("|}")
    out += ["", "== Notes ==", "<references/>", "", "{{Navbox lighting}}",
            "[[Category:Lighting]]"]
    return "\n".join(out) + "\n"


def pages():
    """[(title, wikitext)] of the wiki: the files of apps/mediawiki/pages
    (file name = title, '_' for spaces) and the long article."""
    out = []
    for f in sorted(PAGES_DIR.glob("*.wiki")):
        out.append((f.name[:-len(".wiki")].replace("_", " "), f.read_text()))
    out.append(("Arc lamp", long_article()))
    return out


def _xml_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def dump_xml(page_list):
    """An XML dump (export format 0.11) of the pages, for importDump.php."""
    out = ['<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" '
           'xml:lang="en">']
    for title, text in page_list:
        out.append("<page><title>%s</title><revision><timestamp>2026-01-01T00:00:00Z"
                   "</timestamp><contributor><username>%s</username></contributor>"
                   "<model>wikitext</model><format>text/x-wiki</format>"
                   '<text xml:space="preserve">%s</text></revision></page>'
                   % (_xml_escape(title), ADMIN, _xml_escape(text)))
    out.append("</mediawiki>")
    return "\n".join(out) + "\n"


# --- PHP ini ------------------------------------------------------------

def ini_text(error_log, opcache=False, extensions=(), settings=None):
    """The whole ini of a test's PHP (used with -n -c): MediaWiki's modules,
    opcache when asked (php-cgi and php-fpm read opcache.enable; the CLI
    opcache.enable_cli), `extensions` (paths of more modules, loaded in this
    order after MediaWiki's, e.g. build/php/excimer.so), then `settings`."""
    lines = ["; written by apps/appkit/mediawiki.py", "display_errors = 0", "log_errors = 1",
             "error_log = " + ini_value(error_log), "memory_limit = 512M",
             "max_execution_time = 120", "date.timezone = UTC", "cgi.force_redirect = 0",
             "expose_php = 1"]
    lines += ["extension = %s" % m for m in MW_PHP_MODULES]
    if opcache:
        lines += ["zend_extension = opcache", "opcache.enable = 1", "opcache.enable_cli = 1",
                  "opcache.memory_consumption = 256", "opcache.max_accelerated_files = 20000",
                  "opcache.validate_timestamps = 0"]
    lines += ["extension = %s" % ini_value(e) for e in extensions]
    for k, v in (settings or {}).items():
        lines.append("%s = %s" % (k, ini_value(v)))
    return "\n".join(lines) + "\n"


def write_ini(path, error_log, **kw):
    Path(path).write_text(ini_text(error_log, **kw))
    return str(path)


# --- the install --------------------------------------------------------

def _package_version(name):
    cp = subprocess.run(["dpkg-query", "-W", "-f=${Version}", name], stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True)
    return cp.stdout.strip() if cp.returncode == 0 else None


def fingerprint():
    """What an install depends on: a change of any of it makes a new one."""
    h = hashlib.sha256()
    h.update(Path(__file__).read_bytes())
    for f in sorted(PAGES_DIR.glob("*.wiki")):
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return {"fixture": FIXTURE_VERSION, "sources": h.hexdigest()[:16],
            "mediawiki": _package_version("mediawiki"), "php": _package_version("php8.2-cli")}


class Wiki:
    """A completed install: where its settings and data are, and how to
    reach it (the CGI variables of a request)."""

    def __init__(self, root):
        self.root = Path(root)
        self.settings = self.root / "LocalSettings.php"
        self.data = self.root / "data"
        self.docroot = str(MW_SRC)

    def env(self):
        """What MediaWiki itself needs of a request's environment."""
        return {"MW_CONFIG_FILE": str(self.settings)}

    def cgi_params(self, url, extra=None):
        """The CGI variables of a GET of url ('/index.php?title=X'), as a web
        server hands them to php-cgi (environment) or php-fpm (params)."""
        p = fcgi.cgi_params(self.docroot, url, {"SERVER_NAME": HOST, "HTTP_HOST": HOST,
                                           "REMOTE_ADDR": "127.0.0.1",
                                           "SERVER_SOFTWARE": "arclamp-apps"})
        p.update(self.env())
        p.update(extra or {})
        return p


def _run_php(argv, wiki_root, ini, log, timeout=600):
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
           "MW_CONFIG_FILE": str(Path(wiki_root) / "LocalSettings.php")}
    with open(log, "ab") as out:
        out.write(("\n$ %s\n" % " ".join(argv)).encode())
        out.flush()
        cp = subprocess.run([PHP_CLI, "-n", "-c", ini] + argv, cwd=str(MW_SRC), env=env,
                            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                            timeout=timeout)
    if cp.returncode != 0:
        tail = Path(log).read_text(errors="replace")[-3000:]
        raise RuntimeError("%s: exit %d (log %s):\n%s" % (argv[0], cp.returncode, log, tail))


OVERRIDES = """<?php
// Written by apps/appkit/mediawiki.py: the installer's settings, then the
// test fixture's (see that file's head for why each).
require __DIR__ . '/LocalSettings.install.php';

$wgParserCacheType = CACHE_NONE;
$wgMainCacheType = CACHE_NONE;
$wgMessageCacheType = CACHE_NONE;
$wgMainStash = CACHE_NONE;
$wgJobRunRate = 0;
$wgRequestTimeLimit = null;
$wgLocalisationCacheConf['manualRecache'] = true;
$wgUseImageMagick = false;
$wgEnableUploads = false;
$wgUploadDirectory = __DIR__ . '/images';
$wgCacheDirectory = false;
$wgShowExceptionDetails = true;
$wgDebugLogFile = '';
$wgPingback = false;
$wgEnableEmail = false;

wfLoadExtension( 'ParserFunctions' );
wfLoadExtension( 'Cite' );
"""


def _install(root, log):
    root.mkdir(parents=True)
    (root / "data").mkdir()
    (root / "images").mkdir()
    ini = write_ini(root / "cli.ini", error_log=str(root / "php-errors.log"))
    _run_php([str(MW_SRC / "maintenance/install.php"), "--dbtype", "sqlite",
              "--dbpath", str(root / "data"), "--dbname", "wiki", "--confpath", str(root),
              "--server", SERVER, "--scriptpath", "", "--lang", "en", "--skins", "Vector",
              "--pass", ADMIN_PASSWORD, "ArcLampTestWiki", ADMIN], root, ini, log)
    os.replace(str(root / "LocalSettings.php"), str(root / "LocalSettings.install.php"))
    (root / "LocalSettings.php").write_text(OVERRIDES)
    # Before anything that shows a message: with manualRecache nothing else
    # builds it.
    _run_php([str(MW_SRC / "maintenance/rebuildLocalisationCache.php"), "--lang", "en",
              "--force"], root, ini, log)
    (root / "pages.xml").write_text(dump_xml(pages()))
    _run_php([str(MW_SRC / "maintenance/importDump.php"), str(root / "pages.xml")], root, ini, log)
    # importDump leaves the links tables to jobs; the category page lists its
    # members from them.
    _run_php([str(MW_SRC / "maintenance/refreshLinks.php")], root, ini, log)
    _warm_up(root, log)


def _warm_up(root, log):
    """One view of every URL, so that what MediaWiki makes on first use (the
    object cache's table in wikicache.sqlite) is made now: the tests' views
    then write nothing. A view that fails fails the install."""
    from . import phpcgi  # here: phpcgi imports this module
    ini = write_ini(root / "web.ini", error_log=str(root / "php-errors.log"))
    for name, url in URLS.items():
        run = phpcgi.run(Wiki(root), ini, url, 1)
        ok = (run.returncode == 0 and len(run.responses) == 1
              and run.responses[0].status == 200 and EXPECT[name] in run.responses[0].text())
        with open(log, "a") as f:
            f.write("warm-up view %s: %s\n" % (url, "ok" if ok else run.describe()))
        if not ok:
            raise RuntimeError("warm-up view of %s failed: %s" % (url, run.describe()))


def check(root=DEFAULT_DIR):
    """The Wiki when a complete install of this fingerprint is at root, else None."""
    root = Path(root)
    try:
        done = json.loads((root / ".complete").read_text())
    except (OSError, ValueError):
        return None
    if done.get("fingerprint") != fingerprint():
        return None
    if not (root / "LocalSettings.php").is_file() or not (root / "data" / "wiki.sqlite").is_file():
        return None
    return Wiki(root)


def ensure(root=DEFAULT_DIR, log=None):
    """The Wiki at root, installed first unless a complete install of the same
    fingerprint is there. Returns (wiki, seconds spent installing or 0)."""
    root = Path(root)
    wiki = check(root)
    if wiki is not None:
        return wiki, 0.0
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(str(root) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        wiki = check(root)          # another run may have made it meanwhile
        if wiki is not None:
            return wiki, 0.0
        t0 = time.monotonic()
        if root.exists():
            shutil.rmtree(str(root))
        log = log or str(root) + ".install.log"
        Path(log).write_text("")
        _install(root, log)
        (root / ".complete").write_text(json.dumps({"fingerprint": fingerprint(),
                                                    "installed": time.time()}) + "\n")
        return Wiki(root), time.monotonic() - t0

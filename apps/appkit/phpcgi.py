"""N requests of one URL in ONE php-cgi process: `php-cgi -n -c INI -T N`.

php-cgi's benchmark mode runs the script N times in one process, each a whole
request (startup, the script, shutdown): what a module keeps between requests
is exercised as in a php-fpm worker, without FastCGI. The request comes from
the environment, as a web server would give it (SCRIPT_FILENAME, REQUEST_URI,
QUERY_STRING, ...: Wiki.cgi_params). The responses are written one after the
other to stdout, each with its CGI headers; `parse_responses` splits them.
"""

import re
import resource
import signal
import subprocess
import time
from pathlib import Path

from .mediawiki import PHP_CGI, MW_SRC

class Response:
    def __init__(self, status, headers, body):
        self.status = status          # int: the Status header, 200 without one
        self.headers = headers        # {lower-case name: value}
        self.body = body              # bytes

    def text(self):
        return self.body.decode("utf-8", "replace")

_START = b"X-Powered-By: PHP/"   # the first header of every response (expose_php = 1)

def _headers(block):
    headers = {}
    for line in block.split(b"\r\n"):
        k, _, v = line.partition(b":")
        if k:
            headers[k.strip().lower().decode("latin-1")] = v.strip().decode("latin-1")
    return headers

def parse_responses(out):
    """The responses of php-cgi's stdout, in order. A body is Content-Length
    bytes when the header is there (MediaWiki sends it), else it runs to the
    next response's first header."""
    res, pos = [], 0
    while pos < len(out):
        if not out.startswith(_START, pos):
            raise ValueError("no response at byte %d: %r" % (pos, out[pos:pos + 200]))
        end = out.find(b"\r\n\r\n", pos)
        if end < 0:
            raise ValueError("headers without their end at byte %d" % pos)
        headers = _headers(out[pos:end])
        body_start = end + 4
        if "content-length" in headers:
            body_end = body_start + int(headers["content-length"])
        else:
            nxt = out.find(b"\r\n" + _START, body_start)
            body_end = len(out) if nxt < 0 else nxt + 2
        status = int(headers.get("status", "200").split()[0])
        res.append(Response(status, headers, out[body_start:body_end]))
        pos = body_end
    return res

class CgiRun:
    """What one php-cgi -T process did."""

    def __init__(self, argv, returncode, responses, stderr, elapsed, cpu, parse_error=None):
        self.argv = argv
        self.returncode = returncode      # negative: killed by that signal
        self.responses = responses
        self.stderr = stderr              # str
        self.elapsed = elapsed            # s, wall
        # s of CPU (user + system) of php-cgi and its threads: the rusage of
        # this process's children over the call, so only when no other child
        # of this process was reaped meanwhile (the benchmark's case)
        self.cpu = cpu
        self.parse_error = parse_error

    def describe(self):
        sig = ""
        if self.returncode < 0:
            sig = " (signal %s)" % signal.Signals(-self.returncode).name
        return "php-cgi exit %d%s, %d responses in %.1f s; stderr: %s" % (
            self.returncode, sig, len(self.responses), self.elapsed, self.stderr[-1500:])

def run(wiki, ini, url, n, env=None, timeout=None):
    """`php-cgi -n -c ini -T n` for a GET of url on the wiki; never raises for
    what PHP did (the test looks at CgiRun)."""
    params = wiki.cgi_params(url)
    script = params["SCRIPT_FILENAME"]
    e = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "REDIRECT_STATUS": "200"}
    e.update(params)
    e.update(env or {})
    argv = [PHP_CGI, "-n", "-c", str(ini), "-T", str(int(n)), script]
    t0 = time.monotonic()
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    # A bound only against a hang: 60 s a request is far beyond a page view on
    # a loaded 2-core machine.
    cp = subprocess.run(argv, cwd=str(MW_SRC), env=e, stdin=subprocess.DEVNULL,
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        timeout=timeout or 60 * n + 60)
    elapsed = time.monotonic() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    try:
        responses, err = parse_responses(cp.stdout), None
    except ValueError as exc:
        responses, err = [], str(exc)
    return CgiRun(argv, cp.returncode, responses, cp.stderr.decode("utf-8", "replace"),
                  elapsed, cpu, err)

def php_errors(path):
    """The PHP error log's lines that are errors (fatal, warning, exception)
    or the extension's complaints (`excimer: ...`, e.g. a transport failing),
    not notices or deprecations."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return []
    bad = re.compile(r"PHP (Fatal|Warning|Parse|Recoverable)|Uncaught|exception|excimer:", re.I)
    return [line for line in text.splitlines() if bad.search(line)]

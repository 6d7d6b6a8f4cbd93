"""Shared helpers for the arclamp-svg generator and companion tests
(test_generate.py, test_compress.py, test_metrics.py, test_top.py).

They run the real binary (ARCLAMP_SVG_BIN, default build/bin/arclamp-svg)
on a data directory made per test under /tmp:
    <root>/logs/<period>/<name>.log[.gz]     trace logs, as arclamp-log writes them
    <root>/svgs/<period>/...                 what generate writes
    <root>/config.yaml                       written by the test, always passed
Every run's stderr is checked for sanitizer reports (the ASan build runs the
same tests)."""

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common" / "tests"))
from testkit import repo_bin  # noqa: E402

SANITIZER_MARKS = (b"ERROR: AddressSanitizer", b"ERROR: LeakSanitizer", b"runtime error:",
                   b"ERROR: UndefinedBehaviorSanitizer")

ENTRY = "/srv/mediawiki/php-1.44.0-wmf.3/index.php"
EDIT = "MediaWiki\\Actions\\EditAction::show"
UPLOAD = "UploadBase::performUpload"
RUN = "MediaWiki\\MediaWikiEntryPoint::run"


@pytest.fixture(scope="session")
def arclamp_svg():
    path = repo_bin("ARCLAMP_SVG_BIN", "build/bin/arclamp-svg")
    if not os.access(path, os.X_OK):
        pytest.fail("%s not found or not executable (build it with `make build/bin/arclamp-svg` "
                    "or set ARCLAMP_SVG_BIN)" % path)
    return path


def check_sanitizers(proc):
    for mark in SANITIZER_MARKS:
        assert mark not in proc.stderr, proc.stderr.decode("utf-8", "replace")


def to_bytes(s):
    return s if isinstance(s, bytes) else os.fsencode(s)


class Tree:
    """A data directory and ways to fill it and run arclamp-svg on it."""

    def __init__(self, binary, root):
        self.binary = binary
        self.root = Path(root)
        self.logs = self.root / "logs"
        self.svgs = self.root / "svgs"
        self.config = self.root / "config.yaml"
        self.logs.mkdir()
        self.write_config("")

    def write_config(self, extra):
        self.config.write_text("log_target: stderr\n" + extra)

    def log(self, period, name, lines, mtime=None, gz=False):
        """Writes <logs>/<period>/<name>.log (or .log.gz); lines: list of str/bytes or bytes.
        name may be bytes (for non-UTF-8 names). Returns the path as bytes."""
        d = os.path.join(to_bytes(str(self.logs)), to_bytes(period))
        os.makedirs(d, exist_ok=True)
        data = lines if isinstance(lines, bytes) else b"".join(to_bytes(x) + b"\n" for x in lines)
        path = os.path.join(d, to_bytes(name) + (b".log.gz" if gz else b".log"))
        with open(path, "wb") as f:
            f.write(gzip.compress(data, mtime=0) if gz else data)
        if mtime is not None:
            os.utime(path, (mtime, mtime))
        return path

    def svg(self, period, name):
        return os.path.join(to_bytes(str(self.svgs / period)), to_bytes(name))

    def run(self, command, *args, data_dir=True, config=True, env=None, timeout=120):
        argv = [self.binary, command]
        if config:
            argv += ["--config", str(self.config)]
        if data_dir:
            argv += ["--data-dir", str(self.root)]
        argv += [a if isinstance(a, (str, bytes)) else str(a) for a in args]
        full_env = dict(os.environ)
        full_env.update(env or {})
        full_env.pop("JOURNAL_STREAM", None)
        proc = subprocess.run(argv, capture_output=True, timeout=timeout, env=full_env)
        check_sanitizers(proc)
        return proc

    def ok(self, command, *args, **kw):
        proc = self.run(command, *args, **kw)
        assert proc.returncode == 0, (proc.returncode, proc.stdout.decode("utf-8", "replace"),
                                      proc.stderr.decode("utf-8", "replace"))
        return proc

    def files(self, sub="svgs"):
        """Every file under root/sub, as paths (bytes) relative to root."""
        out = set()
        top = os.path.join(to_bytes(str(self.root)), to_bytes(sub))
        for dirpath, _dirs, names in os.walk(top):
            for n in names:
                out.add(os.path.relpath(os.path.join(dirpath, n), to_bytes(str(self.root))))
        return out


@pytest.fixture
def tree(arclamp_svg):
    root = tempfile.mkdtemp(prefix="arclamp-svg-")
    try:
        yield Tree(arclamp_svg, root)
    finally:
        subprocess.run(["chattr", "-R", "-i", root], capture_output=True)
        for dirpath, dirs, _files in os.walk(root):
            for d in dirs:
                os.chmod(os.path.join(dirpath, d), 0o755)
        shutil.rmtree(root, ignore_errors=True)


def read_svgz(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:2] == b"\x1f\x8b", "%r is not gzip" % path
    return gzip.decompress(data).decode("utf-8")


def root_total(svg_text):
    """The root box's count ("all (N samples, 100%)"): what the graph shows."""
    import xml.etree.ElementTree as ET
    root = ET.fromstring(svg_text.encode("utf-8"))
    for t in root.iter("{http://www.w3.org/2000/svg}title"):
        if t.text and t.text.startswith("all (") and t.text.endswith(", 100%)"):
            return int(t.text[5:].split(" ")[0].replace(",", ""))
    raise AssertionError("no root box")


def xml_well_formed(text, html=False):
    """True when xmllint accepts the document (HTML parser when html)."""
    argv = ["xmllint", "--noout"] + (["--html"] if html else []) + ["-"]
    proc = subprocess.run(argv, input=text.encode("utf-8") if isinstance(text, str) else text,
                          capture_output=True, timeout=60)
    return proc.returncode == 0 and not proc.stderr, proc.stderr.decode("utf-8", "replace")


def stack(*frames, count=1, entry=ENTRY):
    return "%s %d" % (";".join((entry,) + frames), count)


def write_like_arclamp_log(tree, by_hour, is_api):
    """Writes {(day, hour): [lines]} as arclamp-log would: each line in its
    hourly and its daily log, under the all tag and its entry point's (api
    when is_api(line), else index)."""
    daily = {}
    for (day, hour), lines in by_hour.items():
        name = "%s_%02d" % (day, hour)
        tree.log("hourly", name + ".all", lines)
        tree.log("hourly", name + ".index", [l for l in lines if not is_api(l)])
        tree.log("hourly", name + ".api", [l for l in lines if is_api(l)])
        daily.setdefault(day, []).extend(lines)
    for day, lines in daily.items():
        tree.log("daily", day + ".all", lines)
        tree.log("daily", day + ".index", [l for l in lines if not is_api(l)])
        tree.log("daily", day + ".api", [l for l in lines if is_api(l)])


def hours_between(by_hour, first, last):
    """The lines of the hours from first to last, (day, hour) both included."""
    keys = sorted(by_hour)
    return [l for k in keys[keys.index(first):keys.index(last) + 1] for l in by_hour[k]]

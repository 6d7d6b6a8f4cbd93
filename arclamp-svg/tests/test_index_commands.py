"""The index page's "Open in pprof, speedscope or compare" section
(indexcmds.c): command lines filled in for this data directory and
configuration, each log's path on its row, index.json's log_path and
config. The printed commands are run as printed (through /bin/sh, with
arclamp-svg on PATH): the pprof export must write a gzipped profile of the
logs' frames, the speedscope one speedscope's JSON, the diff an SVG. A
hostile entry point name must be one inert shell argument and escaped
HTML."""

import gzip
import html.parser
import json
import os
import re
import shlex
import subprocess
import time

from conftest import ENTRY, check_sanitizers, stack, xml_well_formed


class CodeBlocks(html.parser.HTMLParser):
    """The text of every <pre><code> inside <div id="commands">, and of every
    <code class="path">."""

    def __init__(self):
        super().__init__()
        self.blocks, self.paths = [], []
        self._in_commands = self._in_pre = False
        self._text = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and a.get("id") == "commands":
            self._in_commands = True
        if tag == "pre":
            self._in_pre = True
        block = self._in_commands and self._in_pre
        if tag == "code" and (block or a.get("class") == "path"):
            self._text = ["block" if block else "path", ""]

    def handle_data(self, data):
        if self._text is not None:
            self._text[1] += data

    def handle_endtag(self, tag):
        if tag == "code" and self._text is not None:
            (self.blocks if self._text[0] == "block" else self.paths).append(self._text[1])
            self._text = None
        if tag == "pre":
            self._in_pre = False
        if tag == "div":
            self._in_commands = False


def hour_name(seconds_ago):
    return time.strftime("%Y-%m-%d_%H", time.gmtime(time.time() - seconds_ago))


def commands_of(page):
    p = CodeBlocks()
    p.feed(page)
    return p.blocks, p.paths


def run_printed(tree, command, cwd):
    """Runs a printed command line through /bin/sh, arclamp-svg being the
    binary under test."""
    bindir = cwd / "bin"
    bindir.mkdir(exist_ok=True)
    link = bindir / "arclamp-svg"
    if not link.exists():
        link.symlink_to(os.path.abspath(tree.binary))
    env = dict(os.environ, PATH="%s:%s" % (bindir, os.environ.get("PATH", "/usr/bin:/bin")))
    env.pop("JOURNAL_STREAM", None)
    proc = subprocess.run(["/bin/sh", "-c", command], cwd=str(cwd), env=env,
                          capture_output=True, timeout=120)
    check_sanitizers(proc)
    return proc


def lines():
    return [stack("Foo::bar", count=3), stack("Skin::output", count=4)]


def test_commands_are_filled_in_and_run_as_printed(tree, tmp_path):
    # Two hours before now (a rollover between here and the page still
    # leaves them inside its 24 hours).
    newer, older = hour_name(3600), hour_name(2 * 3600)
    for h in (newer, older):
        tree.log("hourly", h + ".all", lines())
        tree.log("hourly", h + ".index", [stack("Index::only", count=5)])
    tree.ok("generate")
    page = (tree.root / "index.html").read_text()
    ok, why = xml_well_formed(page, html=True)
    assert ok, why
    blocks, paths = commands_of(page)
    assert 'id="commands"' in page and "Open in pprof, speedscope or compare" in page
    assert len(blocks) == 3, blocks
    pprof_block, speedscope_cmd, diff_cmd = blocks
    pprof_cmd, pprof_view = pprof_block.split("\n")
    assert pprof_view == "go tool pprof -http=: profile.pb.gz"

    # Filled in with this installation's configuration and data directory
    # (the tree runs generate with both), well-formed argument lists.
    config, root = os.path.realpath(tree.config), os.path.realpath(tree.root)
    hour = r"\d{4}-\d{2}-\d{2}T\d{2}"
    for cmd, fmt, out in ((pprof_cmd, "pprof", "profile.pb.gz"),
                          (speedscope_cmd, "speedscope", "profile.speedscope.json")):
        argv = shlex.split(cmd)
        assert argv[:4] == ["arclamp-svg", "export", "--format", fmt], argv
        assert argv[argv.index("--config") + 1] == config
        assert argv[argv.index("--data-dir") + 1] == root
        assert re.fullmatch(hour, argv[argv.index("--from") + 1])
        assert re.fullmatch(hour, argv[argv.index("--to") + 1])
        assert argv[-2:] == ["-o", out]
    assert "--entrypoint" not in shlex.split(pprof_cmd)
    assert shlex.split(speedscope_cmd)[shlex.split(speedscope_cmd).index("--entrypoint") + 1] \
        == "index"
    logs = os.path.join(root, "logs", "hourly")
    assert shlex.split(diff_cmd) == ["arclamp-svg", "diff",
                                     os.path.join(logs, older + ".all.log"),
                                     os.path.join(logs, newer + ".all.log"), "-o", "diff.svg"]

    # Run as printed: a gzipped pprof profile of the "all" logs (every entry
    # point's samples; the index logs' own frame is not in them).
    proc = run_printed(tree, pprof_cmd, tmp_path)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    data = (tmp_path / "profile.pb.gz").read_bytes()
    assert data[:2] == b"\x1f\x8b"
    profile = gzip.decompress(data)
    for frame in (b"Foo::bar", b"Skin::output", ENTRY.encode()):
        assert frame in profile, frame
    assert b"Index::only" not in profile
    assert b"2 logs (0 daily, 2 hourly) of entry point all" in proc.stderr

    proc = run_printed(tree, speedscope_cmd, tmp_path)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    doc = json.loads((tmp_path / "profile.speedscope.json").read_text())
    names = {f["name"] for f in doc["shared"]["frames"]}
    assert "Index::only" in names and "Foo::bar" not in names

    proc = run_printed(tree, diff_cmd, tmp_path)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert b"<svg" in (tmp_path / "diff.svg").read_bytes()[:2000]

    # Every row names its log's path; index.json has it as log_path.
    expected = {os.path.join(logs, "%s.%s.log" % (h, e)) for h in (newer, older)
                for e in ("all", "index")}
    assert {shlex.split(p)[0] for p in paths} == expected
    index = json.loads((tree.root / "index.json").read_text())
    assert index["config"] == config
    for e in index["logs"]:
        assert e["log_path"] == os.path.join(root, e["log"])   # old key kept
        assert os.path.isfile(e["log_path"])


def test_without_a_config_file_the_data_dir_is_named(tree, tmp_path):
    if os.path.exists("/etc/arclamp/arclamp-svg.yaml"):
        import pytest
        pytest.skip("a system configuration exists here")
    tree.log("hourly", hour_name(3600) + ".all", lines())
    tree.ok("generate", config=False)
    blocks, _ = commands_of((tree.root / "index.html").read_text())
    argv = shlex.split(blocks[0].split("\n")[0])
    assert "--config" not in argv
    assert argv[argv.index("--data-dir") + 1] == os.path.realpath(tree.root)
    # no entry point but all, one log: placeholders, still a well-formed line
    assert "--entrypoint index" in blocks[1]
    assert blocks[2] == "arclamp-svg diff BEFORE.log AFTER.log -o diff.svg"
    assert json.loads((tree.root / "index.json").read_text())["config"] is None
    proc = run_printed(tree, blocks[0].split("\n")[0], tmp_path)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert (tmp_path / "profile.pb.gz").read_bytes()[:2] == b"\x1f\x8b"


def test_hostile_entry_point_is_escaped_and_one_inert_argument(tree, tmp_path):
    hostile = "a'$(touch PWNED)`touch PWNED2`<b>&amp;\"x"
    tree.log("hourly", hour_name(3600) + "." + hostile, lines())
    tree.log("hourly", hour_name(3600) + ".index", lines())
    # Under the default log_formats such a tag is refused (test_trust.py);
    # with none matching it keeps the old reading and must still be safe.
    tree.write_config("log_formats: ['%Y-%m-%d']\n")
    tree.ok("generate")
    raw = (tree.root / "index.html").read_text()
    ok, why = xml_well_formed(raw, html=True)
    assert ok, why
    assert "<b>&amp;\"x" not in raw and "&lt;b&gt;&amp;amp;" in raw
    blocks, paths = commands_of(raw)
    speedscope_cmd = blocks[1]
    argv = shlex.split(speedscope_cmd)
    assert argv[argv.index("--entrypoint") + 1] == hostile
    assert any(shlex.split(p)[0].endswith("." + hostile + ".log") for p in paths)
    # Pasted into a shell: nothing runs, the name arrives whole.
    proc = run_printed(tree, speedscope_cmd, tmp_path)
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "PWNED2").exists()
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert ("entry point " + hostile).encode() in proc.stderr
    doc = json.loads((tmp_path / "profile.speedscope.json").read_text())
    assert "Foo::bar" in {f["name"] for f in doc["shared"]["frames"]}
    for p in paths:
        proc = run_printed(tree, "ls -- " + p, tmp_path)
        assert proc.returncode == 0, (p, proc.stderr)
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "PWNED2").exists()

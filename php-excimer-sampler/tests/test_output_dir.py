"""Runs saved as files (xhprof.output_dir, uprofiler.output_dir: PECL
xhprof's <runid>.xhprof.xhprof) are written under a temporary name in the
same directory and renamed: a run that does not fit (a full file system, a
file size limit) leaves nothing behind, truncated or temporary, and PHP
warns that the run was not saved; one that fits is there whole.

The full disk is a 64 KiB tmpfs (needs root and mount: skipped, with the
reason, otherwise) and, for everyone, RLIMIT_FSIZE of 64 KiB, which makes a
write past it fail as a full disk does (EFBIG instead of ENOSPC).
"""

import os
import re
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "common" / "tests"))
from testkit import repo_bin  # noqa: E402

BUILD_PHP = Path(repo_bin("EXCIMER_BUILD_PHP", "build/php"))
LIMIT = 64 * 1024
# 3,000 functions, each called once: ~200 KB serialized, well past LIMIT
SCRIPT = """<?php
for ($i = 0; $i < 3000; $i++) { eval("function f$i() { return $i; }"); }
for ($i = 0; $i < 3000; $i++) { ("f$i")(); }
echo "served\\n";
"""
SMALL = "<?php function g() { return 1; } g(); echo \"served\\n\";\n"
MODULES = {"xhprof.output_dir": "xhprof", "uprofiler.output_dir": "uprofiler"}


def run_php(script, ini, outdir, fsize=None):
    """One request with every run profiled and saved to outdir."""
    so = BUILD_PHP / "excimer.so"
    if not so.exists():
        pytest.skip("%s is not built (make build/php/excimer.so)" % so)
    cmd = ["php", "-n", "-d", "extension=%s" % so,
           "-d", "extension=%s" % (BUILD_PHP / ("%s.so" % MODULES[ini])),
           "-d", "excimer.hprof_sample_rate=1", "-d", "%s=%s" % (ini, outdir),
           "-d", "display_errors=stderr", "-d", "log_errors=0", str(script)]

    def limit():
        # ignored, SIGXFSZ stays ignored across exec: the write fails instead
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
                          preexec_fn=limit if fsize else None)


@pytest.fixture
def big_script(tmp_path):
    p = tmp_path / "big.php"
    p.write_text(SCRIPT)
    return p


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A 64 KiB tmpfs, unmounted after the test."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (the RLIMIT_FSIZE test covers the rest)")
    mnt = tmp_path / "full"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d,mode=0755" % LIMIT, "tmpfs",
                        str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: %s" % r.stderr.decode(errors="replace").strip())
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def assert_not_saved(out, ini, outdir, reason):
    assert os.listdir(outdir) == []  # no truncated file, no temporary file
    assert out.returncode == 0, out.stderr
    assert out.stdout == b"served\n"  # the request is served all the same
    err = out.stderr.decode(errors="replace")
    assert re.search(r"Warning: .*%s: %s/[0-9a-f]{16}\.xhprof\.xhprof: write: %s; "
                     r"the run was not saved" % (re.escape(ini), re.escape(str(outdir)),
                                                 reason), err), err


def assert_saved_whole(out, outdir):
    assert out.returncode == 0, out.stderr
    assert out.stderr == b""
    names = os.listdir(outdir)
    assert len(names) == 1 and re.fullmatch(r"[0-9a-f]{16}\.xhprof\.xhprof", names[0]), names
    path = outdir / names[0]
    assert path.stat().st_mode & 0o777 == 0o640
    check = subprocess.run(["php", "-n", "-r", "$r = unserialize(file_get_contents($argv[1])); "
                            "echo is_array($r) && isset($r['main()']) ? count($r) : 'bad';",
                            str(path)], capture_output=True, timeout=60)
    return int(check.stdout)


@pytest.mark.parametrize("ini", sorted(MODULES))
def test_full_tmpfs_leaves_no_truncated_run_and_warns(ini, big_script, tiny_tmpfs, tmp_path):
    assert_not_saved(run_php(big_script, ini, tiny_tmpfs), ini, tiny_tmpfs,
                     "No space left on device")
    # the space the failed run took is free again: a small run fits
    small = tmp_path / "small.php"
    small.write_text(SMALL)
    assert assert_saved_whole(run_php(small, ini, tiny_tmpfs), tiny_tmpfs) >= 2


@pytest.mark.parametrize("ini", sorted(MODULES))
def test_file_size_limit_leaves_no_truncated_run_and_warns(ini, big_script, tmp_path):
    outdir = tmp_path / "runs"
    outdir.mkdir()
    assert_not_saved(run_php(big_script, ini, outdir, fsize=LIMIT), ini, outdir,
                     "File too large")
    # without the limit the same run is saved whole: every function's arc
    assert assert_saved_whole(run_php(big_script, ini, outdir), outdir) > 3000

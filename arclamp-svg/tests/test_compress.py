"""`arclamp-svg compress --older-than DAYS`: old logs sorted in byte order and
gzip'ed in place with their mtime, recent ones left alone, and the original
kept whenever anything fails."""

import gzip
import os
import subprocess
import time

import pytest

from conftest import stack

DAY = 86400


def unsorted_lines():
    return [stack("b::x", count=1), stack("B::x", count=2), "zeta;frame 1",
            "\u00e9t\u00e9;x 3", stack("a::y", count=1), "Zeta;frame 1", stack("a::y", count=1)]


def c_sorted(data):
    return b"".join(sorted(data.splitlines(keepends=True)))


def test_old_logs_are_sorted_and_gzipped_keeping_mtime(tree):
    old = time.time() - 3 * DAY
    path = tree.log("daily", "2026-11-18.all", unsorted_lines(), mtime=old)
    os.chmod(path, 0o640)
    original = open(path, "rb").read()
    proc = tree.ok("compress", "--older-than", "2", env={"LC_ALL": "en_US.UTF-8"})
    assert b"1 logs compressed" in proc.stdout
    assert not os.path.exists(path)
    gz = path + b".gz"
    data = gzip.decompress(open(gz, "rb").read())
    assert data == c_sorted(original)
    st = os.stat(gz)
    assert abs(st.st_mtime - old) < 1e-6
    assert st.st_mode & 0o777 == 0o640
    assert sorted(os.listdir(os.path.dirname(gz))) == [b"2026-11-18.all.log.gz"]


def test_recent_logs_and_compressed_logs_are_left_alone(tree):
    recent = tree.log("daily", "2026-11-22.all", unsorted_lines(), mtime=time.time() - 3600)
    done = tree.log("daily", "2026-11-01.all", unsorted_lines(), gz=True, mtime=1)
    before = open(done, "rb").read()
    proc = tree.ok("compress", "--older-than", "1")
    assert b"0 logs compressed" in proc.stdout and b"1 newer" in proc.stdout
    assert os.path.exists(recent) and open(done, "rb").read() == before


def test_fractional_days(tree):
    path = tree.log("hourly", "2026-11-22_01.all", unsorted_lines(), mtime=time.time() - 7200)
    tree.ok("compress", "--older-than", "0.05")  # 72 minutes
    assert os.path.exists(path + b".gz") and not os.path.exists(path)


def test_big_log_is_sorted_with_bounded_memory(tree):
    # more lines than fit in one small sort buffer chunk, with a missing final newline
    lines = ["%s;frame%d %d" % (stack("x").rsplit(" ", 1)[0], (i * 7919) % 50000, 1 + i % 3)
             for i in range(50000)]
    data = ("\n".join(lines)).encode()
    path = tree.log("daily", "2026-11-10.index", data, mtime=1)
    tree.ok("compress", "--older-than", "1")
    out = gzip.decompress(open(path + b".gz", "rb").read())
    assert out == c_sorted(data + b"\n")


def test_generate_after_compress_needs_no_redraw(tree):
    tree.log("daily", "2026-11-10.index", unsorted_lines(), mtime=1000)
    tree.ok("generate")
    tree.ok("compress", "--older-than", "1")
    proc = tree.ok("generate")
    assert b"0 drawn" in proc.stdout and b"1 up to date" in proc.stdout
    assert b"2026-11-10.index.log.gz" in (tree.root / "index.html").read_bytes()


def immutable(path):
    """Makes a directory unwritable even for root (chattr +i); False if impossible here."""
    proc = subprocess.run(["chattr", "+i", path], capture_output=True)
    return proc.returncode == 0


def test_original_kept_when_the_directory_is_read_only(tree):
    path = tree.log("daily", "2026-11-10.index", unsorted_lines(), mtime=1000)
    d = os.path.dirname(path)
    if os.geteuid() == 0:
        if not immutable(d):
            pytest.skip("cannot make a directory read-only for root here (chattr +i)")
    else:
        os.chmod(d, 0o555)
    before = open(path, "rb").read()
    try:
        proc = tree.run("compress", "--older-than", "1")
    finally:
        subprocess.run(["chattr", "-i", d], capture_output=True)
        os.chmod(d, 0o755)
    assert proc.returncode == 1, proc.stderr
    assert b"left as it was" in proc.stderr
    assert open(path, "rb").read() == before
    assert os.stat(path).st_mtime == 1000
    assert os.listdir(d) == [os.path.basename(path)]


def fake_sort(tree, script):
    bindir = tree.root / "bin"
    bindir.mkdir(exist_ok=True)
    (bindir / "sort").write_text("#!/bin/sh\n" + script + "\n")
    os.chmod(bindir / "sort", 0o755)
    return {"PATH": "%s:%s" % (bindir, os.environ.get("PATH", "/usr/bin:/bin"))}


@pytest.mark.parametrize("script", ["head -c 20; exit 1",   # sort fails
                                    "head -c 20",            # sort stops early, says fine
                                    "kill -9 $$"])           # sort dies
def test_original_kept_when_sort_fails(tree, script):
    path = tree.log("daily", "2026-11-10.index", unsorted_lines(), mtime=1000)
    ok = tree.log("daily", "2026-11-11.index", unsorted_lines(), mtime=1000)
    before = open(path, "rb").read()
    proc = tree.run("compress", "--older-than", "1", env=fake_sort(tree, script))
    assert proc.returncode == 1
    assert b"2 failed" in proc.stdout
    for p in (path, ok):
        assert open(p, "rb").read() == before and os.stat(p).st_mtime == 1000
    assert sorted(os.listdir(os.path.dirname(path))) == [os.path.basename(path),
                                                         os.path.basename(ok)]


def test_command_line(tree):
    assert tree.run("compress").returncode == 2
    assert tree.run("compress", "--older-than", "0").returncode == 2
    assert tree.run("compress", "--older-than", "x").returncode == 2
    proc = tree.run("compress", "--older-than", "x")
    assert proc.stderr == (b'arclamp-svg compress: --older-than: expected a number from 1e-09 '
                           b'to 1e+06, got "x"\n')
    assert tree.run("compress").stderr == b"arclamp-svg compress: --older-than DAYS is required\n"


def test_run_logs_are_neither_compressed_nor_drawn(tree):
    """arclamp-log writes hierarchical runs to <bucket>.<tag>.runs next to the
    trace logs. Their lines must stay in order (a run is its begin line, its
    arcs and its end line, contiguous): compress, which sorts, must leave them
    alone, and generate must not take them for trace logs."""
    old = time.time() - 3 * DAY
    tree.log("daily", "2026-11-18.all", unsorted_lines(), mtime=old)
    d = os.path.join(bytes(tree.logs), b"daily")
    runs = (b"xhprof/1 r1 begin 1795000000 web1 wt /srv/index.php\n"
            b"xhprof/1 r1 arc 1 9 - - - main()\n"
            b"xhprof/1 r1 arc 1 5 - - - main()==>a\n"
            b"xhprof/1 r1 end 2 0\n")
    names = (b"2026-11-18.all.runs", b"2026-11-18.index.runs", b"2026-11-17.all.runs.gz")
    for n in names:
        with open(os.path.join(d, n), "wb") as f:
            f.write(gzip.compress(runs, mtime=0) if n.endswith(b".gz") else runs)
        os.utime(os.path.join(d, n), (old, old))
    before = {n: open(os.path.join(d, n), "rb").read() for n in names}
    proc = tree.ok("compress", "--older-than", "2")
    assert b"1 logs compressed" in proc.stdout
    proc = tree.ok("generate")
    for n in names:
        assert open(os.path.join(d, n), "rb").read() == before[n], n
        assert abs(os.stat(os.path.join(d, n)).st_mtime - old) < 1e-6, n
    assert sorted(os.listdir(d)) == sorted([b"2026-11-18.all.log.gz"] + list(names))
    graphs = {os.path.basename(p) for p in tree.files()}
    assert graphs and all(g.startswith(b"2026-11-18.all.") or g.startswith(b"index")
                          for g in graphs), graphs
    assert not any(b"runs" in g for g in graphs), graphs

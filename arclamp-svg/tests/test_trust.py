"""Trust boundaries of generate and compress (issue 14), each attack run as
it would be by a hostile local user (`nobody`, through setpriv) or by a
hostile writer of trace log names:
- the lock cannot be opened, let alone flock'ed, by another user; every
  wait for it is bounded, and a skipped run is logged and counted;
- log names that would collide with another log's graphs are refused;
- a period directory that cannot be read keeps its graphs and fails the run;
- run as root, the programs become the data directory's owner and follow
  no symlink below the configured paths."""

import fcntl
import json
import os
import pwd
import shutil
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import EDIT, read_svgz, stack

NOBODY = pwd.getpwnam("nobody")
AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
DAY = "2026-11-22"


def as_nobody(argv, timeout=60):
    return subprocess.run(AS_NOBODY + argv, capture_output=True, timeout=timeout)


def chown_tree(root, uid=NOBODY.pw_uid, gid=NOBODY.pw_gid):
    os.chown(root, uid, gid)
    for dirpath, dirs, files in os.walk(root):
        for n in dirs + files:
            os.lchown(os.path.join(dirpath, n), uid, gid)


def nobody_can_lock(path):
    """Whether `nobody` can open `path` and take an exclusive flock on it."""
    code = ("import fcntl, sys\n"
            "try:\n"
            "    f = open(sys.argv[1], 'rb')\n"
            "    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
            "except OSError as e:\n"
            "    print(e); sys.exit(1)\n")
    proc = as_nobody(["/usr/bin/python3", "-c", code, str(path)])
    assert proc.returncode in (0, 1), proc.stderr   # the probe itself ran
    return proc.returncode == 0


def metrics(tree):
    return tree.ok("metrics").stdout.decode()


# --- item 3: the lock ------------------------------------------------------


def test_nobody_cannot_open_or_flock_the_lock(tree):
    """Before: the lock file was 0644 in a 0755 directory and `nobody` held
    flock(LOCK_EX) on it, so generate exited 75 and compress blocked."""
    os.chmod(tree.root, 0o755)
    probe = tree.root / "probe"             # the probe works: a 0644 file can be locked
    probe.write_text("")
    os.chmod(probe, 0o644)
    assert nobody_can_lock(probe)
    tree.log("daily", DAY + ".index", [stack("A::a")])
    # a lock_file placed directly in the (world-readable) data directory
    tree.write_config("lock_file: %s/x.lock\n" % tree.root)
    tree.ok("generate")
    assert not nobody_can_lock(tree.root / "x.lock")
    assert os.stat(tree.root / "x.lock").st_mode & 0o777 == 0o600
    # the default: in a private directory
    tree.write_config("")
    tree.ok("generate")
    lock = tree.root / ".arclamp-svg" / "run.lock"
    assert lock.is_file()
    assert os.stat(lock).st_mode & 0o777 == 0o600
    assert os.stat(lock.parent).st_mode & 0o777 == 0o700
    assert not nobody_can_lock(lock)


def test_an_old_wide_lock_file_is_narrowed(tree):
    (tree.root / "old.lock").write_text("")
    os.chmod(tree.root / "old.lock", 0o666)
    tree.write_config("lock_file: %s/old.lock\n" % tree.root)
    tree.log("daily", DAY + ".index", [stack("A::a")])
    tree.ok("generate")
    assert os.stat(tree.root / "old.lock").st_mode & 0o777 == 0o600


def test_a_lock_of_another_user_or_in_an_open_directory_is_refused(tree):
    tree.log("daily", DAY + ".index", [stack("A::a")])
    shared = tree.root / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    tree.write_config("lock_file: %s/lock\n" % shared)
    proc = tree.run("generate")
    assert proc.returncode == 1
    assert b"writable by other users" in proc.stderr
    assert not (tree.root / "svgs").exists()
    # a lock file someone else owns (a root run's leftover, a planted file)
    os.chmod(shared, 0o755)
    (shared / "lock").write_text("")
    os.chown(shared / "lock", NOBODY.pw_uid, NOBODY.pw_gid)
    proc = tree.run("generate")
    assert proc.returncode == 1
    assert b"owned by uid %d" % NOBODY.pw_uid in proc.stderr
    # a symlink in its place
    (shared / "lock").unlink()
    os.symlink(tree.root / "elsewhere", shared / "lock")
    proc = tree.run("generate")
    assert proc.returncode == 1 and b"symbolic link" in proc.stderr
    assert not (tree.root / "elsewhere").exists()


def lock_config(tree, timeout):
    """lock_file spelled out, so that the code before issue 14 (another
    default) takes the same lock."""
    return "lock_file: %s/.arclamp-svg/run.lock\nlock_timeout: %s\n" % (tree.root, timeout)


def hold_lock(tree):
    d = tree.root / ".arclamp-svg"
    d.mkdir(mode=0o700, exist_ok=True)
    f = open(d / "run.lock", "a")
    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return f


def test_compress_gives_up_within_lock_timeout_and_counts_the_skip(tree):
    """Before: compress waited for the lock forever."""
    old = time.time() - 3 * 86400
    path = tree.log("daily", DAY + ".index", [stack("A::a")], mtime=old)
    tree.write_config(lock_config(tree, 1))
    with hold_lock(tree):
        start = time.monotonic()
        try:
            proc = tree.run("compress", "--older-than", "1", timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail("compress still waiting for the lock after 20 s")
        took = time.monotonic() - start
    assert proc.returncode == 75, proc.stderr
    assert 0.9 <= took < 5, took
    assert b"run_skipped" in proc.stderr or b"skipped" in proc.stderr
    assert proc.stderr.count(b"lock_timeout") >= 1
    assert os.path.exists(path)              # untouched
    text = metrics(tree)
    assert 'arclamp_svg_runs_skipped_total{command="compress"} 1' in text
    assert 'arclamp_svg_runs_skipped_total{command="generate"} 0' in text
    stamp = [line for line in text.splitlines()
             if line.startswith('arclamp_svg_last_skip_timestamp_seconds{command="compress"}')]
    assert stamp and abs(int(stamp[0].split()[-1]) - time.time()) < 60


def test_generate_waits_for_a_lock_released_in_time_and_skips_otherwise(tree):
    tree.log("daily", DAY + ".index", [stack("A::a")])
    tree.write_config(lock_config(tree, 5))
    f = hold_lock(tree)
    threading.Timer(0.5, f.close).start()
    start = time.monotonic()
    tree.ok("generate")
    assert time.monotonic() - start >= 0.4
    tree.write_config(lock_config(tree, 0.3))
    with hold_lock(tree):
        proc = tree.run("generate", "--force", timeout=20)
    assert proc.returncode == 75
    assert b"skipped" in proc.stderr
    assert 'arclamp_svg_runs_skipped_total{command="generate"} 1' in metrics(tree)
    with hold_lock(tree):
        tree.run("generate", "--force", timeout=20)
    assert 'arclamp_svg_runs_skipped_total{command="generate"} 2' in metrics(tree)


def test_lock_timeout_is_a_checked_option(tree):
    tree.write_config("lock_timeout: -1\n")
    proc = tree.run("generate")
    assert proc.returncode == 78 and b"lock_timeout" in proc.stderr
    assert b"lock_timeout" in tree.ok("generate", "--help", config=False,
                                      data_dir=False).stdout


# --- item 5: names that collide --------------------------------------------


def test_reversed_tag_cannot_replace_the_reversed_graph(tree):
    """An entry point index.reversed.php (older daemon, Python original)
    made a forward graph named like index's reversed graph."""
    tree.log("daily", DAY + ".excimer.index", [stack("Real::frame")])
    tree.log("daily", DAY + ".excimer.index.reversed", [stack("Attacker::frame")],
             mtime=time.time() + 60)
    proc = tree.run("generate")
    assert proc.returncode == 0, proc.stderr
    assert b"1 logs refused" in proc.stdout
    assert b"index.reversed.log: refused" in proc.stderr
    rev = read_svgz(tree.svg("daily", DAY + ".excimer.index.reversed.svgz"))
    assert "Real::frame" in rev and "Attacker::frame" not in rev
    names = [e["name"] for e in json.loads((tree.root / "index.json").read_text())["logs"]]
    assert names == [DAY + ".excimer.index"]
    assert 'arclamp_trace_log_refused_files{period="daily"} 1' in metrics(tree)


def test_fn_tag_cannot_replace_a_function_graph(tree):
    """all.fn-EditAction.php took over the all log's EditAction graph."""
    tree.log("daily", DAY + ".excimer.all", [stack(EDIT, "Real::edit")])
    tree.log("daily", DAY + ".excimer.all.fn-EditAction", [stack("Attacker::frame")],
             mtime=time.time() + 60)
    tree.ok("generate")
    fn = read_svgz(tree.svg("daily", DAY + ".excimer.all.fn-EditAction.svgz"))
    assert "Real::edit" in fn and "Attacker::frame" not in fn


def test_only_true_all_logs_count_as_all(tree):
    """evil.all.php was counted as an "all" log by top (and got the all
    logs' per-function graphs)."""
    tree.log("daily", DAY + ".excimer.all", [stack("Real::a", count=3)])
    tree.log("daily", DAY + ".excimer.evil.all", [stack(EDIT, "Attacker::frame", count=1000)],
             mtime=time.time() + 60)
    proc = tree.ok("top", "--period", "daily", "--slice", "last-5")
    out = proc.stdout.decode()
    assert "1 log of period daily" in out and "Attacker" not in out and "3 samples" in out
    tree.ok("generate")
    graphs = os.listdir(tree.svgs / "daily")
    assert not [g for g in graphs if "evil" in g], graphs
    logs = json.loads((tree.root / "index.json").read_text())["logs"]
    assert [(e["name"], e["entrypoint"]) for e in logs] == [(DAY + ".excimer.all", "all")]


def test_dotted_tags_keep_their_whole_name(tree):
    tree.log("daily", DAY + ".excimer.all", [stack("A::a")])
    tree.log("daily", DAY + ".excimer.foo.bar", [stack("A::a")])
    tree.ok("generate")
    logs = json.loads((tree.root / "index.json").read_text())["logs"]
    assert sorted(e["entrypoint"] for e in logs) == ["all", "foo.bar"]


# --- item 6: a directory that cannot be read ------------------------------


def nobody_tree(tree):
    os.chmod(tree.root, 0o755)
    chown_tree(tree.root)
    return [tree.binary, "generate", "--config", str(tree.config), "--data-dir", str(tree.root)]


@pytest.mark.parametrize("mode", [0o000, 0o300, 0o400])
def test_unreadable_period_keeps_its_graphs_and_fails(tree, mode):
    """Before: "0 logs ... 2 graphs removed", exit 0. As nobody, since root
    reads any directory. 0300: not listable; 0400: listable, nothing in it
    can be stat'ed."""
    tree.log("daily", DAY + ".index", [stack("A::a")])
    tree.log("hourly", DAY + "_05.index", [stack("A::a")])
    argv = nobody_tree(tree)
    proc = as_nobody(argv)
    assert proc.returncode == 0, proc.stderr
    before = sorted(os.listdir(tree.svgs / "daily"))
    assert len(before) == 2
    index = (tree.root / "index.html").read_bytes()
    os.chmod(tree.logs / "daily", mode)
    tree.log("hourly", DAY + "_06.index", [stack("B::b")])
    chown_tree(tree.root)
    os.chmod(tree.logs / "daily", mode)
    proc = as_nobody(argv)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert b"daily" in proc.stderr and b"Permission denied" in proc.stderr
    assert b"0 graphs removed" in proc.stdout
    assert sorted(os.listdir(tree.svgs / "daily")) == before
    assert (tree.root / "index.html").read_bytes() == index   # not rewritten without daily
    # the other period was still done
    assert (tree.svgs / "hourly" / (DAY + "_06.index.svgz")).exists()


def test_unreadable_logs_dir_does_nothing(tree):
    tree.log("daily", DAY + ".index", [stack("A::a")])
    argv = nobody_tree(tree)
    assert as_nobody(argv).returncode == 0
    os.chmod(tree.logs, 0o300)
    proc = as_nobody(argv)
    assert proc.returncode == 1 and b"Permission denied" in proc.stderr
    assert len(os.listdir(tree.svgs / "daily")) == 2


def test_compress_skips_an_unreadable_period_and_fails(tree):
    old = time.time() - 3 * 86400
    a = tree.log("daily", DAY + ".index", [stack("A::a")], mtime=old)
    b = tree.log("hourly", DAY + "_05.index", [stack("A::a")], mtime=old)
    os.chmod(tree.root, 0o755)
    chown_tree(tree.root)
    os.chmod(tree.logs / "daily", 0o300)
    proc = as_nobody([tree.binary, "compress", "--older-than", "1", "--config",
                      str(tree.config), "--data-dir", str(tree.root)])
    assert proc.returncode == 1, proc.stderr
    assert b"daily" in proc.stderr and b"Permission denied" in proc.stderr
    os.chmod(tree.logs / "daily", 0o755)
    assert os.path.exists(a) and not os.path.exists(b) and os.path.exists(b + b".gz")


def test_metrics_and_top_fail_rather_than_report_an_unreadable_period_empty(tree):
    tree.log("daily", DAY + ".all", [stack("A::a")])
    os.chmod(tree.root, 0o755)
    chown_tree(tree.root)
    os.chmod(tree.logs / "daily", 0o300)
    base = ["--config", str(tree.config), "--data-dir", str(tree.root)]
    proc = as_nobody([tree.binary, "metrics"] + base)
    assert proc.returncode == 1 and b"Permission denied" in proc.stderr
    proc = as_nobody([tree.binary, "top"] + base)
    assert proc.returncode == 1 and b"Permission denied" in proc.stderr


# --- item 7: root runs ------------------------------------------------------


@pytest.fixture
def elsewhere():
    d = tempfile.mkdtemp(prefix="arclamp-elsewhere-")
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def snapshot(d):
    out = {}
    for dirpath, _dirs, files in os.walk(d):
        for n in files:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            out[p] = (st.st_size, st.st_mtime_ns, st.st_uid)
    return out


def test_root_run_follows_no_symlink_of_the_data_dir_owner(tree, elsewhere):
    """Before: run as root, generate followed a user-owned svgs -> elsewhere
    symlink, wrote and removed files there, and left a root-owned lock."""
    tree.log("daily", DAY + ".index", [stack("A::a")])
    os.makedirs(os.path.join(elsewhere, "daily"))
    victim = os.path.join(elsewhere, "daily", "precious.svgz")
    open(victim, "w").write("keep me")
    os.chmod(tree.root, 0o755)
    os.symlink(elsewhere, tree.svgs)
    chown_tree(tree.root)
    before = snapshot(elsewhere)
    proc = tree.run("generate")
    assert proc.returncode == 1, proc.stderr
    assert b"svgs" in proc.stderr and b"symbolic link" in proc.stderr
    assert snapshot(elsewhere) == before
    # what it made, it made as the data directory's owner
    for p in [tree.root / ".arclamp-svg", tree.root / ".arclamp-svg" / "run.lock"]:
        assert os.lstat(p).st_uid == NOBODY.pw_uid, p
    proc = tree.run("compress", "--older-than", "1")
    assert snapshot(elsewhere) == before


def test_root_run_becomes_the_owner_of_the_data_dir(tree):
    tree.log("daily", DAY + ".index", [stack("A::a")])
    os.chmod(tree.root, 0o755)
    chown_tree(tree.root)
    tree.ok("generate")
    for p in [tree.root / "index.html", tree.root / "index.json",
              tree.svgs / "daily" / (DAY + ".index.svgz")]:
        assert os.stat(p).st_uid == NOBODY.pw_uid, p
    # and a later run as that user works (no root-owned leftovers)
    proc = as_nobody([tree.binary, "generate", "--force", "--config", str(tree.config),
                      "--data-dir", str(tree.root)])
    assert proc.returncode == 0, proc.stderr


def test_a_directory_of_another_user_is_refused(tree):
    """Root's data directory, a period directory of svgs owned by nobody:
    refused (nobody could swap what is inside), its files left alone."""
    tree.log("daily", DAY + ".index", [stack("A::a")])
    tree.ok("generate")
    os.chown(tree.svgs / "daily", NOBODY.pw_uid, NOBODY.pw_gid)
    stale = tree.svgs / "daily" / "gone.svgz"
    stale.write_text("")
    proc = tree.run("generate", "--force")
    assert proc.returncode == 1
    assert b"belongs to uid %d" % NOBODY.pw_uid in proc.stderr
    assert stale.exists()
    os.chown(tree.svgs / "daily", 0, 0)
    os.chown(tree.svgs, NOBODY.pw_uid, NOBODY.pw_gid)
    proc = tree.run("generate")
    assert proc.returncode == 1 and b"belongs to uid" in proc.stderr
    assert stale.exists()

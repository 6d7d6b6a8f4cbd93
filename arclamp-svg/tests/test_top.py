"""`arclamp-svg top`: the leaderboard's figures on a known input (self,
inclusive counted once per stack under recursion, shares), the choice of
logs (--period, --entrypoint, --slice, plain and .gz), --grep, --count,
--sort, and safe printing of hostile frame names."""

import re
import subprocess

import pytest

E = "/srv/index.php"


def rows(stdout):
    """[(self%, self, incl%, incl, name)] from the table."""
    out = []
    lines = stdout.decode("utf-8").split("\n")
    start = next(i for i, l in enumerate(lines) if l.split()[:1] == ["SELF%"])
    for line in lines[start + 1:]:
        if not line:
            continue
        m = re.match(r"^ *([0-9.]+)% +([0-9]+) +([0-9.]+)% +([0-9]+)  (.*)$", line)
        assert m, line
        out.append((float(m.group(1)), int(m.group(2)), float(m.group(3)), int(m.group(4)),
                    m.group(5)))
    return out


KNOWN = [
    E + ";A::run;B::work;C::leaf 30",
    E + ";A::run;B::work 20",
    E + ";A::run;R::rec;R::rec;R::rec;D::leaf 10",   # recursion: R counted once
    E + ";A::run;R::rec 15",
    E + ";Other::x 25",
]


def test_known_figures(tree):
    tree.log("daily", "2026-11-22.all", KNOWN)
    proc = tree.ok("top")
    out = proc.stdout.decode()
    assert "1 log of period daily, entry point all: 2026-11-22.all" in out
    assert "100 samples" in out
    got = {r[4]: r[:4] for r in rows(proc.stdout)}
    assert got["C::leaf"] == (30.0, 30, 30.0, 30)
    assert got["Other::x"] == (25.0, 25, 25.0, 25)
    assert got["B::work"] == (20.0, 20, 50.0, 50)
    assert got["R::rec"] == (15.0, 15, 25.0, 25)
    assert got["D::leaf"] == (10.0, 10, 10.0, 10)
    assert got["A::run"] == (0.0, 0, 75.0, 75)
    assert got[E] == (0.0, 0, 100.0, 100)
    order = [r[4] for r in rows(proc.stdout)]
    assert order[:5] == ["C::leaf", "Other::x", "B::work", "R::rec", "D::leaf"]


def test_sort_by_inclusive_and_count(tree):
    tree.log("daily", "2026-11-22.all", KNOWN)
    r = rows(tree.ok("top", "--sort", "inclusive", "--count", "3").stdout)
    assert [x[4] for x in r] == [E, "A::run", "B::work"]


def test_grep_keeps_matching_stacks_and_shares_are_of_them(tree):
    tree.log("daily", "2026-11-22.all", KNOWN)
    proc = tree.ok("top", "--grep", r"R::rec;D|B::w")
    assert "60 of 100 samples (60.00%) match" in proc.stdout.decode()
    got = {r[4]: r[:4] for r in rows(proc.stdout)}
    assert set(got) == {E, "A::run", "B::work", "C::leaf", "R::rec", "D::leaf"}
    assert got["C::leaf"] == (50.0, 30, 50.0, 30)
    assert got["R::rec"] == (0.0, 0, 16.67, 10)


def test_slices_periods_and_entry_points(tree):
    for h, n in (("03", 1), ("04", 2), ("05", 4)):
        tree.log("hourly", "2026-11-22_%s.excimer.all" % h, [E + ";H%s 1" % h] * n,
                 gz=(h == "03"))
        tree.log("hourly", "2026-11-22_%s.excimer.index" % h, [E + ";I 1"])
    tree.log("hourly", "2026-11-21_23.excimer.all", [E + ";Yesterday 8"])
    tree.log("daily", "2026-11-22.excimer.all", [E + ";Daily 1"])

    def names(*args):
        return {r[4] for r in rows(tree.ok("top", "--period", "hourly", *args).stdout)} - {E}

    assert names() == {"H05"}                                   # default: the newest log
    assert names("--slice", "last-3") == {"H03", "H04", "H05"}  # .log.gz read too
    assert names("--slice", "2026-11-22") == {"H03", "H04", "H05"}
    assert names("--slice", "2026-11") == {"H03", "H04", "H05", "Yesterday"}
    assert names("--entrypoint", "index", "--slice", "last-10") == {"I"}
    proc = tree.ok("top", "--period", "hourly", "--slice", "last-4")
    assert "4 logs of period hourly, entry point all: 2026-11-21_23.excimer.all .. " \
           "2026-11-22_05.excimer.all" in proc.stdout.decode()
    assert "15 samples" in proc.stdout.decode()
    assert {r[4] for r in rows(tree.ok("top").stdout)} == {E, "Daily"}  # --period daily


def test_errors(tree):
    tree.log("daily", "2026-11-22.all", KNOWN)
    proc = tree.run("top", "--entrypoint", "nope")
    assert proc.returncode == 1 and b"no trace logs" in proc.stderr
    assert tree.run("top", "--slice", "last-0").returncode == 2
    assert tree.run("top", "--grep", "(").returncode == 2
    assert tree.run("top", "--count", "0").returncode == 2
    assert tree.run("top", "--sort", "name").returncode == 2


@pytest.mark.parametrize("args,message,usage", [
    (["--count", "0"], b'--count: expected a number from 1 to 1e+09, got "0"', True),
    (["--sort", "name"], b"--sort: expected self or inclusive", True),
    (["--slice", "last-0"], b"--slice: expected a name prefix or last-N", False),
    (["--period", "daily", "x.log"], b"give trace log files or choose logs of the data "
     b"directory (--period, --entrypoint, --slice), not both", False),
])
def test_command_line_errors_are_said_once_then_the_usage(tree, args, message, usage):
    tree.log("daily", "2026-11-22.all", KNOWN)
    proc = tree.run("top", *args)
    assert (proc.returncode, proc.stdout) == (2, b"")
    first, _, rest = proc.stderr.partition(b"\n")
    assert first == b"arclamp-svg top: " + message
    assert rest.startswith(b"Usage: arclamp-svg top ") if usage else rest == b""


def test_a_log_that_cannot_be_read_is_said_before_the_others_figures(tree, tmp_path):
    """Errors go to stderr as found, before the leaderboard of the logs that
    could be read (one stream: 2>&1), and the exit status is 1."""
    tree.log("daily", "2026-11-21.all", KNOWN)
    bad = tree.logs / "daily" / "2026-11-22.all.log.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00junkjunkjunk")
    argv = [tree.binary, "top", "--config", str(tree.config), "--data-dir", str(tree.root),
            "--slice", "last-2"]
    with open(tmp_path / "both", "wb") as both:
        proc = subprocess.run(argv, stdout=both, stderr=both, timeout=120)
    assert proc.returncode == 1
    both = (tmp_path / "both").read_bytes()
    assert b"Sanitizer" not in both and b"runtime error:" not in both, both
    first, _, rest = both.partition(b"\n")
    assert first.startswith(b"arclamp-svg top: " + bytes(bad))
    assert rest.startswith(b"2 logs of period daily")


def test_hostile_frame_names_cannot_reach_the_terminal(tree):
    tree.log("daily", "2026-11-22.all",
             [E.encode() + b";\x1b[31mred\x1b[0m;bell\x07;\xc2\x9b2J;bad\xff 5",
              E.encode() + b";caf\xc3\xa9 1"])
    out = tree.ok("top").stdout
    assert b"\x1b" not in out and b"\x07" not in out and b"\xc2\x9b" not in out
    text = out.decode("utf-8")
    assert "\\x1b[31mred\\x1b[0m" in text and "bell\\x07" in text and "bad\\xff" in text
    assert "caf\u00e9" in text


@pytest.mark.parametrize("count", ["1", "2"])
def test_count_limits_rows(tree, count):
    tree.log("daily", "2026-11-22.all", KNOWN)
    assert len(rows(tree.ok("top", "--count", count).stdout)) == int(count)


def test_top_of_trace_log_files_given_by_path(tree):
    """`top FILE...` reads those trace logs (plain or .gz) with no data
    directory, and gives the same figures as choosing them in one."""
    plain = tree.log("daily", "2026-11-22.all", KNOWN).decode()
    gz = tree.log("daily", "2026-11-21.all", KNOWN, gz=True).decode()
    by_dir = rows(tree.ok("top", "--slice", "2026-11-22").stdout)
    by_file = tree.ok("top", plain, data_dir=False, config=False)
    assert rows(by_file.stdout) == by_dir
    assert by_file.stdout.decode().startswith("1 file: " + plain)
    both = rows(tree.ok("top", plain, gz, data_dir=False, config=False).stdout)
    assert [r[1] for r in both] == [2 * r[1] for r in by_dir]
    # a missing file fails; files and a choice of the data directory's logs do not mix
    assert tree.run("top", plain + ".missing", data_dir=False, config=False).returncode == 1
    assert tree.run("top", "--period", "daily", plain, data_dir=False, config=False).returncode == 2


def test_says_where_it_looked_when_nothing_is_configured(tree, tmp_path):
    """No configuration file and no --data-dir: the built-in default is the
    original Arc Lamp's /srv/arclamp, not the packages' /var/lib/arclamp;
    when it does not exist the message says so."""
    import os
    if os.path.exists("/etc/arclamp/arclamp-svg.yaml") or os.path.exists("/srv/arclamp"):
        pytest.skip("this machine has a configuration or a /srv/arclamp")
    proc = tree.run("top", data_dir=False, config=False)
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert "/etc/arclamp/arclamp-svg.yaml does not exist" in err and "/var/lib/arclamp" in err, err
    assert not os.path.exists("/srv/arclamp")

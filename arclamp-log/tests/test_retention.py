"""Retention: pruning to `retain` files per group and tag, by mtime, own format only."""

import os

from conftest import base_config, sample_line, send_unix
from testkit import metric, read_metrics, wait_until

DAY = 86400
T2020 = 1577836800  # 2020-01-01T00:00:00Z


def make_old(directory, name, day):
    p = directory / name
    p.write_bytes(b"/srv/old/index.php;old 1\n")
    t = T2020 + day * DAY
    os.utime(str(p), (t, t))
    return name


def listing(directory):
    return sorted(os.listdir(str(directory)))


def current_names(directory, suffix):
    return [n for n in listing(directory) if not n.startswith("2020") and n.endswith(suffix)]


def test_retention_keeps_newest_by_mtime_of_same_group_and_tag_only(daemon_factory, workdir):
    base = workdir / "logs"
    group = base / "hourly"
    group.mkdir(parents=True)
    # same group, tag index: .log and .log.gz both count; mtime order differs from name order
    make_old(group, "2020-01-01_00.index.log", 20)  # newest of the old ones: survives
    for n in range(2, 6):
        make_old(group, "2020-01-0%d_00.index.log" % n, n)
    make_old(group, "2020-01-06_00.index.log.gz", 6)
    make_old(group, "2020-01-07_00.index.log.gz", 7)
    # same group, tag all
    make_old(group, "2020-01-01_00.all.log", 1)
    make_old(group, "2020-01-02_00.all.log", 2)
    make_old(group, "2020-01-03_00.all.log.gz", 3)  # newest old all: survives
    # must all survive: other tags, other formats/prefixes, other files
    keep = [
        make_old(group, "2020-01-01_00.excimer-wall.index.log", 0),
        make_old(group, "2020-01-01.index.log", 0),
        make_old(group, "2020-01-02_00.api.log.gz", 0),
        make_old(group, "2020-01-03_00.api.log", 0),
        make_old(group, "2020-01-04_00.api.log", 0),
        make_old(group, "2020-01-01_00.index.log.bak", 0),
        make_old(group, "notes.txt", 0),
    ]
    sock = workdir / "ingest.sock"
    cfg = base_config(workdir, listen=["unix://%s" % sock])
    cfg["logs"] = [{"period": "hourly", "format": "%Y-%m-%d_%H", "retain": 2}]
    d = daemon_factory(cfg).start()
    send_unix(sock, [sample_line(1, "ret", entry=0)])  # an index line

    def expected():
        return sorted(keep + current_names(group, ".index.log") + current_names(group, ".all.log")
                      + ["2020-01-01_00.index.log", "2020-01-03_00.all.log.gz"])

    wait_until(lambda: len(current_names(group, ".index.log")) == 1
               and len(current_names(group, ".all.log")) == 1
               and listing(group) == expected(),
               what="pruning to 2 files per tag", describe=lambda: listing(group))
    want = expected()
    new_index = group / current_names(group, ".index.log")[0]
    wait_until(lambda: new_index.read_bytes() == sample_line(1, "ret", entry=0) + b"\n",
               what="the line in the new index file")
    wait_until(lambda: metric(read_metrics(workdir / "metrics.prom"),
                              "arclamp_log_files_pruned_total") == 8,
               what="files_pruned_total == 8",
               describe=lambda: metric(read_metrics(workdir / "metrics.prom"),
                                       "arclamp_log_files_pruned_total"))
    assert d.stop() == 0
    assert listing(group) == want


def test_two_groups_sharing_a_directory_prune_only_their_own_format(daemon_factory, workdir):
    base = workdir / "logs"
    group = base / "hourly"
    group.mkdir(parents=True)
    mine = ["2020-01-0%d_00.excimer.index.log" % n for n in range(1, 5)]
    theirs = ["2020-01-0%d_00.excimer-wall.index.log" % n for n in range(1, 5)]
    for n, name in enumerate(mine):
        make_old(group, name, 10 + n)
    for n, name in enumerate(theirs):
        make_old(group, name, n)  # older than all of mine
    sock = workdir / "ingest.sock"
    cfg = base_config(workdir, redis_channel="excimer", redis_channels=["excimer-wall"],
                      listen=["unix://%s" % sock])
    cfg["logs"] = [
        {"period": "hourly", "format": "%Y-%m-%d_%H.excimer", "retain": 2,
         "channels": ["excimer"]},
        {"period": "hourly", "format": "%Y-%m-%d_%H.excimer-wall", "retain": 2,
         "channels": ["excimer-wall"]},
    ]
    d = daemon_factory(cfg).start()
    send_unix(sock, [sample_line(2, "share", entry=0)])  # channel excimer only

    def done():
        return not (set(mine[:3]) & set(listing(group)))

    wait_until(done, what="own old files pruned", describe=lambda: listing(group))
    names = listing(group)
    new = [n for n in names if not n.startswith("2020")]
    assert sorted(new) == sorted(n for n in new if ".excimer." in n and "wall" not in n)
    assert set(theirs) <= set(names), "the other group's files were pruned"
    assert mine[3] in names
    assert len([n for n in names if n.endswith(".excimer.index.log")]) == 2
    assert d.stop() == 0


"""Local ingest sockets: systemd socket activation and the `listen` setting."""

import os
import signal
import socket
import time

from conftest import (SOCKET_ACTIVATE, base_config, count_lines, free_port, lines_of, make_batch,
                      sample_line, send_udp, send_unix, tags_in)
from testkit import metric, read_metrics, wait_until


def activation_prefix(listen, notify_path, fdnames=None):
    argv = [SOCKET_ACTIVATE, "--datagram"]
    for addr in listen:
        argv += ["-l", addr]
    if fdnames:
        argv.append("--fdname=" + ":".join(fdnames))
    # systemd-socket-activate passes only a few variables on to the child
    argv += ["-E", "NOTIFY_SOCKET=" + notify_path]
    for k, v in os.environ.items():
        if k.startswith(("ASAN_", "UBSAN_", "LSAN_")):
            argv += ["-E", "%s=%s" % (k, v)]
    return argv


def start_activated(daemon_factory, workdir, cfg, listen, fdnames=None):
    notify_path = str(workdir / "notify.sock")
    d = daemon_factory(cfg, argv_prefix=activation_prefix(listen, notify_path, fdnames))
    d.start(wait_ready=False)
    # systemd-socket-activate binds the sockets, then execs the daemon on first traffic
    wait_until(lambda: d.stderr_text().count("Listening on") >= len(listen) or not d.alive(),
               timeout=10, what="systemd-socket-activate listening")
    assert d.alive(), d.stderr_text()
    return d


def test_socket_activation_daemon_reads_passed_udp_and_unix_datagram_sockets(
        daemon_factory, workdir):
    udp_port = free_port(socket.SOCK_DGRAM)
    sock_path = str(workdir / "ingest.sock")
    cfg = base_config(workdir)  # no listen, no redis: only the passed sockets
    d = start_activated(daemon_factory, workdir, cfg, ["127.0.0.1:%d" % udp_port, sock_path])
    pid = d.pid
    base = workdir / "logs"

    first = sample_line(0, "act", entry=0)
    send_udp(udp_port, [first])  # this one triggers the exec of the daemon
    d.wait_ready()
    assert d.pid == pid and d.alive()
    # the daemon holds the passed sockets (fds 3 and 4), it did not open its own
    fd_targets = [os.readlink("/proc/%d/fd/%d" % (pid, fd)) for fd in (3, 4)]
    assert all(t.startswith("socket:") for t in fd_targets), fd_targets

    udp_lines = [sample_line(i, "udp", entry=i) for i in range(1, 9)]
    send_udp(udp_port, [udp_lines[0]])
    send_udp(udp_port, [b"\n".join(udp_lines[1:4]) + b"\n"])
    send_udp(udp_port, [b"\n".join(udp_lines[4:])])
    unix_lines = [sample_line(i, "unix", entry=i) for i in range(12)]
    send_unix(sock_path, [unix_lines[0], b"\n".join(unix_lines[1:6]),
                          b"\n".join(unix_lines[6:]) + b"\n"])
    want = [first] + udp_lines + unix_lines
    wait_until(lambda: count_lines(base, "hourly") >= len(want), what="all datagram lines",
               describe=lambda: count_lines(base, "hourly"))
    assert d.stop() == 0
    for period in ("hourly", "daily"):
        assert sorted(lines_of(base, period)) == sorted(want)


def test_socket_activation_fd_name_selects_the_channel(daemon_factory, workdir):
    udp_port = free_port(socket.SOCK_DGRAM)
    sock_path = str(workdir / "wall.sock")
    cfg = base_config(workdir, redis_channel="excimer", redis_channels=["excimer-wall"])
    cfg["logs"] = [
        {"period": "cpu", "format": "%Y-%m-%d", "retain": 5, "channels": ["excimer"]},
        {"period": "wall", "format": "%Y-%m-%d", "retain": 5, "channels": ["excimer-wall"]},
    ]
    d = start_activated(daemon_factory, workdir, cfg,
                        ["127.0.0.1:%d" % udp_port, sock_path], fdnames=["excimer", "excimer-wall"])
    base = workdir / "logs"
    cpu = [sample_line(i, "cpu", entry=i) for i in range(5)]
    wall = [sample_line(i, "wall", entry=i) for i in range(7)]
    send_udp(udp_port, cpu[:1])
    d.wait_ready()
    send_udp(udp_port, cpu[1:])
    send_unix(sock_path, wall)
    wait_until(lambda: count_lines(base, "cpu") >= 5 and count_lines(base, "wall") >= 7,
               what="cpu and wall lines")
    assert d.stop() == 0
    assert sorted(lines_of(base, "cpu")) == sorted(cpu)
    assert sorted(lines_of(base, "wall")) == sorted(wall)


def test_listen_setting_opens_udp_and_unix_sockets(daemon_factory, workdir):
    udp_port = free_port(socket.SOCK_DGRAM)
    sock_path = workdir / "ingest.sock"
    cfg = base_config(workdir, listen=["udp://127.0.0.1:%d" % udp_port, "unix://%s" % sock_path])
    d = daemon_factory(cfg).start()  # READY=1 once every input is open
    base = workdir / "logs"
    assert sock_path.is_socket()

    udp_lines, _ = make_batch(20, "ludp")
    for l in udp_lines:
        send_udp(udp_port, [l])
    unix_lines, _ = make_batch(40, "lunix")
    send_unix(sock_path, [b"\n".join(unix_lines[i:i + 4]) for i in range(0, 40, 4)])
    want = udp_lines + unix_lines
    wait_until(lambda: count_lines(base, "daily") >= len(want), what="all lines",
               describe=lambda: count_lines(base, "daily"))
    wait_until(lambda: metric(read_metrics(workdir / "metrics.prom"),
                              "arclamp_log_messages_received_total", input="socket") == 30,
               what="messages_received_total{input=socket} == 30")
    assert d.stop() == 0
    for period in ("hourly", "daily"):
        assert sorted(lines_of(base, period)) == sorted(want)
        assert set(tags_in(base, period)) == {"all", "index", "api", "RunJobs"}


def test_listen_map_form_routes_socket_to_its_channel_and_ipv6_udp(daemon_factory, workdir):
    udp6_port = free_port(socket.SOCK_DGRAM)
    sock_path = workdir / "wall.sock"
    cfg = base_config(workdir, redis_channel="excimer", redis_channels=["excimer-wall"],
                      listen=["udp://[::1]:%d" % udp6_port,
                              {"address": "unix://%s" % sock_path, "channel": "excimer-wall"}])
    cfg["logs"] = [
        {"period": "cpu", "format": "%Y-%m-%d", "retain": 5, "channels": ["excimer"]},
        {"period": "wall", "format": "%Y-%m-%d", "retain": 5, "channels": ["excimer-wall"]},
        {"period": "both", "format": "%Y-%m-%d", "retain": 5},
    ]
    d = daemon_factory(cfg).start()
    base = workdir / "logs"
    cpu = [sample_line(i, "cpu6", entry=i) for i in range(6)]
    wall = [sample_line(i, "wallu", entry=i) for i in range(6)]
    send_udp(udp6_port, cpu, host="::1")
    send_unix(sock_path, wall)
    wait_until(lambda: count_lines(base, "both") >= 12, what="lines in the group of all channels")
    assert d.stop() == 0
    assert sorted(lines_of(base, "cpu")) == sorted(cpu)
    assert sorted(lines_of(base, "wall")) == sorted(wall)
    assert sorted(lines_of(base, "both")) == sorted(cpu + wall)


def test_listen_address_already_in_use_exits_1(daemon_factory, workdir):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as busy:
        busy.bind(("127.0.0.1", 0))
        port = busy.getsockname()[1]
        cfg = base_config(workdir, listen=["udp://127.0.0.1:%d" % port])
        d = daemon_factory(cfg).start(wait_ready=False)
        assert d.wait_exit(timeout=15) == 1
    assert "READY=1" not in d.notify.values()


def test_php_entry_point_tag_is_file_name_without_directory_or_extension(daemon_factory, workdir):
    sock_path = workdir / "ingest.sock"
    d = daemon_factory(base_config(workdir, listen=["unix://%s" % sock_path])).start()
    base = workdir / "logs"
    lines = {
        b"/srv/x/foo-bar.php;main 1": "foo-bar",
        b"index.php;MediaWiki\\MediaWikiEntryPoint::run;leaf 1": "index",
        b"/srv/mediawiki/php-1.44.0-wmf.3/thumb.php;ThumbnailEntryPoint::execute 2": "thumb",
        b"/srv/mediawiki/w/load.php;ResourceLoader::respond 1": "load",
        b"/srv/mediawiki/rest.php.bak;main 1": None,
        b"/srv/mediawiki/all.php;main 1": None,  # `all` is never a tag
        b"/srv/x/" + b"a" * 100 + b".php;main 1": "a" * 100,
        b"/srv/x/" + b"b" * 101 + b".php;main 1": None,  # tag longer than 100 bytes
        b"/srv/x/we+ird.php;main 1": None,  # not [A-Za-z0-9_.-]
        b"{closure:/srv/x/index.php(12)};main 1": None,
        b"/srv/x/v1.2_beta.php;main 1": "v1.2_beta",  # dots between components are fine
        # names that would make another log's or graph's name (issue 14, item 5)
        b"/srv/x/index.reversed.php;main 1": None,    # index's reversed graph
        b"/srv/x/all.fn-EditAction.php;main 1": None,  # all's per-function graph
        b"/srv/x/evil.all.php;main 1": None,           # an "all" log to readers
        b"/srv/x/a..b.php;main 1": None,               # an empty component
    }
    refused_tags = 7  # the .php names above that are no tag (not rest.php.bak, {closure})
    send_unix(sock_path, list(lines))
    wait_until(lambda: count_lines(base, "hourly") >= len(lines), what="all lines")
    assert d.stop() == 0
    tags = tags_in(base, "hourly")
    want_tags = {t for t in lines.values() if t} | {"all"}
    assert set(tags) == want_tags, sorted(tags)
    for line, tag in lines.items():
        if tag:
            assert lines_of(base, "hourly", tag) == [line]
    all_lines = lines_of(base, "hourly")
    assert sorted(all_lines) == sorted(lines)  # each exactly once, `all.php` included
    assert metric(read_metrics(workdir / "metrics.prom"),
                  "arclamp_log_tags_refused_total") == refused_tags
    assert d.stderr_text().count("tags_refused:") == 2  # the first at once, the rest at the stop


def test_sighup_keeps_the_kernel_drop_count_of_activated_sockets(daemon_factory, workdir):
    """SO_RXQ_OVFL reports the socket's drops since it was made, and systemd's
    sockets outlive a reload: a reload must not count the history again."""
    udp_port = free_port(socket.SOCK_DGRAM)
    cfg = base_config(workdir)
    d = start_activated(daemon_factory, workdir, cfg, ["127.0.0.1:%d" % udp_port])
    send_udp(udp_port, [sample_line(0, "first")])
    d.wait_ready()
    metrics = workdir / "metrics.prom"
    wait_until(lambda: metric(read_metrics(metrics), "arclamp_log_lines_received_total") >= 1,
               what="the first line")

    # Stopped, the daemon reads nothing: the kernel drops what its buffer
    # cannot hold (8 MiB asked for; 40 MB are sent).
    line = sample_line(1, "flood") + b"\n"
    datagram = line * (60000 // len(line))
    d.signal(signal.SIGSTOP)
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for _ in range(700):
                s.sendto(datagram, ("127.0.0.1", udp_port))
        # A datagram queued after the drops carries the kernel's count.
        send_udp(udp_port, [sample_line(2, "after")])
    finally:
        d.signal(signal.SIGCONT)
    wait_until(lambda: metric(read_metrics(metrics), "arclamp_log_datagrams_dropped_total") > 0,
               what="the drops to be counted", describe=lambda: d.stderr_text()[-500:])
    time.sleep(0.5)
    dropped = metric(read_metrics(metrics), "arclamp_log_datagrams_dropped_total")
    reports = d.stderr_text().count("datagrams_dropped")
    assert reports >= 1

    start = len(d.notify)
    d.signal(signal.SIGHUP)
    d.notify.wait_for("READY=1", start=start)
    for i in range(3):
        send_udp(udp_port, [sample_line(3 + i, "reloaded")])
    wait_until(lambda: count_lines(workdir / "logs", "hourly", "all") >= 1, what="lines")
    time.sleep(1.0)  # two metrics intervals
    assert metric(read_metrics(metrics), "arclamp_log_datagrams_dropped_total") == dropped
    assert d.stderr_text().count("datagrams_dropped") == reports, d.stderr_text()[-2000:]
    assert d.stop() == 0

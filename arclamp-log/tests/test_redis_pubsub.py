"""Redis pub/sub input against a real redis-server."""

import collections
import signal
import time

from conftest import (ENTRY_POINTS, SAMPLE_RE, base_config, ceil_div, count_lines, lines_of,
                      log_files, make_batch, redis_instance, sample_line, tags_in)
from testkit import metric, read_metrics, wait_until


def publish_all(redis, lines, channel="excimer"):
    with redis.client() as c:
        replies = c.pipeline([("PUBLISH", channel, l) for l in lines])
    # every message reached exactly one subscriber: the daemon
    assert replies == [1] * len(lines), "PUBLISH receivers: %r" % collections.Counter(replies)


def test_published_messages_land_once_in_all_and_tag_files_of_hourly_and_daily_groups(
        redis_server, daemon_factory, workdir):
    d = daemon_factory(base_config(workdir, redis=redis_server)).start()
    redis_server.wait_subscribed()
    base = workdir / "logs"

    lines, per_tag = make_batch(200, "pub")
    publish_all(redis_server, lines)
    for period in ("hourly", "daily"):
        wait_until(lambda: count_lines(base, period) >= len(lines), what="%s all lines" % period,
                   describe=lambda: count_lines(base, period))
    assert d.stop() == 0

    for period in ("hourly", "daily"):
        got = lines_of(base, period, "all")
        assert len(got) == len(lines)
        assert collections.Counter(got) == collections.Counter(lines), "lines not verbatim/once"
        tags = tags_in(base, period)
        assert set(tags) == {"all", "index", "api", "RunJobs"}, sorted(tags)
        for tag in ("index", "api", "RunJobs"):
            tagged = lines_of(base, period, tag)
            assert len(tagged) == per_tag[tag]
            want = [l for l in lines if l.startswith(dict_entry(tag))]
            assert sorted(tagged) == sorted(want)
        # lines without a .php entry point only go to the all file
        assert not any(l.startswith(b"excimer_truncated") for t in ("index", "api", "RunJobs")
                       for l in lines_of(base, period, t))

    m = read_metrics(workdir / "metrics.prom")
    assert metric(m, "arclamp_log_lines_written_total", group="hourly") == len(lines)
    assert metric(m, "arclamp_log_lines_written_total", group="daily") == len(lines)
    assert metric(m, "arclamp_log_messages_received_total", input="redis") == len(lines)


def dict_entry(tag):
    return dict((t, p) for t, p in ENTRY_POINTS)[tag].encode() + b";"


def test_message_with_several_newline_separated_lines_becomes_several_lines(
        redis_server, daemon_factory, workdir):
    d = daemon_factory(base_config(workdir, redis=redis_server)).start()
    redis_server.wait_subscribed()
    base = workdir / "logs"
    batch = [sample_line(i, "multi", entry=i) for i in range(6)]
    messages = [b"\n".join(batch[:3]), b"\n".join(batch[3:]) + b"\n"]  # trailing \n allowed
    publish_all(redis_server, messages)
    wait_until(lambda: count_lines(base, "hourly") >= 6, what="6 lines")
    assert d.stop() == 0
    assert sorted(lines_of(base, "hourly")) == sorted(batch)
    m = read_metrics(workdir / "metrics.prom")
    assert sum(v for (n, _), v in m.items() if n == "arclamp_log_lines_invalid_total") == 0


def test_sample_pop_3_keeps_every_third_line_in_that_group_only(
        redis_server, daemon_factory, workdir):
    cfg = base_config(workdir, redis=redis_server)
    cfg["logs"][0]["sample_pop"] = 3
    d = daemon_factory(cfg).start()
    redis_server.wait_subscribed()
    base = workdir / "logs"

    n = 100
    lines, _ = make_batch(n, "pop")
    publish_all(redis_server, lines)
    wait_until(lambda: count_lines(base, "daily") >= n, what="daily lines",
               describe=lambda: count_lines(base, "daily"))
    wait_until(lambda: count_lines(base, "hourly") >= ceil_div(n, 3), what="hourly lines",
               describe=lambda: count_lines(base, "hourly"))
    assert d.stop() == 0

    hourly = lines_of(base, "hourly")
    assert len(hourly) == ceil_div(n, 3) == 34
    # the first line is kept, then every third one
    assert sorted(hourly) == sorted(lines[0::3])
    assert sorted(lines_of(base, "daily")) == sorted(lines)
    # tag files of the sampled group hold only sampled lines
    tagged = [l for t, files in tags_in(base, "hourly").items() if t != "all"
              for l in lines_of(base, "hourly", t)]
    assert set(tagged) <= set(lines[0::3])
    assert len(tagged) == len([l for l in lines[0::3] if not l.startswith(b"excimer_truncated")])


def test_redis_killed_and_restarted_mid_stream_daemon_stays_up_and_later_messages_land(
        redis_server, daemon_factory, workdir):
    cfg = base_config(workdir, redis=redis_server)
    cfg["redis"]["health_check_interval"] = 1
    d = daemon_factory(cfg).start()
    redis_server.wait_subscribed()
    base = workdir / "logs"

    before, _ = make_batch(50, "before")
    publish_all(redis_server, before)
    wait_until(lambda: count_lines(base, "hourly") >= 50, what="lines before the restart")

    redis_server.kill()
    # the daemon notices the loss and keeps retrying while redis is away
    wait_until(lambda: metric(read_metrics(workdir / "metrics.prom"),
                              "arclamp_log_redis_connected") == 0,
               what="arclamp_log_redis_connected to drop to 0")
    assert d.alive(), "daemon exited when redis went away"
    redis_server.start()  # same port, fresh (empty) server
    redis_server.wait_subscribed()
    assert d.alive()

    after, _ = make_batch(80, "after")
    publish_all(redis_server, after)
    wait_until(lambda: count_lines(base, "hourly") >= 130, what="lines after the restart",
               describe=lambda: count_lines(base, "hourly"))
    assert d.alive()
    m = read_metrics(workdir / "metrics.prom")
    assert metric(m, "arclamp_log_redis_reconnects_total") >= 1
    assert d.stop() == 0
    for period in ("hourly", "daily"):
        got = lines_of(base, period)
        assert collections.Counter(got) == collections.Counter(before + after)


def test_idle_subscription_survives_health_check_pings(redis_server, daemon_factory, workdir):
    cfg = base_config(workdir, redis=redis_server)
    cfg["redis"]["health_check_interval"] = 0.3
    d = daemon_factory(cfg).start()
    redis_server.wait_subscribed()
    base = workdir / "logs"
    # several health-check periods without traffic: PINGs in subscribed mode are answered,
    # so the connection must not be thrown away (which would lose messages meanwhile)
    t_end = time.monotonic() + 2.0
    while time.monotonic() < t_end:
        assert redis_server.numsub() == 1
        time.sleep(0.1)
    lines, _ = make_batch(20, "idle")
    publish_all(redis_server, lines)
    wait_until(lambda: count_lines(base, "hourly") >= 20, what="lines after idle period")
    m = read_metrics(workdir / "metrics.prom")
    assert metric(m, "arclamp_log_redis_reconnects_total") == 0
    assert metric(m, "arclamp_log_redis_connected") == 1
    assert d.stop() == 0


def test_original_arclamp_yaml_works_unchanged(redis_server, daemon_factory, workdir):
    base = workdir / "logs"
    config = (
        "base_path: %s\n"
        "redis:\n"
        "  host: 127.0.0.1\n"
        "  port: %d\n"
        "redis_channel: excimer\n"
        "logs:\n"
        "  - period: hourly\n"
        "    format: \"%%Y-%%m-%%d_%%H\"\n"
        "    retain: 336\n"
        "  - period: daily\n"
        "    format: \"%%Y-%%m-%%d\"\n"
        "    retain: 45\n" % (base, redis_server.port))
    d = daemon_factory(config).start(wait_ready=False)
    redis_server.wait_subscribed()
    lines, per_tag = make_batch(12, "orig")
    publish_all(redis_server, lines)
    # default flush_interval is 1 s: well inside the wait
    for period in ("hourly", "daily"):
        wait_until(lambda: count_lines(base, period) >= 12, what="%s lines" % period)
    assert d.stop() == 0
    for period in ("hourly", "daily"):
        assert sorted(lines_of(base, period)) == sorted(lines)
        assert len(lines_of(base, period, "index")) == per_tag["index"]
        assert all(SAMPLE_RE.match(l) for l in lines_of(base, period))
    assert len(log_files(base, "hourly", "all")) >= 1 and len(log_files(base, "daily", "all")) >= 1


def test_daemon_started_while_redis_is_down_subscribes_once_it_comes_up(
        daemon_factory, workdir):
    with redis_instance() as redis:
        d = daemon_factory(base_config(workdir, redis=redis)).start(wait_ready=False)
        # no redis yet: the daemon keeps running and retrying
        wait_until(lambda: (workdir / "metrics.prom").exists(), what="first metrics file")
        assert d.alive(), "daemon exited because redis was down at start"
        redis.start()
        redis.wait_subscribed()
        lines, _ = make_batch(10, "late")
        publish_all(redis, lines)
        base = workdir / "logs"
        wait_until(lambda: count_lines(base, "hourly") >= 10, what="lines once redis is up")
        assert d.stop() == 0
        assert sorted(lines_of(base, "hourly")) == sorted(lines)


def test_sighup_resubscribes_and_later_messages_land(redis_server, daemon_factory, workdir):
    d = daemon_factory(base_config(workdir, redis=redis_server)).start()
    redis_server.wait_subscribed()
    base = workdir / "logs"
    first, _ = make_batch(10, "hup1")
    publish_all(redis_server, first)
    wait_until(lambda: count_lines(base, "hourly") >= 10, what="lines before SIGHUP")
    mark = len(d.notify)
    d.signal(signal.SIGHUP)
    d.wait_ready(start=mark)
    redis_server.wait_subscribed()
    second, _ = make_batch(10, "hup2")
    publish_all(redis_server, second)
    wait_until(lambda: count_lines(base, "hourly") >= 20, what="lines after SIGHUP")
    assert d.stop() == 0
    for period in ("hourly", "daily"):
        assert collections.Counter(lines_of(base, period)) == collections.Counter(first + second)


def test_several_channels_go_to_the_groups_that_take_them(redis_server, daemon_factory, workdir):
    cfg = base_config(workdir, redis=redis_server, redis_channels=["excimer-wall"])
    cfg["logs"] = [
        {"period": "cpu", "format": "%Y-%m-%d", "retain": 5, "channels": ["excimer"]},
        {"period": "wall", "format": "%Y-%m-%d", "retain": 5, "channels": ["excimer-wall"]},
        {"period": "every", "format": "%Y-%m-%d", "retain": 5},
    ]
    d = daemon_factory(cfg).start()
    redis_server.wait_subscribed("excimer")
    redis_server.wait_subscribed("excimer-wall")
    base = workdir / "logs"
    cpu, _ = make_batch(15, "cpu")
    wall, _ = make_batch(9, "wall")
    publish_all(redis_server, cpu, "excimer")
    publish_all(redis_server, wall, "excimer-wall")
    wait_until(lambda: count_lines(base, "every") >= 24, what="lines in the all-channel group")
    assert d.stop() == 0
    assert sorted(lines_of(base, "cpu")) == sorted(cpu)
    assert sorted(lines_of(base, "wall")) == sorted(wall)
    assert sorted(lines_of(base, "every")) == sorted(cpu + wall)


def test_redis_over_unix_socket_with_password_file(daemon_factory, workdir):
    with redis_instance(password="s3cret-pa55") as redis:
        sock = redis.dir / "redis.sock"
        redis.extra_args = ["--unixsocket", str(sock), "--unixsocketperm", "700"]
        redis.start()
        pwfile = workdir / "redis.pw"
        pwfile.write_text("s3cret-pa55\nignored second line\n")
        cfg = base_config(workdir)
        cfg["redis"] = {"unix_socket": str(sock), "password_file": str(pwfile),
                        "reconnect_max_delay": 1}
        d = daemon_factory(cfg).start()
        redis.wait_subscribed()
        lines, _ = make_batch(8, "unixpw")
        publish_all(redis, lines)
        base = workdir / "logs"
        wait_until(lambda: count_lines(base, "hourly") >= 8, what="lines via the unix socket")
        assert d.stop() == 0
        assert sorted(lines_of(base, "hourly")) == sorted(lines)


def test_wrong_redis_password_is_retried_not_fatal(daemon_factory, workdir):
    with redis_instance(password="right") as redis:
        redis.start()
        cfg = base_config(workdir, redis=redis)
        cfg["redis"]["password"] = "wrong"
        d = daemon_factory(cfg).start(wait_ready=False)
        wait_until(lambda: "redis" in d.stderr_text().lower() and
                   ("auth" in d.stderr_text().lower() or "pass" in d.stderr_text().lower()),
                   what="an authentication error in the log", describe=d.stderr_text)
        assert d.alive(), "daemon exited on a Redis AUTH failure"
        assert redis.numsub() == 0
        assert d.stop() == 0


def test_burst_of_20000_messages_all_land_once(redis_server, daemon_factory, workdir):
    d = daemon_factory(base_config(workdir, redis=redis_server)).start()
    redis_server.wait_subscribed()
    base = workdir / "logs"
    lines, _ = make_batch(20000, "burst")
    with redis_server.client(timeout=20) as c:
        for i in range(0, len(lines), 2000):
            replies = c.pipeline([("PUBLISH", "excimer", l) for l in lines[i:i + 2000]])
            assert replies == [1] * len(replies), "the daemon was dropped as a subscriber"
    wait_until(lambda: count_lines(base, "hourly") >= len(lines), timeout=20,
               what="20000 lines", describe=lambda: count_lines(base, "hourly"))
    assert redis_server.numsub() == 1
    assert d.stop() == 0
    got = lines_of(base, "hourly")
    assert len(got) == len(lines) and set(got) == set(lines)

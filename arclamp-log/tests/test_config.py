"""Configuration validation (--check-config), command line, and reload."""

import re
import signal
import subprocess

import pytest

from conftest import base_config, count_lines, lines_of, sample_line, send_unix, to_yaml
from testkit import wait_until

EX_USAGE = 64
EX_CONFIG = 78

GOOD_HEAD = """\
base_path: /tmp/arclamp-never-written
log_target: stderr
flush_interval: 0.5
"""

GOOD_LOGS = """\
logs:
  - period: hourly
    format: "%Y-%m-%d_%H"
    retain: 336
  - period: daily
    format: "%Y-%m-%d"
    retain: 45
"""


def run_check(binary, path, *extra):
    return subprocess.run([binary, "--check-config", str(path)] + list(extra),
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=20)


# (name, yaml text, key that must be named, line of the offending key)
BAD_CONFIGS = [
    ("unknown_top_level_key", GOOD_HEAD + "colour: blue\n" + GOOD_LOGS, "colour", 4),
    ("unknown_key_in_group", GOOD_HEAD + GOOD_LOGS + "    flavour: mint\n", "flavour", 11),
    ("redis_both_spellings", GOOD_HEAD + "redis:\n  unix_socket: /a\n  unix_socket_path: /b\n"
     + GOOD_LOGS, "unix_socket_path", 6),
    ("redis_ssl", GOOD_HEAD + "redis:\n  host: 127.0.0.1\n  ssl: true\n" + GOOD_LOGS, "ssl", 6),
    ("wrong_type_flush_interval", GOOD_HEAD.replace("flush_interval: 0.5", "flush_interval: soon")
     + GOOD_LOGS, "flush_interval", 3),
    ("wrong_type_logs_not_a_list", GOOD_HEAD + "logs: hourly\n", "logs", 4),
    ("wrong_type_retain_string", GOOD_HEAD + GOOD_LOGS.replace("retain: 45", "retain: many"),
     "retain", 10),
    ("negative_retain", GOOD_HEAD + GOOD_LOGS.replace("retain: 45", "retain: -1"), "retain", 10),
    ("zero_retain", GOOD_HEAD + GOOD_LOGS.replace("retain: 336", "retain: 0"), "retain", 7),
    ("format_with_slash", GOOD_HEAD + GOOD_LOGS.replace('"%Y-%m-%d"', '"%Y/%m-%d"'),
     "format", 9),
    ("unsupported_strftime_conversion", GOOD_HEAD + GOOD_LOGS.replace('"%Y-%m-%d"', '"%c"'),
     "format", 9),
    ("empty_format", GOOD_HEAD + GOOD_LOGS.replace('"%Y-%m-%d"', '""'), "format", 9),
    ("period_dotdot", GOOD_HEAD + GOOD_LOGS.replace("period: daily", "period: .."), "period", 8),
    ("period_with_slash", GOOD_HEAD + GOOD_LOGS.replace("period: hourly", "period: a/b"),
     "period", 5),
    ("bad_redis_mode", GOOD_HEAD + "redis:\n  mode: carrier-pigeon\n" + GOOD_LOGS, "mode", 5),
    ("redis_port_out_of_range", GOOD_HEAD + "redis:\n  port: 70000\n" + GOOD_LOGS, "port", 5),
    ("bad_listen_scheme", GOOD_HEAD + "listen:\n  - ftp://127.0.0.1:21\n" + GOOD_LOGS,
     "listen", (4, 5)),
    ("sample_pop_zero", GOOD_HEAD + GOOD_LOGS + "    sample_pop: 0\n", "sample_pop", 11),
    ("listen_socket_mode_not_octal", GOOD_HEAD + "listen_socket_mode: rw-rw----\n" + GOOD_LOGS,
     "listen_socket_mode", 4),
    ("listen_socket_mode_too_big", GOOD_HEAD + "listen_socket_mode: '4777'\n" + GOOD_LOGS,
     "listen_socket_mode", 4),
    ("listen_socket_group_unknown", GOOD_HEAD + "listen_socket_group: no-such-arclamp-group\n"
     + GOOD_LOGS, "listen_socket_group", 4),
    ("negative_max_tags_per_bucket", GOOD_HEAD + "max_tags_per_bucket: -1\n" + GOOD_LOGS,
     "max_tags_per_bucket", 4),
    ("max_files_per_period_tiny", GOOD_HEAD + "max_files_per_period: 3\n" + GOOD_LOGS,
     "max_files_per_period", 4),
    ("min_free_disk_percent_100", GOOD_HEAD + "min_free_disk_percent: 100\n" + GOOD_LOGS,
     "min_free_disk_percent", 4),
    ("negative_flush_interval", GOOD_HEAD.replace("flush_interval: 0.5", "flush_interval: -2")
     + GOOD_LOGS, "flush_interval", 3),
]


@pytest.mark.parametrize("name,text,key,line", BAD_CONFIGS, ids=[c[0] for c in BAD_CONFIGS])
def test_check_config_refuses_bad_config_naming_key_and_line(arclamp_bin, workdir, name, text,
                                                              key, line):
    path = workdir / "arclamp-log.yaml"
    path.write_text(text)
    lines = line if isinstance(line, tuple) else (line,)
    # sanity: the line we point at holds the key
    assert key in text.splitlines()[lines[0] - 1], text.splitlines()[lines[0] - 1]
    r = run_check(arclamp_bin, path)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == EX_CONFIG, (r.returncode, err)
    assert key in err, err
    assert re.search(r":(%s):" % "|".join(map(str, lines)), err), \
        "no :%s: in %r" % (lines, err)
    assert b"configuration OK" not in r.stdout


def test_check_config_refuses_config_without_logs(arclamp_bin, workdir):
    path = workdir / "arclamp-log.yaml"
    path.write_text(GOOD_HEAD)
    r = run_check(arclamp_bin, path)
    assert r.returncode == EX_CONFIG
    assert b"logs" in r.stderr


def test_check_config_refuses_yaml_syntax_error_with_line(arclamp_bin, workdir):
    path = workdir / "arclamp-log.yaml"
    path.write_text(GOOD_HEAD + GOOD_LOGS + "  - period: [unclosed\n")
    r = run_check(arclamp_bin, path)
    assert r.returncode == EX_CONFIG
    assert re.search(rb":1[0-9]:", r.stderr), r.stderr


GOOD_CONFIGS = [
    ("original_arclamp", "base_path: /srv/arclamp/logs\nredis:\n  host: 127.0.0.1\n"
     "  port: 6379\nredis_channel: excimer\n" + GOOD_LOGS),
    ("minimal", GOOD_LOGS),
    ("full", to_yaml({
        "base_path": "/tmp/arclamp-never-written", "redis_channel": "excimer",
        "redis_channels": ["excimer-wall"],
        "redis": {"host": "127.0.0.1", "port": 6380, "mode": "stream", "db": 2,
                  "connect_timeout": 0.5, "health_check_interval": 3.5, "socket_timeout": 2,
                  "socket_keepalive": True, "client_name": "arclamp", "password": "pw",
                  "reconnect_max_delay": 10, "stream_group": "g", "stream_consumer": "c",
                  "stream_batch": 100, "stream_delete_acked": False},
        "listen": ["udp://127.0.0.1:7761", "udp://[::1]:7761",
                   {"address": "unix:///tmp/arclamp-never/ingest.sock", "channel": "excimer-wall"}],
        "flush_interval": 0.25, "max_line_bytes": 65536, "max_message_bytes": 2097152,
        "max_buffer_bytes": 1048576, "max_open_files": 32, "close_idle_after": 30,
        "metrics_file": "/tmp/arclamp-never/metrics.prom", "metrics_interval": 5,
        "invalid_report_interval": 60, "log_target": "stderr",
        "logs": [{"period": "hourly", "format": "%Y-%m-%d_%H.excimer", "retain": 336,
                  "sample_pop": 2, "channels": ["excimer"]},
                 {"period": "daily", "format": "%Y-%m-%d.excimer-wall", "retain": 45,
                  "channels": ["excimer-wall"]}]}) + "\n"),
]


@pytest.mark.parametrize("name,text", GOOD_CONFIGS, ids=[c[0] for c in GOOD_CONFIGS])
def test_check_config_accepts_good_config(arclamp_bin, workdir, name, text):
    path = workdir / "arclamp-log.yaml"
    path.write_text(text)
    r = run_check(arclamp_bin, path)
    assert r.returncode == 0, r.stderr
    assert b"configuration OK" in r.stdout + r.stderr


def test_check_config_warns_about_unknown_redis_keys_and_accepts_them(arclamp_bin, workdir):
    """The original passes redis: to redis-py, so real files carry its keys:
    ours are honoured, the rest named in a warning (key and line), not refused."""
    path = workdir / "arclamp-log.yaml"
    path.write_text(GOOD_HEAD + "redis:\n  host: 127.0.0.1\n  prot: 6379\n"
                    "  decode_responses: true\n  socket_timeout: 5\n" + GOOD_LOGS)
    r = run_check(arclamp_bin, path)
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert b"configuration OK" in r.stdout
    assert err.splitlines() == [
        "arclamp-log: warning: %s:6: redis.prot: unknown key, ignored" % path,
        "arclamp-log: warning: %s:7: redis.decode_responses: unknown key, ignored" % path,
    ]


def test_check_config_via_config_option(arclamp_bin, workdir):
    path = workdir / "arclamp-log.yaml"
    path.write_text(GOOD_LOGS)
    r = subprocess.run([arclamp_bin, "--config", str(path), "--check-config"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
    assert r.returncode == 0, r.stderr
    path.write_text(GOOD_LOGS + "bogus: 1\n")
    r = subprocess.run([arclamp_bin, "--config", str(path), "--check-config"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
    assert r.returncode == EX_CONFIG


def test_unknown_option_exits_64_and_version_exits_0(arclamp_bin):
    r = subprocess.run([arclamp_bin, "--no-such-option"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=20)
    assert r.returncode == EX_USAGE
    # what was wrong and where to look, in two lines: not the whole help
    err = r.stderr.decode().splitlines()
    assert len(err) == 2 and "--no-such-option" in err[0], err
    assert err[1] == "Try 'arclamp-log --help' for more information.", err
    assert r.stdout == b""
    r = subprocess.run([arclamp_bin, "--version"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=20)
    assert r.returncode == 0
    assert re.search(rb"\d+\.\d+", r.stdout + r.stderr)


def test_daemon_started_with_bad_config_exits_78(daemon_factory, workdir):
    d = daemon_factory(GOOD_HEAD + GOOD_LOGS.replace("retain: 45", "retain: -1"))
    d.start(wait_ready=False)
    assert d.wait_exit(timeout=15) == EX_CONFIG
    assert "retain" in d.stderr_text()


def test_sighup_with_bad_new_config_keeps_old_one_and_good_reload_applies(daemon_factory, workdir):
    sock_path = workdir / "ingest.sock"
    cfg = base_config(workdir, listen=["unix://%s" % sock_path])
    d = daemon_factory(cfg).start()
    base = workdir / "logs"
    send_unix(sock_path, [sample_line(1, "hup")])
    wait_until(lambda: count_lines(base, "hourly") == 1, what="first line")

    # a broken file: reported, old configuration kept, daemon keeps running
    d.write_config(to_yaml(cfg) + "\nnot_a_key: 1\n")
    d.signal(signal.SIGHUP)
    wait_until(lambda: "not_a_key" in d.stderr_text(), what="bad reload reported on stderr")
    assert d.alive()
    send_unix(sock_path, [sample_line(2, "hup")])
    wait_until(lambda: count_lines(base, "hourly") == 2, what="line after failed reload")

    # a good new file with a third group: applied
    cfg2 = dict(cfg)
    cfg2["logs"] = cfg["logs"] + [{"period": "extra", "format": "%Y-%m-%d", "retain": 3}]
    d.write_config(to_yaml(cfg2) + "\n")
    mark = len(d.notify)
    d.signal(signal.SIGHUP)
    d.wait_ready(start=mark)
    send_unix(sock_path, [sample_line(3, "hup")])
    wait_until(lambda: count_lines(base, "extra") == 1, what="line in the new group")
    assert d.stop() == 0
    assert lines_of(base, "extra") == [sample_line(3, "hup")]
    assert sorted(lines_of(base, "hourly")) == sorted(sample_line(i, "hup") for i in (1, 2, 3))

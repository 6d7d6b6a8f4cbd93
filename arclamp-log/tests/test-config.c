/* Tests of arclamp-log's configuration: an original Arc Lamp file, the
 * defaults, channels, listen addresses and every refusal with key and line. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/config.h"
#include "strbuf.h"
#include "test-suites.h"

#define GOOD_LOGS                                                                           \
    "logs:\n"                                                                               \
    "  - period: hourly\n"                                                                  \
    "    format: '%Y-%m-%d_%H'\n"                                                           \
    "    retain: 24\n"

static char errbuf[1024];

static int load(const char *text, struct config *cfg)
{
    errbuf[0] = '\0';
    return config_load_string("c.yaml", text, cfg, errbuf, sizeof errbuf);
}

static void expect_ok(const char *text, struct config *cfg)
{
    ck_assert_msg(load(text, cfg) == 0, "refused: %s", errbuf);
}

/* Loads `text`, expects a refusal with exactly `want`, and checks that the
 * refused config was left empty (so a reload keeps nothing half-built). */
static void expect_error(const char *text, const char *want)
{
    struct config cfg;
    ck_assert_msg(load(text, &cfg) == -1, "accepted:\n%s", text);
    ck_assert_str_eq(errbuf, want);
    ck_assert_ptr_null(cfg.groups);
    ck_assert_ptr_null(cfg.base_path);
    config_free(&cfg); /* harmless on the emptied struct */
}

/* --- the original file and defaults ------------------------------------------------ */

START_TEST(loads_original_arclamp_config)
{
    static const char text[] = "base_path: /srv/xenon/logs\n"
                               "redis:\n"
                               "  host: 10.64.0.12\n"
                               "  port: 6380\n"
                               "redis_channel: excimer\n"
                               "logs:\n"
                               "  # 336 hours is 14 days * 24 hours\n"
                               "  - period: hourly\n"
                               "    format: '%Y-%m-%d_%H.excimer'\n"
                               "    retain: 336\n"
                               "  - period: daily\n"
                               "    format: '%Y-%m-%d.excimer'\n"
                               "    retain: 90\n";
    struct config cfg;
    expect_ok(text, &cfg);
    ck_assert_str_eq(cfg.path, "c.yaml");
    ck_assert_str_eq(cfg.base_path, "/srv/xenon/logs");
    ck_assert_int_eq(cfg.redis_enabled, 1);
    ck_assert_str_eq(cfg.redis.host, "10.64.0.12");
    ck_assert_int_eq(cfg.redis.port, 6380);
    ck_assert_int_eq(cfg.redis.mode, REDIS_MODE_PUBSUB);
    ck_assert_str_eq(cfg.redis_channel, "excimer");
    ck_assert_uint_eq(cfg.nchannels, 1);
    ck_assert_str_eq(cfg.channels[0], "excimer");
    ck_assert_uint_eq(cfg.ngroups, 2);
    ck_assert_str_eq(cfg.groups[0].period, "hourly");
    ck_assert_str_eq(cfg.groups[0].format, "%Y-%m-%d_%H.excimer");
    ck_assert_int_eq(cfg.groups[0].retain, 336);
    ck_assert_int_eq(cfg.groups[0].sample_pop, 1);
    ck_assert_ptr_null(cfg.groups[0].channels);
    ck_assert_str_eq(cfg.groups[1].period, "daily");
    ck_assert_str_eq(cfg.groups[1].format, "%Y-%m-%d.excimer");
    ck_assert_int_eq(cfg.groups[1].retain, 90);
    ck_assert_uint_eq(cfg.nlisten, 0);
    config_free(&cfg);
    ck_assert_ptr_null(cfg.groups);
}
END_TEST

START_TEST(defaults_apply_to_unset_keys)
{
    struct config cfg;
    expect_ok(GOOD_LOGS, &cfg);
    ck_assert_str_eq(cfg.base_path, "/srv/arclamp/logs");
    ck_assert_ptr_null(cfg.redis_channel); /* unset; the channel list has the default */
    ck_assert_uint_eq(cfg.nchannels, 1);
    ck_assert_str_eq(cfg.channels[0], "excimer");
    ck_assert_double_eq_tol(cfg.flush_interval, 1.0, 1e-12);
    ck_assert_int_eq(cfg.max_line_bytes, 262144);
    ck_assert_int_eq(cfg.max_message_bytes, 1048576);
    ck_assert_int_eq(cfg.max_buffer_bytes, 4194304);
    ck_assert_int_eq(cfg.max_open_files, 256);
    ck_assert_int_eq(cfg.max_tags_per_bucket, 300);
    ck_assert_int_eq(cfg.max_files_per_period, 50000);
    ck_assert_int_eq(cfg.min_free_disk_bytes, 0);
    ck_assert_int_eq(cfg.min_free_disk_percent, 1);
    ck_assert_double_eq_tol(cfg.close_idle_after, 60.0, 1e-12);
    ck_assert_ptr_null(cfg.metrics_file);
    ck_assert_double_eq_tol(cfg.metrics_interval, 15.0, 1e-12);
    ck_assert_double_eq_tol(cfg.invalid_report_interval, 10.0, 1e-12);
    ck_assert_str_eq(cfg.log_target, "auto");
    ck_assert_uint_eq(cfg.nlisten, 0);
    /* the redis defaults are set even without a redis: section */
    ck_assert_str_eq(cfg.redis.host, "127.0.0.1");
    ck_assert_int_eq(cfg.redis.port, 6379);
    ck_assert_ptr_null(cfg.redis.unix_socket);
    ck_assert_ptr_null(cfg.redis.password);
    ck_assert_int_eq(cfg.redis.db, 0);
    ck_assert_int_eq(cfg.redis.mode, REDIS_MODE_PUBSUB);
    ck_assert_double_eq_tol(cfg.redis.connect_timeout, 2.0, 1e-12);
    ck_assert_double_eq_tol(cfg.redis.health_check_interval, 15.0, 1e-12);
    ck_assert_double_eq_tol(cfg.redis.reconnect_max_delay, 30.0, 1e-12);
    ck_assert_str_eq(cfg.redis.stream_group, "arclamp-log");
    ck_assert_int_eq(cfg.redis.stream_batch, 1000);
    ck_assert_int_eq(cfg.redis.stream_delete_acked, 1);
    ck_assert_int_eq(cfg.redis.socket_buffer_bytes, 33554432);
    config_free(&cfg);
}
END_TEST

START_TEST(stream_consumer_defaults_to_host_name)
{
    char host[256] = "";
    gethostname(host, sizeof host);
    struct config cfg;
    expect_ok(GOOD_LOGS, &cfg);
    ck_assert_ptr_nonnull(cfg.redis.stream_consumer);
    ck_assert_uint_gt(strlen(cfg.redis.stream_consumer), 0);
    if (host[0])
        ck_assert_str_eq(cfg.redis.stream_consumer, host);
    config_free(&cfg);

    expect_ok("redis:\n  mode: stream\n  stream_consumer: worker-1\n  stream_delete_acked: off\n"
              "  stream_batch: 50\n  db: 3\n" GOOD_LOGS,
              &cfg);
    ck_assert_int_eq(cfg.redis.mode, REDIS_MODE_STREAM);
    ck_assert_str_eq(cfg.redis.stream_consumer, "worker-1");
    ck_assert_int_eq(cfg.redis.stream_delete_acked, 0);
    ck_assert_int_eq(cfg.redis.stream_batch, 50);
    ck_assert_int_eq(cfg.redis.db, 3);
    config_free(&cfg);
}
END_TEST

START_TEST(redis_absent_disables_redis)
{
    struct config cfg;
    expect_ok("base_path: /x\n" GOOD_LOGS, &cfg);
    ck_assert_int_eq(cfg.redis_enabled, 0);
    config_free(&cfg);
    expect_ok("redis:\n" GOOD_LOGS, &cfg); /* an empty section is no section */
    ck_assert_int_eq(cfg.redis_enabled, 0);
    config_free(&cfg);
    expect_ok("redis: {}\n" GOOD_LOGS, &cfg);
    ck_assert_int_eq(cfg.redis_enabled, 1);
    config_free(&cfg);
}
END_TEST

START_TEST(durations_accept_fractions)
{
    struct config cfg;
    expect_ok("flush_interval: 0.25\nclose_idle_after: 1.5\nredis:\n  connect_timeout: 0.5\n"
              GOOD_LOGS,
              &cfg);
    ck_assert_double_eq_tol(cfg.flush_interval, 0.25, 1e-12);
    ck_assert_double_eq_tol(cfg.close_idle_after, 1.5, 1e-12);
    ck_assert_double_eq_tol(cfg.redis.connect_timeout, 0.5, 1e-12);
    config_free(&cfg);
}
END_TEST

START_TEST(group_sample_pop_and_channels_are_read)
{
    struct config cfg;
    expect_ok("logs:\n"
              "  - period: cpu\n"
              "    format: '%Y'\n"
              "    retain: 2\n"
              "    sample_pop: 10\n"
              "    channels: [excimer, excimer-wall]\n",
              &cfg);
    ck_assert_int_eq(cfg.groups[0].sample_pop, 10);
    ck_assert_uint_eq(cfg.groups[0].nchannels, 2);
    ck_assert_str_eq(cfg.groups[0].channels[0], "excimer");
    ck_assert_str_eq(cfg.groups[0].channels[1], "excimer-wall");
    config_free(&cfg);
}
END_TEST

START_TEST(loads_from_file_and_names_it_in_errors)
{
    char *dir = tmpdir_make();
    char *path = path_join(dir, "arclamp-log.yaml");
    const char *good = "base_path: /srv/logs\n" GOOD_LOGS;
    file_write(path, good, strlen(good));
    struct config cfg;
    ck_assert_int_eq(config_load(path, &cfg, errbuf, sizeof errbuf), 0);
    ck_assert_str_eq(cfg.path, path);
    ck_assert_str_eq(cfg.base_path, "/srv/logs");
    config_free(&cfg);

    const char *bad = "base_path: /srv/logs\nbogus: 1\n" GOOD_LOGS;
    file_write(path, bad, strlen(bad));
    ck_assert_int_eq(config_load(path, &cfg, errbuf, sizeof errbuf), -1);
    char want[512];
    snprintf(want, sizeof want, "%s:2: bogus: unknown key", path);
    ck_assert_str_eq(errbuf, want);

    unlink(path);
    ck_assert_int_eq(config_load(path, &cfg, errbuf, sizeof errbuf), -1);
    snprintf(want, sizeof want, "%s: No such file or directory", path);
    ck_assert_str_eq(errbuf, want);
    config_free(&cfg);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(help_lists_keys_of_all_tables)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    config_print_help(out);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(text, "  base_path "));
    ck_assert_ptr_nonnull(strstr(text, "  redis.port "));
    ck_assert_ptr_nonnull(strstr(text, "  redis.stream_delete_acked "));
    ck_assert_ptr_nonnull(strstr(text, "  logs[].retain "));
    ck_assert_ptr_nonnull(strstr(text, "  logs[].sample_pop "));
    ck_assert_ptr_nonnull(strstr(text, "(default: 262144)"));
    free(text);
}
END_TEST

/* --- channels ------------------------------------------------------------------ */

START_TEST(redis_channels_merge_with_redis_channel_without_duplicates)
{
    struct config cfg;
    expect_ok("redis_channel: excimer\n"
              "redis_channels: [excimer-wall, excimer, other, excimer-wall]\n" GOOD_LOGS,
              &cfg);
    ck_assert_uint_eq(cfg.nchannels, 3);
    ck_assert_str_eq(cfg.channels[0], "excimer");
    ck_assert_str_eq(cfg.channels[1], "excimer-wall");
    ck_assert_str_eq(cfg.channels[2], "other");
    config_free(&cfg);
}
END_TEST

START_TEST(redis_channels_accepts_a_single_string)
{
    struct config cfg;
    expect_ok("redis_channel: a\nredis_channels: b\n" GOOD_LOGS, &cfg);
    ck_assert_uint_eq(cfg.nchannels, 2);
    ck_assert_str_eq(cfg.channels[0], "a");
    ck_assert_str_eq(cfg.channels[1], "b");
    config_free(&cfg);
}
END_TEST

START_TEST(null_redis_channel_leaves_only_redis_channels)
{
    struct config cfg;
    expect_ok("redis_channel: ~\nredis_channels: [a, b]\n" GOOD_LOGS, &cfg);
    ck_assert_uint_eq(cfg.nchannels, 2);
    ck_assert_str_eq(cfg.channels[0], "a");
    ck_assert_str_eq(cfg.channels[1], "b");
    config_free(&cfg);
    expect_ok("redis_channel: ~\n" GOOD_LOGS, &cfg); /* no channel at all: excimer */
    ck_assert_uint_eq(cfg.nchannels, 1);
    ck_assert_str_eq(cfg.channels[0], "excimer");
    config_free(&cfg);
}
END_TEST

START_TEST(groups_for_channel_follow_per_group_channels)
{
    struct config cfg;
    expect_ok("redis_channels: [excimer-wall]\n"
              "logs:\n"
              "  - {period: cpu, format: '%Y', retain: 1, channels: [excimer]}\n"
              "  - {period: wall, format: '%Y', retain: 1, channels: excimer-wall}\n"
              "  - {period: both, format: '%Y', retain: 1}\n"
              "  - {period: two, format: '%Y', retain: 1, channels: [excimer, excimer-wall]}\n",
              &cfg);
    ck_assert_uint_eq(config_groups_for_channel(&cfg, "excimer"), 0x1 | 0x4 | 0x8);
    ck_assert_uint_eq(config_groups_for_channel(&cfg, "excimer-wall"), 0x2 | 0x4 | 0x8);
    ck_assert_uint_eq(config_groups_for_channel(&cfg, "unknown"), 0x4);
    ck_assert_uint_eq(config_groups_for_channel(&cfg, "excimer-"), 0x4);
    config_free(&cfg);
}
END_TEST

/* 64 groups: the largest mask, every bit used. */
static char *many_groups_yaml(int n)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appends(&sb, "base_path: /x\nlogs:\n");
    for (int i = 0; i < n; i++)
        strbuf_appendf(&sb, "  - period: g%d\n    format: '%%Y'\n    retain: 1\n", i);
    return (char *)strbuf_cstr(&sb);
}

START_TEST(sixty_four_groups_are_accepted_and_all_masked)
{
    char *text = many_groups_yaml(64);
    struct config cfg;
    expect_ok(text, &cfg);
    ck_assert_uint_eq(cfg.ngroups, 64);
    ck_assert_str_eq(cfg.groups[63].period, "g63");
    ck_assert_uint_eq(config_groups_for_channel(&cfg, "excimer"), ~0ULL);
    config_free(&cfg);
    free(text);
}
END_TEST

START_TEST(refuses_more_than_64_groups)
{
    char *text = many_groups_yaml(65);
    expect_error(text, "c.yaml:3: logs: at most 64 log groups");
    free(text);
}
END_TEST

/* --- listen -------------------------------------------------------------------- */

START_TEST(listen_accepts_strings_and_maps)
{
    struct config cfg;
    expect_ok("listen:\n"
              "  - udp://127.0.0.1:7761\n"
              "  - udp://[::1]:7761\n"
              "  - unix:///run/arclamp/ingest.sock\n"
              "  - address: udp://127.0.0.1:7762\n"
              "    channel: excimer-wall\n"
              "  - {address: 'unix:///run/x.sock'}\n" GOOD_LOGS,
              &cfg);
    ck_assert_uint_eq(cfg.nlisten, 5);
    ck_assert_str_eq(cfg.listen[0].address, "udp://127.0.0.1:7761");
    ck_assert_ptr_null(cfg.listen[0].channel);
    ck_assert_str_eq(cfg.listen[1].address, "udp://[::1]:7761");
    ck_assert_str_eq(cfg.listen[2].address, "unix:///run/arclamp/ingest.sock");
    ck_assert_str_eq(cfg.listen[3].address, "udp://127.0.0.1:7762");
    ck_assert_str_eq(cfg.listen[3].channel, "excimer-wall");
    ck_assert_str_eq(cfg.listen[4].address, "unix:///run/x.sock");
    ck_assert_ptr_null(cfg.listen[4].channel);
    config_free(&cfg);
}
END_TEST

START_TEST(refuses_udp_address_without_port)
{
    expect_error("listen:\n  - udp://127.0.0.1:7761\n  - udp://127.0.0.1\n" GOOD_LOGS,
                 "c.yaml:3: listen[1]: expected udp://HOST:PORT");
    expect_error("listen:\n  - 'udp://127.0.0.1:'\n" GOOD_LOGS,
                 "c.yaml:2: listen[0]: expected udp://HOST:PORT");
    expect_error("listen:\n  - 'udp://:7761'\n" GOOD_LOGS,
                 "c.yaml:2: listen[0]: expected udp://HOST:PORT");
}
END_TEST

START_TEST(refuses_udp_port_out_of_range)
{
    expect_error("listen:\n  - udp://127.0.0.1:70000\n" GOOD_LOGS,
                 "c.yaml:2: listen[0]: expected a port from 1 to 65535");
    expect_error("listen:\n  - udp://127.0.0.1:0\n" GOOD_LOGS,
                 "c.yaml:2: listen[0]: expected a port from 1 to 65535");
    expect_error("listen:\n  - udp://127.0.0.1:http\n" GOOD_LOGS,
                 "c.yaml:2: listen[0]: expected a port from 1 to 65535");
}
END_TEST

START_TEST(refuses_other_address_schemes)
{
    expect_error("listen:\n  - http://127.0.0.1:80\n" GOOD_LOGS,
                 "c.yaml:2: listen[0]: expected udp://HOST:PORT or unix:///PATH");
    expect_error("listen:\n  - 127.0.0.1:7761\n" GOOD_LOGS,
                 "c.yaml:2: listen[0]: expected udp://HOST:PORT or unix:///PATH");
    expect_error("listen:\n  - unix://run/x.sock\n" GOOD_LOGS,
                 "c.yaml:2: listen[0]: expected unix:///absolute/path");
    expect_error("listen:\n  - unix:///\n" GOOD_LOGS,
                 "c.yaml:2: listen[0]: expected unix:///absolute/path");
}
END_TEST

START_TEST(refuses_listen_that_is_not_a_list)
{
    expect_error("listen: udp://127.0.0.1:7761\n" GOOD_LOGS,
                 "c.yaml:1: listen: expected a list of addresses");
}
END_TEST

START_TEST(refuses_listen_map_with_unknown_key)
{
    expect_error("listen:\n  - address: udp://127.0.0.1:1\n    port: 5\n" GOOD_LOGS,
                 "c.yaml:3: listen[0]: unknown key \"port\"");
}
END_TEST

START_TEST(refuses_listen_map_without_address)
{
    expect_error("listen:\n  - channel: excimer\n" GOOD_LOGS,
                 "c.yaml:2: listen[0]: address is missing");
}
END_TEST

START_TEST(refuses_null_listen_address)
{
    expect_error("listen:\n  - ~\n" GOOD_LOGS, "c.yaml:2: listen[0]: address is empty");
}
END_TEST

/* --- other refusals ------------------------------------------------------------- */

START_TEST(refuses_unknown_key_with_line)
{
    expect_error("base_path: /x\nbogus: 1\n" GOOD_LOGS, "c.yaml:2: bogus: unknown key");
    expect_error(GOOD_LOGS "    keep: 2\n", "c.yaml:5: logs[0].keep: unknown key");
}
END_TEST

/* The original hands redis: to redis-py: its keys are honoured or, when they
 * mean nothing here, ignored with a warning that names the key and line. */
START_TEST(unknown_redis_keys_are_ignored_with_a_warning)
{
    struct config cfg;
    expect_ok("redis:\n  hots: x\n  decode_responses: true\n  retry_on_timeout: true\n"
              GOOD_LOGS, &cfg);
    ck_assert_ptr_nonnull(cfg.warnings);
    ck_assert_str_eq(cfg.warnings, "c.yaml:2: redis.hots: unknown key, ignored\n"
                                   "c.yaml:3: redis.decode_responses: unknown key, ignored\n"
                                   "c.yaml:4: redis.retry_on_timeout: unknown key, ignored\n");
    ck_assert_str_eq(cfg.redis.host, "127.0.0.1");
    config_free(&cfg);
    expect_ok("redis:\n  host: r1\n" GOOD_LOGS, &cfg);
    ck_assert_ptr_null(cfg.warnings);
    config_free(&cfg);
}
END_TEST

START_TEST(redis_py_keys_are_honoured)
{
    struct config cfg;
    expect_ok("redis:\n"
              "  unix_socket_path: /run/redis/redis.sock\n"
              "  socket_timeout: 2.5\n"
              "  socket_connect_timeout: 0.5\n"
              "  db: 3\n"
              "  password: s3cret\n"
              "  socket_keepalive: false\n"
              "  client_name: arclamp-tier2\n"
              "  ssl: false\n" GOOD_LOGS,
              &cfg);
    ck_assert_ptr_null(cfg.warnings);
    ck_assert_str_eq(cfg.redis.unix_socket, "/run/redis/redis.sock");
    ck_assert(cfg.redis.socket_timeout == 2.5);
    ck_assert(cfg.redis.connect_timeout == 0.5);
    ck_assert_int_eq(cfg.redis.db, 3);
    ck_assert_str_eq(cfg.redis.password, "s3cret");
    ck_assert_int_eq(cfg.redis.keepalive, 0);
    ck_assert_str_eq(cfg.redis.client_name, "arclamp-tier2");
    config_free(&cfg);
}
END_TEST

START_TEST(redis_py_none_and_zero_keep_working_defaults)
{
    struct config cfg;
    /* redis-py's None (block forever) and health_check_interval 0 (no checks):
     * the daemon keeps its health check, with its defaults. */
    expect_ok("redis:\n  socket_timeout: null\n  socket_connect_timeout: ~\n"
              "  health_check_interval: 0\n  password: null\n" GOOD_LOGS, &cfg);
    ck_assert(cfg.redis.health_check_interval == 15);
    ck_assert(cfg.redis.socket_timeout == 15);
    ck_assert(cfg.redis.connect_timeout == 2);
    ck_assert_ptr_null(cfg.redis.password);
    ck_assert_int_eq(cfg.redis.keepalive, 1);
    config_free(&cfg);
    expect_ok("redis:\n  health_check_interval: 4\n" GOOD_LOGS, &cfg);
    ck_assert(cfg.redis.socket_timeout == 4);
    config_free(&cfg);
}
END_TEST

START_TEST(refuses_both_spellings_of_a_redis_key)
{
    expect_error("redis:\n  unix_socket: /a\n  unix_socket_path: /b\n" GOOD_LOGS,
                 "c.yaml:3: redis.unix_socket_path: give unix_socket or unix_socket_path, "
                 "not both");
    expect_error("redis:\n  socket_connect_timeout: 1\n  connect_timeout: 1\n" GOOD_LOGS,
                 "c.yaml:2: redis.socket_connect_timeout: give connect_timeout or "
                 "socket_connect_timeout, not both");
}
END_TEST

START_TEST(refuses_redis_ssl)
{
    expect_error("redis:\n  host: r\n  ssl: true\n" GOOD_LOGS,
                 "c.yaml:3: redis.ssl: TLS is not supported; connect through a local TLS proxy "
                 "(stunnel, spiped) instead of sending the password in clear");
}
END_TEST

START_TEST(refuses_missing_logs)
{
    expect_error("base_path: /x\nredis_channel: excimer\n", "c.yaml:1: logs: required key missing");
    expect_error("", "c.yaml:0: logs: required key missing (the file is empty)");
    expect_error("# nothing\n", "c.yaml:0: logs: required key missing (the file is empty)");
}
END_TEST

START_TEST(refuses_logs_that_is_not_a_list_of_groups)
{
    expect_error("logs: []\n", "c.yaml:1: logs: expected a list of log groups");
    expect_error("logs:\n", "c.yaml:1: logs: expected a list of log groups");
    expect_error("logs:\n  period: hourly\n", "c.yaml:2: logs: expected a list of log groups");
    expect_error("logs:\n  - hourly\n", "c.yaml:2: logs[0]: expected a mapping");
}
END_TEST

START_TEST(refuses_group_without_retain)
{
    expect_error("logs:\n  - period: hourly\n    format: '%Y'\n",
                 "c.yaml:2: logs[0]: retain is missing");
}
END_TEST

START_TEST(refuses_retain_zero_negative_or_not_a_number)
{
    expect_error("logs:\n  - period: hourly\n    format: '%Y'\n    retain: 0\n",
                 "c.yaml:4: logs[0].retain: expected an integer from 1 to 1000000, got \"0\"");
    expect_error("logs:\n  - period: hourly\n    format: '%Y'\n    retain: -1\n",
                 "c.yaml:4: logs[0].retain: expected an integer from 1 to 1000000, got \"-1\"");
}
END_TEST

START_TEST(refuses_retain_many_as_in_the_readme)
{
    struct config cfg;
    ck_assert_int_eq(config_load_string("arclamp-log.yaml",
                                        "logs:\n"
                                        "  - period: hourly\n"
                                        "    format: '%Y-%m-%d_%H'\n"
                                        "    retain: 24\n"
                                        "  - period: daily\n"
                                        "    format: '%Y-%m-%d'\n"
                                        "    retain: many\n",
                                        &cfg, errbuf, sizeof errbuf),
                     -1);
    ck_assert_str_eq(errbuf, "arclamp-log.yaml:7: logs[1].retain: expected an integer from 1 "
                             "to 1000000, got \"many\"");
}
END_TEST

START_TEST(refuses_format_with_slash)
{
    expect_error("logs:\n  - period: h\n    format: '%Y/%m'\n    retain: 1\n",
                 "c.yaml:3: logs[0].format: must not contain '/'");
}
END_TEST

START_TEST(refuses_unsupported_format_conversion)
{
    expect_error("logs:\n  - period: h\n    format: '%Y-%a'\n    retain: 1\n",
                 "c.yaml:3: logs[0].format: unsupported conversion; supported: %Y %y %G %m %d "
                 "%e %H %M %S %j %U %W %V %u %w %s %%");
}
END_TEST

START_TEST(refuses_missing_period_or_format)
{
    expect_error("logs:\n  - format: '%Y'\n    retain: 1\n",
                 "c.yaml:2: logs[0]: period is missing");
    expect_error("logs:\n  - period: ''\n    format: '%Y'\n    retain: 1\n",
                 "c.yaml:2: logs[0]: period is missing");
    expect_error("logs:\n  - period: h\n    retain: 1\n", "c.yaml:2: logs[0]: format is missing");
}
END_TEST

START_TEST(refuses_period_dotdot)
{
    expect_error(GOOD_LOGS "  - period: ..\n    format: '%Y'\n    retain: 1\n",
                 "c.yaml:5: logs[1].period: must be one directory name, not \"..\"");
    expect_error("logs:\n  - period: .\n    format: '%Y'\n    retain: 1\n",
                 "c.yaml:2: logs[0].period: must be one directory name, not \".\"");
}
END_TEST

START_TEST(refuses_period_with_slash)
{
    expect_error("logs:\n  - period: a/b\n    format: '%Y'\n    retain: 1\n",
                 "c.yaml:2: logs[0].period: must be one directory name, not \"a/b\"");
    expect_error("logs:\n  - period: /etc\n    format: '%Y'\n    retain: 1\n",
                 "c.yaml:2: logs[0].period: must be one directory name, not \"/etc\"");
}
END_TEST

START_TEST(refuses_relative_base_path)
{
    expect_error("base_path: srv/logs\n" GOOD_LOGS,
                 "c.yaml:1: base_path: must be an absolute path");
    expect_error("\nbase_path: ~\n" GOOD_LOGS, "c.yaml:2: base_path: must be an absolute path");
}
END_TEST

START_TEST(refuses_bad_redis_mode)
{
    expect_error("redis:\n  host: x\n  mode: fifo\n" GOOD_LOGS,
                 "c.yaml:3: redis.mode: expected one of pubsub|stream, got \"fifo\"");
}
END_TEST

START_TEST(refuses_redis_port_out_of_range)
{
    expect_error("redis:\n  port: 0\n" GOOD_LOGS,
                 "c.yaml:2: redis.port: expected an integer from 1 to 65535, got \"0\"");
    expect_error("redis:\n  port: 65536\n" GOOD_LOGS,
                 "c.yaml:2: redis.port: expected an integer from 1 to 65535, got \"65536\"");
}
END_TEST

START_TEST(redis_socket_buffer_bytes_zero_keeps_system_default)
{
    struct config cfg;
    expect_ok("redis:\n  socket_buffer_bytes: 0\n" GOOD_LOGS, &cfg);
    ck_assert_int_eq(cfg.redis.socket_buffer_bytes, 0);
    config_free(&cfg);
    expect_error("redis:\n  socket_buffer_bytes: -1\n" GOOD_LOGS,
                 "c.yaml:2: redis.socket_buffer_bytes: expected an integer from 0 to 1073741824, "
                 "got \"-1\"");
    expect_error("redis:\n  socket_buffer_bytes: 2147483648\n" GOOD_LOGS,
                 "c.yaml:2: redis.socket_buffer_bytes: expected an integer from 0 to 1073741824, "
                 "got \"2147483648\"");
}
END_TEST

START_TEST(refuses_bad_log_target)
{
    expect_error(GOOD_LOGS "log_target: syslog\n",
                 "c.yaml:5: log_target: expected auto, journal or stderr");
}
END_TEST

START_TEST(refuses_limits_out_of_range)
{
    expect_error("flush_interval: 0\n" GOOD_LOGS,
                 "c.yaml:1: flush_interval: expected seconds from 0.01 to 60, got \"0\"");
    expect_error("max_open_files: 3\n" GOOD_LOGS,
                 "c.yaml:1: max_open_files: expected an integer from 4 to 65536, got \"3\"");
    expect_error("max_buffer_bytes: 1000\n" GOOD_LOGS,
                 "c.yaml:1: max_buffer_bytes: expected an integer from 65536 to 1073741824, got "
                 "\"1000\"");
}
END_TEST

START_TEST(refuses_bad_group_channels)
{
    expect_error(GOOD_LOGS "    channels: {a: 1}\n",
                 "c.yaml:5: logs[0].channels: expected a list of strings");
    expect_error(GOOD_LOGS "    channels: [a, '']\n",
                 "c.yaml:5: logs[0].channels: expected a non-empty string");
    expect_error("redis_channels: [[a]]\n" GOOD_LOGS,
                 "c.yaml:1: redis_channels: expected a non-empty string");
}
END_TEST

START_TEST(reads_password_file_first_line)
{
    char *dir = tmpdir_make();
    char *pw = path_join(dir, "pw");
    file_write(pw, "s3cret\r\nsecond line\n", 20);
    strbuf text = STRBUF_INIT;
    strbuf_appendf(&text, "redis:\n  password: ignored\n  password_file: %s\n", pw);
    strbuf_appends(&text, GOOD_LOGS);
    struct config cfg;
    expect_ok(strbuf_cstr(&text), &cfg);
    ck_assert_str_eq(cfg.redis.password, "s3cret");
    config_free(&cfg);

    file_write(pw, "\n", 1);
    ck_assert_int_eq(load(strbuf_cstr(&text), &cfg), -1);
    char want[512];
    snprintf(want, sizeof want, "c.yaml:3: redis.password_file: %s is empty", pw);
    ck_assert_str_eq(errbuf, want);

    unlink(pw);
    ck_assert_int_eq(load(strbuf_cstr(&text), &cfg), -1);
    snprintf(want, sizeof want, "c.yaml:3: redis.password_file: %s: No such file or directory",
             pw);
    ck_assert_str_eq(errbuf, want);
    strbuf_free(&text);
    free(pw);
    tmpdir_remove(dir);
}
END_TEST

/* Bytes still allocated after refusing `text` 100 times (after a warm-up),
 * from glibc's counters; a leak of even one string per call shows as >= 3200.
 * (Under ASan the counters do not move; LeakSanitizer reports leaks instead.) */
static ssize_t bytes_kept_by_refusals(const char *text)
{
    struct config cfg;
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(load(text, &cfg), -1);
    struct mallinfo2 before = mallinfo2();
    int refused = 0;
    for (int i = 0; i < 100; i++)
        refused += load(text, &cfg) == -1;
    struct mallinfo2 after = mallinfo2();
    ck_assert_int_eq(refused, 100);
    return (ssize_t)(after.uordblks - before.uordblks);
}

START_TEST(refused_config_keeps_no_memory)
{
    static const char *const texts[] = {
        "bogus: 1\n" GOOD_LOGS,
        "redis_channels: [a, [b]]\n" GOOD_LOGS,
        GOOD_LOGS "  - period: ..\n    format: '%Y'\n    retain: 1\n",
        GOOD_LOGS "    channels: [a, '']\n",
        "listen:\n  - address: udp://127.0.0.1:1\n    port: 5\n" GOOD_LOGS,
        "redis:\n  password_file: /nonexistent/arclamp-test\n" GOOD_LOGS,
        "log_target: syslog\n" GOOD_LOGS,
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        ssize_t kept = bytes_kept_by_refusals(texts[i]);
        ck_assert_msg(kept < 1600, "refusing config %zu kept %zd bytes", i, kept);
    }
}
END_TEST

/* A refused listen entry must free the strings already copied for it: the
 * address refused by check_listen_address, or the channel of a map without
 * address (each refused reload would leak them). */
START_TEST(refused_listen_entry_strings_are_freed)
{
    static const char *const texts[] = {
        "listen:\n  - udp://127.0.0.1\n" GOOD_LOGS,
        "listen:\n  - udp://127.0.0.1:7761\n  - udp://127.0.0.1:70000\n" GOOD_LOGS,
        "listen:\n  - channel: excimer\n" GOOD_LOGS,
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        ssize_t kept = bytes_kept_by_refusals(texts[i]);
        ck_assert_msg(kept < 1600, "refusing listen config %zu 100 times kept %zd bytes", i,
                      kept);
    }
}
END_TEST

/* Tags may contain dots, so "<bucket>.<tag>.log" of one group can equal
 * another group's name when both write to one directory and one format is
 * the other's plus ".something". */
START_TEST(groups_whose_names_can_collide_in_one_directory_are_refused)
{
    struct config cfg;
    ck_assert_int_eq(load("logs:\n"
                          "  - {period: h, format: '%Y-%m-%d', retain: 5}\n"
                          "  - {period: h, format: '%Y-%m-%d.wall', retain: 5}\n", &cfg), -1);
    ck_assert_msg(strstr(errbuf, "c.yaml:3: logs[1].format: ") != NULL, "%s", errbuf);
    ck_assert_int_eq(load("logs:\n"
                          "  - {period: h, format: '%Y', retain: 5, channels: [a]}\n"
                          "  - {period: h, format: '%Y', retain: 5, channels: [b]}\n", &cfg), -1);
    /* Wikimedia's production pair shares a directory safely. */
    expect_ok("logs:\n"
              "  - {period: hourly, format: '%Y-%m-%d_%H.excimer', retain: 5}\n"
              "  - {period: hourly, format: '%Y-%m-%d_%H.excimer-wall', retain: 5}\n", &cfg);
    config_free(&cfg);
}
END_TEST

START_TEST(buffer_not_larger_than_a_line_is_refused)
{
    struct config cfg;
    ck_assert_int_eq(load("max_line_bytes: 200000\nmax_buffer_bytes: 65536\n"
                          "logs: [{period: h, format: '%Y', retain: 1}]\n", &cfg), -1);
    ck_assert_msg(strstr(errbuf, "max_buffer_bytes: must be larger than max_line_bytes") != NULL,
                  "%s", errbuf);
}
END_TEST

START_TEST(redis_channels_alone_do_not_add_the_default_channel)
{
    struct config cfg;
    expect_ok("redis_channels: [a, b]\nlogs: [{period: h, format: '%Y', retain: 1}]\n", &cfg);
    ck_assert_uint_eq(cfg.nchannels, 2);
    ck_assert_str_eq(cfg.channels[0], "a");
    ck_assert_str_eq(cfg.channels[1], "b");
    config_free(&cfg);
}
END_TEST

START_TEST(base_path_too_long_for_trace_log_paths_is_refused)
{
    struct config cfg;
    char text[8192];
    char longdir[4000];
    memset(longdir, 'd', sizeof longdir - 1);
    longdir[sizeof longdir - 1] = '\0';
    snprintf(text, sizeof text, "base_path: /%s\nlogs: [{period: h, format: '%%Y', retain: 1}]\n",
             longdir);
    ck_assert_int_eq(load(text, &cfg), -1);
    ck_assert_msg(strstr(errbuf, "base_path: too long") != NULL, "%s", errbuf);
}
END_TEST

/* --- hierarchical runs ------------------------------------------------------------------ */

START_TEST(run_limits_have_defaults)
{
    struct config cfg;
    expect_ok(GOOD_LOGS, &cfg);
    ck_assert_int_eq(cfg.max_pending_runs, 1000);
    ck_assert_int_eq(cfg.max_run_bytes, 4194304);
    ck_assert_int_eq(cfg.max_pending_run_bytes, 67108864);
    ck_assert_double_eq_tol(cfg.run_timeout, 60, 1e-12);
    config_free(&cfg);
    expect_ok("max_pending_runs: 5\nmax_run_bytes: 8192\nmax_pending_run_bytes: 65536\n"
              "run_timeout: 0.5\n" GOOD_LOGS, &cfg);
    ck_assert_int_eq(cfg.max_pending_runs, 5);
    ck_assert_int_eq(cfg.max_run_bytes, 8192);
    ck_assert_int_eq(cfg.max_pending_run_bytes, 65536);
    ck_assert_double_eq_tol(cfg.run_timeout, 0.5, 1e-12);
    config_free(&cfg);
}
END_TEST

/* reserved_tier_identities: a list (or one string) of identities as the
 * application names them; each must be one the extension can send. */
START_TEST(reserved_tier_identities_are_checked)
{
    struct config cfg;
    expect_ok(GOOD_LOGS, &cfg);
    ck_assert_uint_eq(cfg.nreserved_tier_identities, 0);
    config_free(&cfg);
    expect_ok("reserved_tier_identities: [edit, \"api query\", caf\u00e9]\n" GOOD_LOGS, &cfg);
    ck_assert_uint_eq(cfg.nreserved_tier_identities, 3);
    ck_assert_str_eq(cfg.reserved_tier_identities[1], "api query");
    config_free(&cfg);
    expect_ok("reserved_tier_identities: edit\n" GOOD_LOGS, &cfg);
    ck_assert_uint_eq(cfg.nreserved_tier_identities, 1);
    config_free(&cfg);
    strbuf many = STRBUF_INIT;
    strbuf_appends(&many, "reserved_tier_identities:\n  - edit\n  - ");
    for (int i = 0; i < 256; i++)
        strbuf_appendc(&many, 'x');
    strbuf_appends(&many, "\n" GOOD_LOGS);
    expect_error(strbuf_cstr(&many), "c.yaml:3: reserved_tier_identities: entry 2 is no "
                                     "identity (1-255 bytes of UTF-8)");
    strbuf_reset(&many);
    strbuf_appends(&many, "reserved_tier_identities: [");
    for (int i = 0; i <= CONFIG_MAX_RESERVED_IDENTITIES; i++)
        strbuf_appendf(&many, "%sid%d", i ? ", " : "", i);
    strbuf_appends(&many, "]\n" GOOD_LOGS);
    expect_error(strbuf_cstr(&many), "c.yaml:1: reserved_tier_identities: 1001 entries, 1000 "
                                     "at most");
    strbuf_free(&many);
}
END_TEST

START_TEST(max_tier_identities_has_a_default_and_bounds)
{
    struct config cfg;
    expect_ok(GOOD_LOGS, &cfg);
    ck_assert_int_eq(cfg.max_tier_identities, 1000);
    config_free(&cfg);
    expect_ok("max_tier_identities: 3\n" GOOD_LOGS, &cfg);
    ck_assert_int_eq(cfg.max_tier_identities, 3);
    config_free(&cfg);
    expect_error("max_tier_identities: 0\n" GOOD_LOGS,
                 "c.yaml:1: max_tier_identities: expected an integer from 1 to 100000, got \"0\"");
}
END_TEST

/* Files that set a small max_buffer_bytes (64 KiB is allowed) keep loading:
 * the run limit follows it unless it is given. */
START_TEST(max_run_bytes_default_follows_a_smaller_buffer)
{
    struct config cfg;
    expect_ok("max_buffer_bytes: 65536\nmax_line_bytes: 1024\n" GOOD_LOGS, &cfg);
    ck_assert_int_eq(cfg.max_run_bytes, 65536);
    config_free(&cfg);
    expect_error("max_buffer_bytes: 65536\nmax_line_bytes: 1024\nmax_run_bytes: 65537\n" GOOD_LOGS,
                 "c.yaml:3: max_run_bytes: must not be larger than max_buffer_bytes (65536), or "
                 "a run could never be buffered");
    expect_error("max_run_bytes: 1048576\nmax_pending_run_bytes: 65536\n" GOOD_LOGS,
                 "c.yaml:2: max_pending_run_bytes: must not be smaller than max_run_bytes "
                 "(1048576)");
}
END_TEST

START_TEST(run_limits_out_of_range_are_refused)
{
    expect_error("max_pending_runs: 0\n" GOOD_LOGS,
                 "c.yaml:1: max_pending_runs: expected an integer from 1 to 100000, got \"0\"");
    expect_error("max_pending_runs: 100001\n" GOOD_LOGS,
                 "c.yaml:1: max_pending_runs: expected an integer from 1 to 100000, got "
                 "\"100001\"");
    expect_error("max_run_bytes: 100\n" GOOD_LOGS,
                 "c.yaml:1: max_run_bytes: expected an integer from 4096 to 1073741824, got "
                 "\"100\"");
    expect_error("max_pending_run_bytes: 1000\n" GOOD_LOGS,
                 "c.yaml:1: max_pending_run_bytes: expected an integer from 65536 to "
                 "17179869184, got \"1000\"");
    struct config cfg;
    ck_assert_int_eq(load("run_timeout: 0\n" GOOD_LOGS, &cfg), -1);
    ck_assert_msg(strstr(errbuf, "c.yaml:1: run_timeout:") != NULL, "%s", errbuf);
    ck_assert_int_eq(load("run_timeout: soon\n" GOOD_LOGS, &cfg), -1);
    ck_assert_msg(strstr(errbuf, "c.yaml:1: run_timeout:") != NULL, "%s", errbuf);
}
END_TEST

/* Without a channel key the extension's run and tier channels are read too
 * when Redis is; the original's files always name redis_channel and keep
 * one channel. */
START_TEST(default_channels_add_xhprof_and_tiers_only_with_redis_and_no_channel_key)
{
    struct config cfg;
    expect_ok("redis: {host: localhost}\n" GOOD_LOGS, &cfg);
    ck_assert_uint_eq(cfg.nchannels, 3);
    ck_assert_str_eq(cfg.channels[0], "excimer");
    ck_assert_str_eq(cfg.channels[1], "xhprof");
    ck_assert_str_eq(cfg.channels[2], "tiers");
    config_free(&cfg);
    expect_ok("redis: {host: localhost}\nredis_channel: excimer\n" GOOD_LOGS, &cfg);
    ck_assert_uint_eq(cfg.nchannels, 1);
    ck_assert_str_eq(cfg.channels[0], "excimer");
    config_free(&cfg);
    expect_ok("redis: {host: localhost}\nredis_channels: [excimer, xhprof]\n" GOOD_LOGS, &cfg);
    ck_assert_uint_eq(cfg.nchannels, 2);
    ck_assert_str_eq(cfg.channels[1], "xhprof");
    config_free(&cfg);
    expect_ok(GOOD_LOGS, &cfg); /* no Redis: the sockets' default channel only */
    ck_assert_uint_eq(cfg.nchannels, 1);
    ck_assert_str_eq(cfg.channels[0], "excimer");
    config_free(&cfg);
}
END_TEST

Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("load");
    tcase_add_test(tc, loads_original_arclamp_config);
    tcase_add_test(tc, defaults_apply_to_unset_keys);
    tcase_add_test(tc, stream_consumer_defaults_to_host_name);
    tcase_add_test(tc, redis_absent_disables_redis);
    tcase_add_test(tc, durations_accept_fractions);
    tcase_add_test(tc, group_sample_pop_and_channels_are_read);
    tcase_add_test(tc, loads_from_file_and_names_it_in_errors);
    tcase_add_test(tc, help_lists_keys_of_all_tables);
    tcase_add_test(tc, reads_password_file_first_line);
    tcase_add_test(tc, groups_whose_names_can_collide_in_one_directory_are_refused);
    tcase_add_test(tc, buffer_not_larger_than_a_line_is_refused);
    tcase_add_test(tc, redis_channels_alone_do_not_add_the_default_channel);
    tcase_add_test(tc, base_path_too_long_for_trace_log_paths_is_refused);
    suite_add_tcase(s, tc);

    tc = tcase_create("channels");
    tcase_add_test(tc, redis_channels_merge_with_redis_channel_without_duplicates);
    tcase_add_test(tc, redis_channels_accepts_a_single_string);
    tcase_add_test(tc, null_redis_channel_leaves_only_redis_channels);
    tcase_add_test(tc, groups_for_channel_follow_per_group_channels);
    tcase_add_test(tc, sixty_four_groups_are_accepted_and_all_masked);
    tcase_add_test(tc, refuses_more_than_64_groups);
    suite_add_tcase(s, tc);

    tc = tcase_create("runs");
    tcase_add_test(tc, run_limits_have_defaults);
    tcase_add_test(tc, max_run_bytes_default_follows_a_smaller_buffer);
    tcase_add_test(tc, run_limits_out_of_range_are_refused);
    tcase_add_test(tc, max_tier_identities_has_a_default_and_bounds);
    tcase_add_test(tc, reserved_tier_identities_are_checked);
    tcase_add_test(tc, default_channels_add_xhprof_and_tiers_only_with_redis_and_no_channel_key);
    suite_add_tcase(s, tc);

    tc = tcase_create("listen");
    tcase_add_test(tc, listen_accepts_strings_and_maps);
    tcase_add_test(tc, refuses_udp_address_without_port);
    tcase_add_test(tc, refuses_udp_port_out_of_range);
    tcase_add_test(tc, refuses_other_address_schemes);
    tcase_add_test(tc, refuses_listen_that_is_not_a_list);
    tcase_add_test(tc, refuses_listen_map_with_unknown_key);
    tcase_add_test(tc, refuses_listen_map_without_address);
    tcase_add_test(tc, refuses_null_listen_address);
    tcase_add_test(tc, refused_listen_entry_strings_are_freed);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_test(tc, refuses_unknown_key_with_line);
    tcase_add_test(tc, unknown_redis_keys_are_ignored_with_a_warning);
    tcase_add_test(tc, redis_py_keys_are_honoured);
    tcase_add_test(tc, redis_py_none_and_zero_keep_working_defaults);
    tcase_add_test(tc, refuses_both_spellings_of_a_redis_key);
    tcase_add_test(tc, refuses_redis_ssl);
    tcase_add_test(tc, refuses_missing_logs);
    tcase_add_test(tc, refuses_logs_that_is_not_a_list_of_groups);
    tcase_add_test(tc, refuses_group_without_retain);
    tcase_add_test(tc, refuses_retain_zero_negative_or_not_a_number);
    tcase_add_test(tc, refuses_retain_many_as_in_the_readme);
    tcase_add_test(tc, refuses_format_with_slash);
    tcase_add_test(tc, refuses_unsupported_format_conversion);
    tcase_add_test(tc, refuses_missing_period_or_format);
    tcase_add_test(tc, refuses_period_dotdot);
    tcase_add_test(tc, refuses_period_with_slash);
    tcase_add_test(tc, refuses_relative_base_path);
    tcase_add_test(tc, refuses_bad_redis_mode);
    tcase_add_test(tc, refuses_redis_port_out_of_range);
    tcase_add_test(tc, redis_socket_buffer_bytes_zero_keeps_system_default);
    tcase_add_test(tc, refuses_bad_log_target);
    tcase_add_test(tc, refuses_limits_out_of_range);
    tcase_add_test(tc, refuses_bad_group_channels);
    tcase_add_test(tc, refused_config_keeps_no_memory);
    suite_add_tcase(s, tc);
    return s;
}

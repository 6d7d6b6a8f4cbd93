/* Tests of netaddr: the one HOST:PORT parser. */
#include <string.h>

#include "netaddr.h"
#include "test-suites.h"

static char host[64], port[NETADDR_PORT_MAX], why[128];

static int split(const char *s)
{
    host[0] = port[0] = why[0] = '\0';
    return netaddr_split(s, strlen(s), host, sizeof host, port, "udp://", why, sizeof why);
}

START_TEST(splits_ipv4_name_and_bracketed_ipv6)
{
    ck_assert_int_eq(split("127.0.0.1:7761"), 0);
    ck_assert_str_eq(host, "127.0.0.1");
    ck_assert_str_eq(port, "7761");
    ck_assert_int_eq(split("redis.example:6379"), 0);
    ck_assert_str_eq(host, "redis.example");
    ck_assert_int_eq(split("[::1]:65535"), 0);
    ck_assert_str_eq(host, "::1");
    ck_assert_str_eq(port, "65535");
    ck_assert_int_eq(split("[fe80::1%eth0]:1"), 0);
    ck_assert_str_eq(host, "fe80::1%eth0");
}
END_TEST

START_TEST(only_the_length_given_is_read)
{
    const char *s = "10.0.0.1:6379/excimer";
    ck_assert_int_eq(netaddr_split(s, 13, host, sizeof host, port, "redis://", why, sizeof why), 0);
    ck_assert_str_eq(host, "10.0.0.1");
    ck_assert_str_eq(port, "6379");
}
END_TEST

START_TEST(refuses_missing_host_or_port_naming_the_scheme)
{
    const char *bad[] = {"127.0.0.1", "127.0.0.1:", ":7761", "", "[]:1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(split(bad[i]) == -1, "accepted \"%s\"", bad[i]);
        ck_assert_str_eq(why, "expected udp://HOST:PORT");
    }
}
END_TEST

START_TEST(refuses_ports_out_of_range_or_not_decimal)
{
    const char *bad[] = {"h:0", "h:65536", "h:70000", "h:http", "h:+80", "h:-1", "h:080",
                         "h:1 ", "h:123456"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(split(bad[i]) == -1, "accepted \"%s\"", bad[i]);
        ck_assert_str_eq(why, "expected a port from 1 to 65535");
    }
}
END_TEST

START_TEST(refuses_unbracketed_ipv6_and_stray_brackets)
{
    ck_assert_int_eq(split("::1:7761"), -1);
    ck_assert_ptr_nonnull(strstr(why, "[IPv6 ADDRESS]:PORT"));
    ck_assert_int_eq(split("[::1:7761"), -1);
    ck_assert_int_eq(split("::1]:7761"), -1);
}
END_TEST

START_TEST(refuses_a_host_longer_than_the_buffer_and_nul_bytes)
{
    char big[200];
    memset(big, 'h', sizeof big);
    memcpy(big + 150, ":80", 4);
    ck_assert_int_eq(split(big), -1);
    ck_assert_str_eq(why, "the host name is longer than 63 bytes");
    ck_assert_int_eq(netaddr_split("a\0b:80", 6, host, sizeof host, port, "udp://", why,
                                   sizeof why), -1);
}
END_TEST

Suite *netaddr_suite(void)
{
    Suite *s = suite_create("netaddr");
    TCase *tc = tcase_create("split");
    tcase_add_test(tc, splits_ipv4_name_and_bracketed_ipv6);
    tcase_add_test(tc, only_the_length_given_is_read);
    tcase_add_test(tc, refuses_missing_host_or_port_naming_the_scheme);
    tcase_add_test(tc, refuses_ports_out_of_range_or_not_decimal);
    tcase_add_test(tc, refuses_unbracketed_ipv6_and_stray_brackets);
    tcase_add_test(tc, refuses_a_host_longer_than_the_buffer_and_nul_bytes);
    suite_add_tcase(s, tc);
    return s;
}

/* main: arclamp-log's command line. Loads the configuration and hands it to
 * the daemon (daemon.c). */
#include "config.h"
#include "daemon.h"
#include "keyedhash.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: arclamp-log [--config FILE | FILE] [--check-config] [--version] [--help]\n"
            "\n"
            "Receives collapsed stack samples (Redis pub/sub or streams, UDP and unix\n"
            "datagram sockets) and appends them to hourly/daily trace logs, and the\n"
            "hierarchical runs of the extension (xhprof/1 and xhprof/2 lines) to run logs.\n"
            "\n"
            "  -c, --config FILE   configuration file (default " CONFIG_DEFAULT_PATH ")\n"
            "      --check-config  validate the configuration and exit\n"
            "      --version       print the version and exit\n"
            "  -h, --help          print this help and exit\n"
            "\n"
            "Signals: SIGHUP reloads the configuration; SIGTERM/SIGINT flush and stop.\n"
            "\n");
    config_print_help(out);
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"config", required_argument, NULL, 'c'},
        {"check-config", no_argument, NULL, 'C'},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *path = NULL;
    int check_only = 0, opt;
    while ((opt = getopt_long(argc, argv, "c:h", options, NULL)) != -1) {
        switch (opt) {
        case 'c':
            path = optarg;
            break;
        case 'C':
            check_only = 1;
            break;
        case 'V':
            printf("arclamp-log %s\n", ARCLAMP_VERSION);
            return 0;
        case 'h':
            usage(stdout);
            return 0;
        default:
            /* getopt has said what was wrong; the whole help would bury it */
            fprintf(stderr, "Try 'arclamp-log --help' for more information.\n");
            return EX_USAGE;
        }
    }
    if (optind < argc) {
        if (path || optind + 1 < argc) {
            fprintf(stderr, "arclamp-log: give one configuration file\n");
            return EX_USAGE;
        }
        path = argv[optind];
    }
    if (!path)
        path = CONFIG_DEFAULT_PATH;

    struct config cfg;
    char err[1024];
    if (config_load(path, &cfg, err, sizeof err) < 0) {
        fprintf(stderr, "arclamp-log: %s\n", err);
        return EX_CONFIG;
    }
    if (check_only) {
        config_print_warnings(&cfg, stderr);
        printf("configuration OK\n");
        config_free(&cfg);
        return 0;
    }
    keyedhash_init();   /* the tables' hash key, before any table is filled */
    return daemon_run(path, &cfg);
}

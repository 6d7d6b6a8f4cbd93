/* main: arclamp-svg's command line — picks the subcommand. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "keyedhash.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *doc;
} commands[] = {
    {"render", cmd_render, "draw one flame graph from collapsed stacks (like flamegraph.pl)"},
    {"diff", cmd_diff, "draw a differential flame graph of two trace logs (red grew, blue shrank)"},
    {"generate", cmd_generate, "draw graphs for every trace log that changed (the timer job)"},
    {"compress", cmd_compress, "sort and gzip old trace logs in place"},
    {"metrics", cmd_metrics, "write Prometheus metrics about the trace logs"},
    {"top", cmd_top, "list the functions with the most samples"},
    {"export", cmd_export, "write trace logs as pprof, speedscope or collapsed stacks"},
    {"publish", cmd_publish, "send changed logs, graphs and the index to the object store"},
};

static void usage(FILE *out)
{
    fputs("Usage: arclamp-svg COMMAND [OPTIONS]   (arclamp-svg COMMAND --help for more)\n\n",
          out);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].doc);
    fputs("\n  --version  print the version\n  --help     print this help\n", out);
}

int main(int argc, char **argv)
{
    keyedhash_init();   /* the tables' hash key, before any table is filled */
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        puts("arclamp-svg " ARCLAMP_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "arclamp-svg: unknown command \"%s\"\n", argv[1]);
    usage(stderr);
    return 2;
}

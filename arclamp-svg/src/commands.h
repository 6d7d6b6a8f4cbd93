/* commands: the subcommands of arclamp-svg, one file each. Each takes the
 * arguments after its name (argv[0] is the subcommand) and returns the
 * process exit status. */
#ifndef ARCLAMP_SVG_COMMANDS_H
#define ARCLAMP_SVG_COMMANDS_H

int cmd_render(int argc, char **argv);    /* render.c: flamegraph.pl replacement */
int cmd_diff(int argc, char **argv);      /* diff.c: differential graph of two logs */
int cmd_generate(int argc, char **argv);  /* generate.c: the timer job */
int cmd_compress(int argc, char **argv);  /* compress.c: sort and gzip old logs */
int cmd_metrics(int argc, char **argv);   /* metrics.c: Prometheus text file */
int cmd_top(int argc, char **argv);       /* top.c: leaderboard of functions */
int cmd_publish(int argc, char **argv);   /* publishcmd.c: send to the object store */
int cmd_export(int argc, char **argv);    /* export.c: pprof, speedscope, collapsed */

#endif

/* dot2svg: draws a Graphviz file as SVG with libgvc, the library
 * arclamp-report already links for its callgraphs, so drawing the
 * architecture diagram needs no `dot` program (Debian's graphviz package
 * is not a build dependency).
 *
 *   dot2svg IN.dot OUT.svg
 *
 * OUT.svg is written whole or not at all (a temporary name, then rename),
 * so `make doc` never leaves a half-drawn diagram to be committed. */
#include <errno.h>
#include <gvc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Draws the graph read from `in` into `out`; on failure, says why in err. */
static int draw(GVC_t *gvc, FILE *in, const char *out, char *err, size_t errlen)
{
    Agraph_t *g = agread(in, NULL);
    if (!g) {
        snprintf(err, errlen, "not a Graphviz graph");
        return -1;
    }
    char tmp[4096];
    int rc = -1;
    if (snprintf(tmp, sizeof tmp, "%s.tmp", out) >= (int)sizeof tmp)
        snprintf(err, errlen, "%s: name too long", out);
    else if (gvLayout(gvc, g, "dot") != 0)
        snprintf(err, errlen, "Graphviz could not lay the graph out");
    else if (gvRenderFilename(gvc, g, "svg", tmp) != 0)
        snprintf(err, errlen, "%s: Graphviz could not write it", tmp);
    else if (rename(tmp, out) != 0)
        snprintf(err, errlen, "%s: %s", out, strerror(errno));
    else
        rc = 0;
    if (rc != 0)
        remove(tmp);
    gvFreeLayout(gvc, g);
    agclose(g);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: dot2svg IN.dot OUT.svg\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    char err[4200];
    GVC_t *gvc = gvContext();
    int rc = draw(gvc, in, argv[2], err, sizeof err);
    gvFreeContext(gvc);
    fclose(in);
    if (rc != 0)
        fprintf(stderr, "dot2svg: %s\n", err);
    return rc == 0 ? 0 : 1;
}

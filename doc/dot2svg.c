/* dot2svg: draws a Graphviz file as SVG with libgvc, the library
 * arclamp-report already links for its callgraphs, so drawing the
 * architecture diagram needs no `dot` program (Debian's graphviz package
 * is not a build dependency).
 *
 *   dot2svg IN.dot OUT.svg
 *
 * OUT.svg is written whole or not at all (a temporary name, then rename),
 * so `make doc` never leaves a half-drawn diagram to be committed. */
#include <gvc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int draw(GVC_t *gvc, FILE *in, const char *out)
{
    Agraph_t *g = agread(in, NULL);
    if (!g) {
        fprintf(stderr, "dot2svg: not a Graphviz graph\n");
        return -1;
    }
    char tmp[4096];
    int rc = -1;
    if (snprintf(tmp, sizeof tmp, "%s.tmp", out) >= (int)sizeof tmp)
        fprintf(stderr, "dot2svg: %s: name too long\n", out);
    else if (gvLayout(gvc, g, "dot") != 0)
        fprintf(stderr, "dot2svg: Graphviz could not lay the graph out\n");
    else if (gvRenderFilename(gvc, g, "svg", tmp) != 0)
        fprintf(stderr, "dot2svg: %s: Graphviz could not write it\n", tmp);
    else if (rename(tmp, out) != 0)
        perror("dot2svg: rename");
    else
        rc = 0;
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
    GVC_t *gvc = gvContext();
    int rc = draw(gvc, in, argv[2]);
    gvFreeContext(gvc);
    fclose(in);
    return rc == 0 ? 0 : 1;
}

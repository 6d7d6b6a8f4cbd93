/* yamldoc: a YAML file loaded into a small tree that remembers line numbers.
 *
 * libyaml does the parsing; this file only builds the tree, so configuration
 * code can look keys up and report "file:LINE: key: problem" for any node.
 * Anchors and aliases are refused (configuration files never need them, and
 * refusing them rules out alias expansion bombs). */
#ifndef ARCLAMP_YAMLDOC_H
#define ARCLAMP_YAMLDOC_H

#include <stddef.h>

enum ynode_type { YNODE_SCALAR, YNODE_MAP, YNODE_SEQ };

struct ynode {
    enum ynode_type type;
    int line;               /* 1-based source line of the node's start */
    char *value;            /* SCALAR: the text, NUL-terminated */
    int plain;              /* SCALAR: written without quotes (so "~"/"null" mean null) */
    struct ynode **items;   /* SEQ: elements; MAP: key, value, key, value, ... */
    size_t nitems;          /* number of pointers in items */
    size_t items_cap;       /* pointers allocated */
};

struct ydoc {
    struct ynode *root;     /* NULL for an empty file */
    char *path;             /* file name used in messages */
};

/* Loads `path`. On failure returns -1 with "path:LINE: message" in err. */
int ydoc_load_file(const char *path, struct ydoc *doc, char *err, size_t errlen);
/* Same from memory (tests, embedded defaults); `name` is used in messages. */
int ydoc_load_string(const char *name, const char *text, size_t len, struct ydoc *doc,
                     char *err, size_t errlen);
void ydoc_free(struct ydoc *doc);

/* The value for `key` in a MAP node, or NULL. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);
/* True for an empty plain scalar, "~" or "null" (YAML's null). */
int ynode_is_null(const struct ynode *node);

#endif

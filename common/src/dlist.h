/* dlist: an intrusive doubly linked list with head and tail, written once.
 *
 * A struct that sits on a list (a run on its age list, an open file on its
 * LRU list) holds a `struct dlist_node`; the list holds no memory of its
 * own, so putting an entry on it or taking one off cannot fail and costs
 * O(1). DLIST_ENTRY turns a node back into its struct. Not thread-safe: a
 * list belongs to whoever owns its entries. */
#ifndef ARCLAMP_DLIST_H
#define ARCLAMP_DLIST_H

#include <stddef.h>

struct dlist_node {
    struct dlist_node *prev, *next;  /* NULL at either end, and off the list */
};

struct dlist {
    struct dlist_node *head, *tail;  /* NULL when empty */
};

/* The struct `type` whose member `member` is the node `node` (not NULL). */
#define DLIST_ENTRY(node, type, member) ((type *)(void *)((char *)(node) - offsetof(type, member)))

void dlist_push_back(struct dlist *l, struct dlist_node *n);
void dlist_push_front(struct dlist *l, struct dlist_node *n);
/* Takes `n` (which is on `l`) off the list; its links become NULL. */
void dlist_unlink(struct dlist *l, struct dlist_node *n);

#endif

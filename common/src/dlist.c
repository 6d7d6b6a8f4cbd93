/* dlist: an intrusive doubly linked list. See dlist.h. */
#include "dlist.h"

void dlist_push_back(struct dlist *l, struct dlist_node *n)
{
    n->next = NULL;
    n->prev = l->tail;
    if (l->tail)
        l->tail->next = n;
    else
        l->head = n;
    l->tail = n;
}

void dlist_push_front(struct dlist *l, struct dlist_node *n)
{
    n->prev = NULL;
    n->next = l->head;
    if (l->head)
        l->head->prev = n;
    else
        l->tail = n;
    l->head = n;
}

void dlist_unlink(struct dlist *l, struct dlist_node *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        l->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        l->tail = n->prev;
    n->prev = n->next = NULL;
}

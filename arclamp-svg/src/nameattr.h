/* nameattr: flamegraph.pl's --nameattr FILE, attributes for the boxes of
 * chosen functions.
 *
 * Lines "FUNCNAME<TAB>key=value<TAB>key=value...". A box whose function
 * (its name as in the input, annotations included; the root's is empty)
 * has a line gets, as in flamegraph.pl:
 *   title      the tooltip instead of "NAME (N samples, P%)"
 *   id, class  attributes of its <g>
 *   g_extra    more attributes of its <g>
 *   href       a link: the box is <a xlink:href=".." target="_top" ...>
 *              instead of <g ...>
 *   target     the link's target (_top by default); a_extra: more
 *              attributes of the <a>
 * Other keys are ignored; a later line for a function replaces an earlier
 * one. A line without a tab is "Invalid format in FILE", as there.
 *
 * Unlike flamegraph.pl, which pastes every value into the document as it
 * is, values are text here: escaped. g_extra and a_extra must read as
 * attributes (name="value" or name='value', blank-separated, values taken
 * as text); an event handler (on...), a namespace declaration, a link
 * attribute or an attribute the element already has is refused, as is an
 * href whose scheme is javascript:, vbscript: or data:, and a field that
 * is not key=value. A refused file is an error naming its line: nothing
 * in it can become markup or script. */
#ifndef ARCLAMP_SVG_NAMEATTR_H
#define ARCLAMP_SVG_NAMEATTR_H

#include <stddef.h>

/* A --nameattr file larger than this is refused. */
#define NAMEATTR_MAX_BYTES (64u << 20)

/* What one function's boxes get, ready to write. */
struct name_attrs {
    char *open;          /* "<g ...>" or "<a ...>", values escaped */
    const char *close;   /* "</g>" or "</a>" */
    char *title;         /* the tooltip's text (not escaped yet); NULL: the usual one */
    size_t title_len;
};

struct nameattr;

/* Reads `path`: the table, or NULL with a message in err. */
struct nameattr *nameattr_load(const char *path, char *err, size_t errlen);
void nameattr_free(struct nameattr *na);

/* The attributes of function `name` (len bytes), or NULL. */
const struct name_attrs *nameattr_find(const struct nameattr *na, const char *name, size_t len);

#endif

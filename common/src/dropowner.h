/* dropowner: a job started as root becomes the owner of the directory it
 * works in, for good, before it writes anything.
 *
 * The timer jobs (arclamp-svg generate and compress, arclamp-report
 * generate) run as the arclamp user under systemd; an administrator who
 * runs one by hand as root would otherwise leave root-owned files and
 * directories that the service can no longer replace. */
#ifndef ARCLAMP_DROPOWNER_H
#define ARCLAMP_DROPOWNER_H

#include <stddef.h>

/* As root: when `dir` exists and is not root's, switch to its owner (user,
 * group, no supplementary groups) for good. `what` names it in messages
 * ("data_dir"). Returns 0 (nothing to do, or done), -1 with err set. */
int drop_root_to_owner(const char *dir, const char *what, char *err, size_t errlen);

#endif

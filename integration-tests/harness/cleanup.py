"""Removes what a killed test run left behind: namespaces named al-<run>-*
whose owning process (recorded in /tmp/arclamp-it-runs/<run>) is gone, the
processes that run started inside them, and its work directory
/tmp/al-<run>-* (unmounting what is mounted below it first). Namespaces of a run that is still going are left alone.

    python3 -m harness.cleanup [--dry-run]
"""

import glob
import os
import shutil
import sys

from . import netns
from .tier2_nspawn import unmount_below


def owner_alive(run_id):
    try:
        with open(os.path.join(netns.RUNS_DIR, run_id)) as f:
            pid = int(f.read().strip())
    except (OSError, ValueError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def main(argv):
    dry = "--dry-run" in argv
    runs = {}
    for name in netns.leftover_namespaces():
        runs.setdefault(name.split("-")[1], []).append(name)
    for run_id, names in sorted(runs.items()):
        if owner_alive(run_id):
            continue
        print("cleanup: stale run %s: %s" % (run_id, " ".join(sorted(names))))
        if dry:
            continue
        topo = netns.Topology(run_id)
        for name in names:
            host = name.split("-", 2)[2]
            topo._created.append(netns.Namespace(topo, host, None))
        # the hub last: close() goes in reverse order
        topo._created.sort(key=lambda ns: ns.host != "hub")
        try:
            topo.close()
        except netns.CommandError as exc:
            print("cleanup: %s" % exc, file=sys.stderr)
        for d in glob.glob("/tmp/al-%s-*" % run_id):
            unmount_below(d)
            shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

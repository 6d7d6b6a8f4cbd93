"""debs: the Debian packages a container test installs, fresh.

`make deb` packages the commit DEB_TREE (default HEAD) as committed, or the
working tree with DEB_TREE=worktree. A test that installs build/deb/*.deb
must not install packages older than what they would package now, so
ensure_debs() runs `make deb` when one is missing or stale, then copies them
to the caller's directory (a `make deb` running meanwhile cannot pull them
away). Used by systemd/tests/test_system.py and the integration fleet's
tier2-in-nspawn variant.
"""

import glob
import os
import shutil
import subprocess
import time
from pathlib import Path

import container as ct

REPO = Path(__file__).resolve().parents[2]


def packaged_since():
    """(time, what): the .debs must be newer than this: DEB_TREE's commit
    time, or with DEB_TREE=worktree the newest file `make deb` would package
    (tracked, or new and not ignored)."""
    tree = os.environ.get("DEB_TREE", "HEAD")
    if tree != "worktree":
        when = subprocess.run(["git", "log", "-1", "--format=%ct", tree], cwd=REPO, capture_output=True,
                              text=True, timeout=60, check=True).stdout.strip()
        return float(when), f"the commit {tree}"
    files = subprocess.run(["git", "ls-files", "-z", "-c", "-o", "--exclude-standard"], cwd=REPO,
                           capture_output=True, timeout=60, check=True).stdout.decode().split("\0")
    best = (0.0, None)
    for f in files:
        try:
            m = os.stat(REPO / f).st_mtime
        except OSError:
            continue
        if m > best[0]:
            best = (m, f)
    return best


def find_debs(d, packages):
    """{package: newest build of it in d}."""
    found = {}
    for p in packages:
        cands = sorted(glob.glob(os.path.join(d, f"{p}_*.deb")), key=os.path.getmtime)
        if cands:
            found[p] = cands[-1]
    return found


def ensure_debs(packages, dest, log, timings=None):
    """Copies the newest .deb of each package into `dest` (created) and
    returns {package: file name}. The packages come from ARCLAMP_DEB_DIR
    as they are, or from build/deb, rebuilt first with `make deb` (its output
    appended to `log`) when one is missing or stale."""
    d = os.environ.get("ARCLAMP_DEB_DIR")
    if not d:
        d = str(REPO / "build/deb")
        found = find_debs(d, packages)
        since, what = packaged_since()
        why = None
        if len(found) < len(packages):
            why = "missing " + ", ".join(p for p in packages if p not in found)
        elif min(os.path.getmtime(f) for f in found.values()) < since:
            why = f"{what} is newer than the packages"
        if why:
            ct._log(f"make deb ({why})")
            t0 = time.monotonic()
            ct._run(["make", "-C", str(REPO), "--no-print-directory", "deb"], 1800, log=str(log),
                    env=dict(os.environ, MAKEFLAGS=""))
            if timings is not None:
                timings["make deb"] = time.monotonic() - t0
    found = find_debs(d, packages)
    missing = set(packages) - set(found)
    if missing:
        raise ct.ContainerError(f"no .deb for {', '.join(sorted(missing))} in {d}")
    os.makedirs(dest, exist_ok=True)
    for f in found.values():
        shutil.copy2(f, dest)
    return {p: os.path.basename(f) for p, f in found.items()}

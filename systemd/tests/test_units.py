"""Host-side checks of the systemd units as `make install` installs them:
`systemd-analyze verify` reports nothing, and every service scores an
exposure of at most 2.0 in `systemd-analyze security --offline=true` (the
scores are printed). Needs only the build (no root, no container).

The units are installed with PREFIX and SYSCONFDIR under a temporary
directory (not DESTDIR), so the ExecStart= paths written into them point at
programs that exist: verify checks that they are executable.
"""

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UNITS = ["arclamp-log.socket", "arclamp-log.service", "arclamp-svg.service", "arclamp-svg.timer",
         "arclamp-svg-compress.service", "arclamp-svg-compress.timer"]
SERVICES = [u for u in UNITS if u.endswith(".service")]
MAX_EXPOSURE = 2.0


@pytest.fixture(scope="module")
def unitdir(tmp_path_factory):
    top = tmp_path_factory.mktemp("install")
    r = subprocess.run(
        ["make", "-s", "--no-print-directory", "install", f"PREFIX={top}/usr", f"SYSCONFDIR={top}/etc",
         f"PHP_EXTDIR={top}/php", f"PHP_INIDIR={top}/phpini"],
        cwd=REPO, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"make install failed:\n{r.stdout}\n{r.stderr}"
    d = top / "usr/lib/systemd/system"
    assert sorted(p.name for p in d.iterdir()) == sorted(UNITS)
    return d


def test_verify_reports_nothing(unitdir):
    r = subprocess.run(["systemd-analyze", "verify", "--man=no"] + [str(unitdir / u) for u in UNITS],
                       capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stdout + r.stderr) == (0, "")


@pytest.mark.parametrize("service", SERVICES)
def test_security_exposure(unitdir, service, summary):
    r = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager", str(unitdir / service)],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r"Overall exposure level for (\S+): (\d+\.\d+) (\w+)", r.stdout)
    assert m, f"no exposure level in the output (status {r.returncode}):\n{r.stdout}\n{r.stderr}"
    assert m.group(1) == service
    score = float(m.group(2))
    summary.append(f"systemd-analyze security: {service}: exposure {score} {m.group(3)}")
    assert score <= MAX_EXPOSURE, r.stdout

"""Shared setup of the systemd/ tests (test_units.py: host-side checks of the
unit files; test_system.py: the packages in a booted Debian container).

- SIGTERM (a CI job cancelled, `timeout`) becomes KeyboardInterrupt, so
  pytest still runs the fixtures' finalizers: containers are stopped,
  overlays unmounted, temporary directories removed. (SIGKILL cannot be
  handled: then every container still ends itself at its deadline, see
  container.py, but its temporary directory under /var/tmp stays.)
- The `timings` fixture collects named durations and `summary` lines (the
  exposure scores, ...); both are printed at the end of the run, with the
  total time, also under -q.
- common/tests goes on sys.path for testkit (the unit file reader).
"""

import signal
import sys
import time
from pathlib import Path

import pytest

_T0 = time.monotonic()

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common" / "tests"))


def _sigterm(signum, frame):
    raise KeyboardInterrupt("SIGTERM")


def pytest_configure(config):
    signal.signal(signal.SIGTERM, _sigterm)
    config._arclamp_timings = {}
    config._arclamp_summary = []


@pytest.fixture(scope="session")
def timings(request):
    """A dict: name -> seconds, printed at the end of the run."""
    return request.config._arclamp_timings


@pytest.fixture(scope="session")
def summary(request):
    """A list of lines printed at the end of the run."""
    return request.config._arclamp_summary


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    lines = getattr(config, "_arclamp_summary", None)
    t = getattr(config, "_arclamp_timings", None)
    if not lines and not t:
        return
    terminalreporter.write_sep("-", "systemd/tests")
    for line in lines:
        terminalreporter.write_line(line)
    for name, secs in t.items():
        terminalreporter.write_line(f"{name:<48} {secs:7.1f} s")
    terminalreporter.write_line(f"{'total (this pytest run)':<48} {time.monotonic() - _T0:7.1f} s")

"""pytest plugin of the integration tests: the fleet fixture, prerequisites,
and the results table printed at the end of the run."""

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import netns, report  # noqa: E402
from harness.arclamp import arclamp_log_bin, arclamp_svg_bin  # noqa: E402
from harness.fleet import Fleet, FleetOptions  # noqa: E402
from harness.fpm import PHP_CLI, PHP_FPM, excimer_so  # noqa: E402
from harness.redis import REDIS_SERVER  # noqa: E402


def _missing():
    need = [("root", os.geteuid() == 0),
            ("iproute2 (ip)", os.path.exists(netns.IP) or shutil.which("ip")),
            ("php-fpm8.2", os.access(PHP_FPM, os.X_OK)),
            ("php8.2 (cli)", os.access(PHP_CLI, os.X_OK)),
            ("redis-server", os.access(REDIS_SERVER, os.X_OK)),
            ("xmllint", shutil.which("xmllint")),
            ("unshare, mount (util-linux)", shutil.which("unshare") and shutil.which("mount")),
            ("arclamp-log (%s)" % arclamp_log_bin(), os.access(arclamp_log_bin(), os.X_OK)),
            ("arclamp-svg (%s)" % arclamp_svg_bin(), os.access(arclamp_svg_bin(), os.X_OK)),
            ("excimer.so (%s)" % excimer_so(), os.path.exists(excimer_so()))]
    return [name for name, ok in need if not ok]


@pytest.fixture(scope="session")
def prerequisites():
    missing = _missing()
    if missing:
        pytest.skip("integration tests need: " + ", ".join(missing))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


@pytest.fixture
def fleet_factory(prerequisites, request):
    """fleet_factory(**FleetOptions fields) -> a started Fleet; all are torn
    down after the test (processes stopped, namespaces deleted), and on a
    failure the tails of their logs are printed (Captured stderr teardown)."""
    made = []

    def make(**kw):
        f = Fleet(FleetOptions(**kw))
        made.append(f)
        return f.start()

    yield make
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    problems = []
    for f in made:
        if failed:
            for name, text in f.diagnostics():
                sys.stderr.write("\n----- %s (tail) -----\n%s\n" % (name, text))
        problems += f.unexpected_exits()
        f.close()
    left = [n for n in netns.leftover_namespaces() if any(n.startswith("al-%s-" % f.run_id) for f in made)]
    assert not left, "namespaces left behind: %r" % left
    assert not problems, "; ".join(problems)


def pytest_terminal_summary(terminalreporter):
    if not report.RESULTS:
        return
    terminalreporter.write_sep("=", "Arc Lamp fleet results (lines unless noted)")
    terminalreporter.write_line(report.format_table())
    terminalreporter.write_line(
        "sent: lines the extensions report as sent (excimer_arclamp_stats of every php-fpm "
        "worker and CLI run); received/invalid: arclamp-log's counters; written: lines in the "
        "hourly `all` logs; samples: the sum of their counts; p50/p99: request latency at the "
        "FastCGI client.")
    for line in report.NOTES:
        terminalreporter.write_line(line)
    path = os.environ.get("ARCLAMP_IT_RESULTS")
    if path:
        report.write_file(path)
        terminalreporter.write_line("(also written to %s)" % path)

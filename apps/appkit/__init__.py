"""appkit: the real-application test fixture (see apps/README.md).

Modules:
  mediawiki  Debian's MediaWiki installed into build/apps/mediawiki (cached),
             the PHP ini files the drivers run it with, its pages and URLs
  phpcgi     N requests of one URL in ONE php-cgi process (php-cgi -T N)
  fpmpool    a php-fpm master with one static pool, its own config and socket,
             driven with the fleet's FastCGI client (integration-tests/harness/fcgi.py)
  collector  a real arclamp-log on a unix datagram socket, and what the tests
             read back: trace logs, run logs (through arclamp-report), tier tables

Shared pieces come from the other suites rather than a second copy: bounded
polling from common/tests/testkit.py, the FastCGI client, the managed process
(procs.Proc) and the arclamp-log wrapper (arclamp.ArclampLog) from the fleet's
harness, which run here on the host itself (collector.Host stands in for a
network namespace).
"""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
for _p in (REPO_ROOT / "common" / "tests", REPO_ROOT / "integration-tests"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

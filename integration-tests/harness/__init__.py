"""Integration test harness: a simulated web fleet in network namespaces.

See integration-tests/README.md. Modules:
  netns      namespaces, the bridge topology, running commands inside a namespace
  procs      managed processes and bounded waits
  redis      redis-server in tier1 (and redis-cli inside a namespace)
  arclamp    arclamp-log in tier2 (config, notify socket, metrics), arclamp-svg
  fpm        php-fpm web hosts, the load client and the CLI job runner
  fcgi       the FastCGI client / load generator (runs inside a namespace)
  tracelogs  reading the trace logs back
  tier2_nspawn  tier2 as a booted container running the packaged units
  fleet      all of it together: Fleet, FleetOptions
  checks     the scenarios' shared assertions
  report     the results table
  cleanup    what a killed run left behind
Polling, the metrics file and the notify socket come from
common/tests/testkit.py, shared with the other Python suites.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common" / "tests"))

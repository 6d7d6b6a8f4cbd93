"""Integration test harness: a simulated web fleet in network namespaces.

See integration-tests/README.md. Modules:
  netns      namespaces, the bridge topology, running commands inside a namespace
  procs      managed processes and bounded waits
  redis      redis-server in tier1 (and redis-cli inside a namespace)
  arclamp    arclamp-log in tier2 (config, notify socket, metrics), arclamp-svg
  fpm        php-fpm web hosts, the load client and the CLI job runner
  fcgi       the FastCGI client / load generator (runs inside a namespace)
  tracelogs  reading the trace logs back
  fleet      all of it together: Fleet, FleetOptions
  report     the results table
"""

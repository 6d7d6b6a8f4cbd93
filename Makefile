# Arc Lamp: top-level build. Everything is built into build/:
#   build/bin/      programs            build/obj/        objects
#   build/tests/    unit test binaries  build/asan/       the same, with ASan+UBSan
#   build/bench/    benchmark tools     build/demo/       what `make demo` writes
# `make check` installs missing Debian packages first (scripts/install-deps).

CC       ?= cc
BUILD    := build
PKGS     := hiredis yaml-0.1 libsystemd zlib libxxhash libsodium libcurl libcrypto libxml-2.0 json-c
# arclamp-report alone reads and writes JSON, and draws callgraphs
REPORT_PKGS := json-c libgvc
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
CFLAGS   ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -Icommon/src -Icommon/tests
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) -fno-strict-aliasing
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)
SAN_FLAGS  = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
VERSION  := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

COMMON_SRC := $(wildcard common/src/*.c)
LOG_SRC    := $(filter-out arclamp-log/src/main.c,$(wildcard arclamp-log/src/*.c))
SVG_SRC    := $(filter-out arclamp-svg/src/main.c,$(wildcard arclamp-svg/src/*.c))
REPORT_SRC := $(filter-out arclamp-report/src/main.c,$(wildcard arclamp-report/src/*.c))
BENCH_SRC  := $(wildcard bench/src/*.c)

COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/obj/%.o)
LOG_OBJ    := $(LOG_SRC:%.c=$(BUILD)/obj/%.o)
COMMON_SAN := $(COMMON_SRC:%.c=$(BUILD)/asan/obj/%.o)
LOG_SAN    := $(LOG_SRC:%.c=$(BUILD)/asan/obj/%.o)
SVG_OBJ    := $(SVG_SRC:%.c=$(BUILD)/obj/%.o)
SVG_SAN    := $(SVG_SRC:%.c=$(BUILD)/asan/obj/%.o)
REPORT_OBJ := $(REPORT_SRC:%.c=$(BUILD)/obj/%.o)
REPORT_SAN := $(REPORT_SRC:%.c=$(BUILD)/asan/obj/%.o)

PROGRAMS := $(BUILD)/bin/arclamp-log $(BUILD)/bin/arclamp-svg $(BUILD)/bin/arclamp-report
UNIT_TESTS := $(BUILD)/tests/test-common $(BUILD)/tests/test-arclamp-log $(BUILD)/tests/test-arclamp-svg \
              $(BUILD)/tests/test-arclamp-report
SAN_TESTS  := $(BUILD)/asan/tests/test-common $(BUILD)/asan/tests/test-arclamp-log \
              $(BUILD)/asan/tests/test-arclamp-svg $(BUILD)/asan/tests/test-arclamp-report
BENCH_BINS := $(BENCH_SRC:bench/src/%.c=$(BUILD)/bench/%)

.PHONY: all deps check objstore-tests cluster-tests check-log check-svg check-report check-ext check-under-load demo-stop unit-tests asan-tests log-tests svg-tests report-tests php-tests php-tests-valgrind \
        app-tests demo bench install clean nix-tests integration system-tests doc doc-check \
        check-build log-tests-release log-tests-asan php-tests-valgrind-phpt php-tests-valgrind-combos \
        integration-run system-tests-run
# The extension's API modules (see "the API modules" below); set before the
# rules that name them, as make expands prerequisites when it reads a rule.
EXT_API     := xhprof tideways_xhprof uprofiler
EXT_API_SO  := $(EXT_API:%=$(BUILD)/php/%.so)

all: $(PROGRAMS) $(BUILD)/php/excimer.so $(EXT_API_SO) $(BUILD)/nginx/arclamp.conf

deps:
	@scripts/install-deps

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DARCLAMP_VERSION='"$(VERSION)"' $(ALL_CFLAGS) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/asan/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DARCLAMP_VERSION='"$(VERSION)"' -std=c11 $(WARN) $(SAN_FLAGS) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

# A script embedded in a program becomes a C string literal; '?' is escaped
# so no trigraph can form.
EMBED_JS = sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@.tmp && mv $@.tmp $@
# arclamp-svg embeds flamegraph.js (build/gen/flamegraph_js.h; svg.c includes it).
$(BUILD)/gen/flamegraph_js.h: arclamp-svg/src/flamegraph.js
	@mkdir -p $(dir $@)
	$(EMBED_JS)
$(BUILD)/obj/arclamp-svg/src/svg.o $(BUILD)/asan/obj/arclamp-svg/src/svg.o: $(BUILD)/gen/flamegraph_js.h
$(BUILD)/obj/arclamp-svg/%.o $(BUILD)/asan/obj/arclamp-svg/%.o: CPPFLAGS += -I$(BUILD)/gen -Iarclamp-svg/src

$(BUILD)/bin/arclamp-log: $(BUILD)/obj/arclamp-log/src/main.o $(LOG_OBJ) $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/bin/arclamp-svg: $(BUILD)/obj/arclamp-svg/src/main.o $(SVG_OBJ) $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm
$(BUILD)/asan/bin/arclamp-svg: $(BUILD)/asan/obj/arclamp-svg/src/main.o $(SVG_SAN) $(COMMON_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS) -lm

# arclamp-report embeds report.js in every page, as arclamp-svg embeds flamegraph.js.
$(BUILD)/gen/report_js.h: arclamp-report/src/report.js
	@mkdir -p $(dir $@)
	$(EMBED_JS)
$(BUILD)/obj/arclamp-report/src/html.o $(BUILD)/asan/obj/arclamp-report/src/html.o: $(BUILD)/gen/report_js.h

# The web front's nginx snippet: nginx/arclamp.conf.in with the SHA-256 of
# each embedded script in its Content-Security-Policy. The programs put the
# files between their <script> tags as they are, so these hashes are the
# pages' scripts' (coreutils only: basenc turns the hex digest into bytes).
CSP_HASH = sha256sum $(1) | cut -c1-64 | tr a-f A-F | basenc --base16 -d | base64
$(BUILD)/nginx/arclamp.conf: nginx/arclamp.conf.in arclamp-svg/src/flamegraph.js arclamp-report/src/report.js
	@mkdir -p $(dir $@)
	fg=$$($(call CSP_HASH,arclamp-svg/src/flamegraph.js)) && rp=$$($(call CSP_HASH,arclamp-report/src/report.js)) && \
	  [ $${#fg} = 44 ] && [ $${#rp} = 44 ] && \
	  sed -e "s|@FLAMEGRAPH_JS_SHA256@|$$fg|g" -e "s|@REPORT_JS_SHA256@|$$rp|g" $< > $@.tmp && \
	  ! grep -q '@[A-Z_]*_SHA256@' $@.tmp && mv $@.tmp $@
$(BUILD)/obj/arclamp-report/%.o $(BUILD)/asan/obj/arclamp-report/%.o: CPPFLAGS += -I$(BUILD)/gen -Iarclamp-report/src -Iarclamp-report/tests \
    $(shell pkg-config --cflags $(REPORT_PKGS) 2>/dev/null)
REPORT_LIBS = $(shell pkg-config --libs $(REPORT_PKGS) 2>/dev/null)
$(BUILD)/bin/arclamp-report: $(BUILD)/obj/arclamp-report/src/main.o $(REPORT_OBJ) $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(REPORT_LIBS) -lm
$(BUILD)/asan/bin/arclamp-report: $(BUILD)/asan/obj/arclamp-report/src/main.o $(REPORT_SAN) $(COMMON_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS) $(REPORT_LIBS) -lm
$(BUILD)/tests/test-arclamp-report: $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard arclamp-report/tests/*.c) common/tests/testutil.c) $(REPORT_OBJ) $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) $(REPORT_LIBS) $(CHECK_LIBS) -lm
$(BUILD)/asan/tests/test-arclamp-report: $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(wildcard arclamp-report/tests/*.c) common/tests/testutil.c) $(REPORT_SAN) $(COMMON_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS) $(REPORT_LIBS) $(CHECK_LIBS) -lm

# Unit tests (Check). Each program's tests/ holds test-*.c files linked
# into one runner per program. objstore-tool.c and cluster-tool.c are drivers
# of their own (the live object-store and Redis Cluster tests run them), not
# part of the runner.
COMMON_TEST_SRC := $(filter-out common/tests/objstore-tool.c common/tests/cluster-tool.c,$(wildcard common/tests/*.c))
$(BUILD)/tests/test-common: $(patsubst %.c,$(BUILD)/obj/%.o,$(COMMON_TEST_SRC)) $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) $(CHECK_LIBS) -lm
$(BUILD)/tests/objstore-tool: $(BUILD)/obj/common/tests/objstore-tool.o $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) -lm
$(BUILD)/asan/tests/objstore-tool: $(BUILD)/asan/obj/common/tests/objstore-tool.o $(COMMON_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS) -lm
$(BUILD)/tests/cluster-tool: $(BUILD)/obj/common/tests/cluster-tool.o $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) -lm
$(BUILD)/asan/tests/cluster-tool: $(BUILD)/asan/obj/common/tests/cluster-tool.o $(COMMON_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS) -lm
$(BUILD)/tests/test-arclamp-log: $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard arclamp-log/tests/*.c) common/tests/testutil.c) $(LOG_OBJ) $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) $(CHECK_LIBS) -lm
$(BUILD)/tests/test-arclamp-svg: $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard arclamp-svg/tests/*.c) common/tests/testutil.c) $(SVG_OBJ) $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) $(CHECK_LIBS) -lm
$(BUILD)/asan/tests/test-arclamp-svg: $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(wildcard arclamp-svg/tests/*.c) common/tests/testutil.c) $(SVG_SAN) $(COMMON_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS) $(CHECK_LIBS) -lm
$(BUILD)/asan/tests/test-common: $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(COMMON_TEST_SRC)) $(COMMON_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS) $(CHECK_LIBS) -lm
$(BUILD)/asan/tests/test-arclamp-log: $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(wildcard arclamp-log/tests/*.c) common/tests/testutil.c) $(LOG_SAN) $(COMMON_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS) $(CHECK_LIBS) -lm
$(BUILD)/asan/bin/arclamp-log: $(BUILD)/asan/obj/arclamp-log/src/main.o $(LOG_SAN) $(COMMON_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/bench/%: bench/src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(PKG_CFLAGS) -o $@ $< $(PKG_LIBS) -lm
# runline-size measures the project's own run line writer: linked with common/.
$(BUILD)/bench/runline-size: bench/src/runline-size.c $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(PKG_CFLAGS) -o $@ $^ $(PKG_LIBS) -lm
# redis-loadgen reads a cluster's slot map with common/src/rediscluster.c: linked with common/.
$(BUILD)/bench/redis-loadgen: bench/src/redis-loadgen.c $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(PKG_CFLAGS) -o $@ $^ $(PKG_LIBS) -lm
# tiertable-gen writes tier tables with the project's own tier table: linked with common/.
$(BUILD)/bench/tiertable-gen: bench/src/tiertable-gen.c $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(PKG_CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# --- the PHP extension (php-excimer-sampler) ------------------------------
# phpize writes its build system into the directory it runs in, so the
# sources are copied (mtimes kept, so make only recompiles what changed)
# into build/php-ext, configured once, and the module copied to build/php/.
EXT_DIR     := php-excimer-sampler
# The parts of common/ the extension compiles in (its config.m4 names them).
EXT_COMMON  := $(foreach f,redisconn rediscluster netaddr clock cpuclock strbuf tierhist tierline linefields runline fixedhash stackline atomicfile dirstream fdio,common/src/$(f).c common/src/$(f).h) \
               common/src/layout.h
EXT_SOURCES := $(EXT_DIR)/config.m4 $(wildcard $(EXT_DIR)/*.h $(EXT_DIR)/src/*.[ch]) $(EXT_COMMON)
RUN_TESTS   := /usr/lib/php/20220829/build/run-tests.php

$(BUILD)/php-ext/configured: $(EXT_DIR)/config.m4
	@rm -rf $(BUILD)/php-ext && mkdir -p $(BUILD)/php-ext
	cp -p $(EXT_DIR)/config.m4 $(BUILD)/php-ext/
	cd $(BUILD)/php-ext && phpize >/dev/null && ./configure --enable-excimer >/dev/null
	@touch $@

$(BUILD)/php/excimer.so: $(BUILD)/php-ext/configured $(EXT_SOURCES)
	@mkdir -p $(BUILD)/php-ext/src $(BUILD)/php-ext/common $(BUILD)/php
	cp -p $(wildcard $(EXT_DIR)/*.h) $(BUILD)/php-ext/
	cp -p $(wildcard $(EXT_DIR)/src/*.[ch]) $(BUILD)/php-ext/src/
	cp -p $(EXT_COMMON) $(BUILD)/php-ext/common/
	$(MAKE) --no-print-directory -C $(BUILD)/php-ext >/dev/null
	cp $(BUILD)/php-ext/modules/excimer.so $@.tmp && mv -f $@.tmp $@

# The API modules of the hierarchical profiler (xhprof.so, tideways_xhprof.so,
# uprofiler.so): one small file each, calling into excimer.so (hprof.h), so a
# plain compile against PHP's headers is all they need. Their excimer_*
# symbols resolve against excimer.so when PHP loads them (as pdo_mysql's
# against pdo.so); -lc names libc so the module states a prerequisite.
EXT_LOAD    := $(foreach m,excimer $(EXT_API),-d extension=$(CURDIR)/$(BUILD)/php/$(m).so)
$(BUILD)/php/%.so: $(EXT_DIR)/src/%_api.c $(EXT_DIR)/src/%_arginfo.h $(EXT_DIR)/src/hprof.h \
    $(EXT_DIR)/src/hprof_module.h
	@mkdir -p $(BUILD)/php
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -fPIC -shared -Wall -Wextra -Werror \
	  -Wno-unused-parameter -Wno-missing-field-initializers \
	  $(shell php-config --includes) -I$(EXT_DIR)/src -o $@.tmp $< -Wl,--no-as-needed -lc && mv -f $@.tmp $@

# The .phpt suite with PHP's own run-tests.php; -n keeps Debian's own
# excimer.ini (php-excimer, installed for the benchmark) from loading.
php-tests: $(BUILD)/php/excimer.so $(EXT_API_SO)
	@echo "== php-excimer-sampler: arginfo headers as gen_stub.php makes them from the stubs"
	scripts/gen-arginfo --check
	@echo "== php-excimer-sampler .phpt tests"
	NO_INTERACTION=1 REPORT_EXIT_STATUS=1 php -n $(RUN_TESTS) -n -q --show-diff \
	  $(EXT_LOAD) $(EXT_DIR)/tests
	@echo "== php-excimer-sampler: every mode combined over several requests (php-cgi -T), php-fpm stops"
	$(PYTEST) -q -p no:cacheprovider $(EXT_DIR)/tests

# The app tests (apps/README.md): Debian's MediaWiki, installed into
# build/apps/mediawiki (once; reused while its inputs are unchanged), with the
# extension in php-cgi -T and a php-fpm pool, arclamp-log on a unix socket,
# runs read with arclamp-report. The reference profiler of the naming tests,
# Debian's tideways_xhprof, is fetched into build/compare/ (never installed).
app-tests: $(BUILD)/bin/arclamp-log $(BUILD)/bin/arclamp-report $(BUILD)/php/excimer.so $(EXT_API_SO)
	@echo "== app tests: MediaWiki with the extension"
	scripts/fetch-deb-module php8.2-tideways tideways_xhprof.so $(BUILD)/compare/php-tideways
	ARCLAMP_LOG_BIN=$(BUILD)/bin/arclamp-log ARCLAMP_REPORT_BIN=$(BUILD)/bin/arclamp-report \
	  ARCLAMP_EXCIMER_SO=$(BUILD)/php/excimer.so $(PYTEST) -q -p no:cacheprovider -rxX apps

# --fair-sched: valgrind's default thread lock lets a busy PHP thread starve
# the timer helper thread, so timers would barely fire. Some timing tests
# need more than run-tests' default 60 s under valgrind.
# TEST_PHP_JUNIT: each test's time, in build/valgrind-phpt/junit.xml.
# --trace-children-skip: the servers some tests start (redis-server,
# scripts/redis-cluster and what it runs, the fake Redis and receivers in
# python3) run natively: they are not ours, and under memcheck they took
# four fifths of those tests' CPU time. Every php and php-cgi a test starts
# is still traced.
# The .phpt files run from a copy (build/valgrind-phpt; client/, src/,
# common/ and scripts/, which some tests read or run, linked beside it)
# because run-tests.php writes each test's .php/.out/.diff next to it: so
# the suite can run while php-tests runs the same files (make check runs
# suites side by side). pcre.jit=0 for every test: memcheck cannot follow
# the machine code PCRE's JIT makes and reported "uninitialised value" at
# ??? in a test whose only regex was a preg_replace of a log line (as the
# combinations and a few .phpt files already set it).
VG_PHPT := $(BUILD)/valgrind-phpt
php-tests-valgrind: php-tests-valgrind-phpt php-tests-valgrind-combos
php-tests-valgrind-phpt: $(BUILD)/php/excimer.so $(EXT_API_SO)
	@echo "== php-excimer-sampler .phpt tests under valgrind"
	rm -rf $(VG_PHPT) && mkdir -p $(VG_PHPT)/$(EXT_DIR)
	cp -Rp $(EXT_DIR)/tests $(VG_PHPT)/$(EXT_DIR)/
	ln -s $(CURDIR)/$(EXT_DIR)/client $(CURDIR)/$(EXT_DIR)/src $(VG_PHPT)/$(EXT_DIR)/
	ln -s $(CURDIR)/common $(CURDIR)/scripts $(VG_PHPT)/
	USE_ZEND_ALLOC=0 VALGRIND_OPTS="--fair-sched=yes --trace-children-skip=*/redis-server,*/redis-cluster,*/python3*" \
	  NO_INTERACTION=1 REPORT_EXIT_STATUS=1 TEST_PHP_JUNIT=$(CURDIR)/$(VG_PHPT)/junit.xml \
	  php -n $(RUN_TESTS) -n -q -m --set-timeout 300 --show-diff $(EXT_LOAD) -d pcre.jit=0 $(VG_PHPT)/$(EXT_DIR)/tests
php-tests-valgrind-combos: $(BUILD)/php/excimer.so $(EXT_API_SO)
	@echo "== php-excimer-sampler: the combinations, each php-cgi under valgrind (two at a time)"
	COMBINATIONS_VALGRIND=1 $(PYTEST) -q -p no:cacheprovider -n 2 $(EXT_DIR)/tests/test_combinations.py

# Only the object trees: other trees under build/ (make deb's export, a test
# root file system) have their own build/ and directories named *.d.
-include $(shell find $(BUILD)/obj $(BUILD)/asan/obj -type f -name '*.d' 2>/dev/null)

# --- tests ---------------------------------------------------------------
PYTEST := /usr/bin/python3 -m pytest

# Check's per-test timeouts (4 s unless a case sets its own) only catch a
# hang: scaled by 10 so that a loaded CI machine does not fail a sound test.
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
run-units = for t in $(1); do echo "== $$t$(3)"; CK_TIMEOUT_MULTIPLIER=10 $(2) $$t || exit 1; done

unit-tests: $(UNIT_TESTS)
	@$(call run-units,$(UNIT_TESTS),,)

asan-tests: $(SAN_TESTS)
	@$(call run-units,$(SAN_TESTS),$(SAN_ENV), (ASan+UBSan))

# One Check runner, release and ASan+UBSan builds: units-common,
# units-arclamp-log, units-arclamp-svg, units-arclamp-report.
units-%: $(BUILD)/tests/test-% $(BUILD)/asan/tests/test-%
	@$(call run-units,$(BUILD)/tests/test-$*,,)
	@$(call run-units,$(BUILD)/asan/tests/test-$*,$(SAN_ENV), (ASan+UBSan))

# Fast feedback: one program's unit, sanitizer and integration suites (and
# common's units, which every program links).
check-log: deps
	@$(MAKE) --no-print-directory units-common units-arclamp-log log-tests
check-svg: deps
	@$(MAKE) --no-print-directory units-common units-arclamp-svg svg-tests
check-report: deps
	@$(MAKE) --no-print-directory units-common units-arclamp-report report-tests
check-ext: deps
	@$(MAKE) --no-print-directory units-common php-tests php-tests-valgrind

# make check with stress-ng --cpu N beside it (scripts/check-under-load).
check-under-load: deps
	@scripts/check-under-load check

# The daemon against real redis-server, sockets and notify sockets; once
# with the release build and once with the ASan+UBSan build. test_runs.py
# also sends a run from PHP with the built excimer.so.
log-tests: log-tests-release log-tests-asan
log-tests-release: $(BUILD)/bin/arclamp-log $(BUILD)/php/excimer.so
	@echo "== arclamp-log integration tests"
	ARCLAMP_LOG_BIN=$(BUILD)/bin/arclamp-log ARCLAMP_EXCIMER_SO=$(BUILD)/php/excimer.so \
	  $(PYTEST) -q -p no:cacheprovider arclamp-log/tests
log-tests-asan: $(BUILD)/asan/bin/arclamp-log $(BUILD)/php/excimer.so
	@echo "== arclamp-log integration tests (ASan+UBSan build)"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ARCLAMP_LOG_BIN=$(BUILD)/asan/bin/arclamp-log ARCLAMP_EXCIMER_SO=$(BUILD)/php/excimer.so \
	  $(PYTEST) -q -p no:cacheprovider arclamp-log/tests

# arclamp-svg's command-line, generator, xmllint and browser tests; also
# against the ASan+UBSan build (the browser test only once: it checks the
# script, not the C).
# objstore (the object-store client) against a real one-node Swift through
# both protocols (scripts/swift-server), and against a lying HTTP server.
# Its own --basetemp under build/: the store's files (and its logs, when a
# start fails) stay apart from other suites' sessions and are easy to find.
OBJSTORE_PYTEST = $(PYTEST) -q -p no:cacheprovider --basetemp=$(BUILD)/objstore-tests common/tests/test_objstore_live.py
objstore-tests: $(BUILD)/tests/objstore-tool $(BUILD)/asan/tests/objstore-tool
	@echo "== objstore live tests (Swift, S3 via s3api)"
	ARCLAMP_OBJSTORE_TOOL=$(BUILD)/tests/objstore-tool $(OBJSTORE_PYTEST) common/tests/test_swiftkit.py
	@echo "== objstore live tests (ASan+UBSan build)"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ARCLAMP_OBJSTORE_TOOL=$(BUILD)/asan/tests/objstore-tool $(OBJSTORE_PYTEST)

# rediscluster (the Redis Cluster client the extension sends through) against
# a real 3-master, 3-replica cluster (scripts/redis-cluster, clusterkit.py):
# redirections, a migration half-way, a failover; and the kit itself.
CLUSTER_PYTEST = $(PYTEST) -q -p no:cacheprovider --basetemp=$(BUILD)/cluster-tests
cluster-tests: $(BUILD)/tests/cluster-tool $(BUILD)/asan/tests/cluster-tool
	@echo "== Redis Cluster: the kit, the client (release build)"
	ARCLAMP_CLUSTER_TOOL=$(BUILD)/tests/cluster-tool $(CLUSTER_PYTEST) common/tests/test_clusterkit.py \
	  common/tests/test_cluster_live.py
	@echo "== Redis Cluster: the client (ASan+UBSan build)"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ARCLAMP_CLUSTER_TOOL=$(BUILD)/asan/tests/cluster-tool $(CLUSTER_PYTEST) common/tests/test_cluster_live.py

# test_export.py reads speedscope files with speedscope's npm package, the
# version arclamp-svg/tests/npm's lock file pins, installed under build/npm
# (its install scripts not run: only its files are read).
SPEEDSCOPE_NPM := $(BUILD)/npm/node_modules/speedscope/package.json
$(SPEEDSCOPE_NPM): arclamp-svg/tests/npm/package.json arclamp-svg/tests/npm/package-lock.json
	@mkdir -p $(BUILD)/npm
	cp arclamp-svg/tests/npm/package.json arclamp-svg/tests/npm/package-lock.json $(BUILD)/npm/
	cd $(BUILD)/npm && npm ci --ignore-scripts --no-audit --no-fund
	touch $@

svg-tests: $(BUILD)/bin/arclamp-svg $(BUILD)/asan/bin/arclamp-svg $(BUILD)/nginx/arclamp.conf $(SPEEDSCOPE_NPM)
	@echo "== arclamp-svg tests"
	ARCLAMP_SVG_BIN=$(BUILD)/bin/arclamp-svg $(PYTEST) -q -p no:cacheprovider arclamp-svg/tests
	@echo "== arclamp-svg tests (ASan+UBSan build)"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ARCLAMP_SVG_BIN=$(BUILD)/asan/bin/arclamp-svg ARCLAMP_SKIP_BROWSER=1 \
	  $(PYTEST) -q -p no:cacheprovider arclamp-svg/tests

# The Nix files, offline: they parse, the module evaluates against a stub of
# nixpkgs' lib, and every unit and ExecStart it names is what `make install`
# installs with the derivation's flags (nix/README.md says what is not checked).
nix-tests: all
	@echo "== Nix packaging checks (offline, against stubs)"
	$(PYTEST) -q -p no:cacheprovider nix/tests

# The suites that boot containers (the fleet's tier2 in nspawn, the system
# test) share one debootstrapped root per make invocation, made under
# build/nspawn/ by the first that needs it (earlier runs' roots are removed
# then). Set ARCLAMP_NSPAWN_BASE_DIR yourself (outside build/nspawn/) to keep
# one between runs.
ifndef ARCLAMP_NSPAWN_BASE_DIR
ARCLAMP_NSPAWN_BASE_DIR := $(CURDIR)/$(BUILD)/nspawn/$(shell date +%Y%m%d-%H%M%S)-$(shell echo $$PPID)
endif
export ARCLAMP_NSPAWN_BASE_DIR

# The simulated web fleet in network namespaces (root only); prints the table
# of samples sent, written and lost, and latencies (build/integration/). The
# tier2-in-nspawn scenarios install the packages of `make deb`.
integration: all deb
	@$(MAKE) --no-print-directory integration-run
integration-run:
	@echo "== integration tests: a simulated fleet in network namespaces"
	integration-tests/run

# The systemd units on the host (systemd-analyze verify and security), then
# the Debian packages installed and booted in a debootstrap'ed Debian 12 under
# systemd-nspawn (root; uses the Debian mirror of this machine's apt
# configuration). make deb packages HEAD: commit first, or DEB_TREE=worktree.
system-tests: deb
	@$(MAKE) --no-print-directory system-tests-run
system-tests-run:
	@echo "== systemd units; the Debian packages in a booted container"
	$(PYTEST) -q -p no:cacheprovider systemd/tests

report-tests: $(BUILD)/bin/arclamp-report $(BUILD)/bin/arclamp-svg $(BUILD)/asan/bin/arclamp-report $(BUILD)/nginx/arclamp.conf
	@echo "== arclamp-report tests"
	ARCLAMP_REPORT_BIN=$(BUILD)/bin/arclamp-report $(PYTEST) -q -p no:cacheprovider arclamp-report/tests
	@echo "== arclamp-report tests (ASan+UBSan build)"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/arclamp-report/tests/lsan.supp \
	  ARCLAMP_REPORT_BIN=$(BUILD)/asan/bin/arclamp-report ARCLAMP_SKIP_BROWSER=1 \
	  $(PYTEST) -q -p no:cacheprovider arclamp-report/tests

# make check: everything built first (one make, CHECK_JOBS compilers), then
# the suites CHECK_JOBS at a time (scripts/check-suites): each suite's output
# is printed whole when it ends, a table of times comes last. The list goes
# longest critical path first; `X:Y` starts X once Y passed. Suites that
# run side by side share nothing but the built programs: free ports, their
# own temporary directories, namespaces and containers. CHECK_JOBS=1 runs
# them one after another.
CHECK_JOBS ?= 2
CHECK_SUITES := deb php-tests-valgrind-phpt integration-run:deb php-tests-valgrind-combos system-tests-run:deb \
  log-tests-release log-tests-asan php-tests app-tests unit-tests asan-tests svg-tests report-tests nix-tests \
  objstore-tests cluster-tests doc-check
check: deps
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) check-build
	@scripts/check-suites -j $(CHECK_JOBS) --log-dir $(BUILD)/check $(CHECK_SUITES)
check-build: all $(UNIT_TESTS) $(SAN_TESTS) $(BUILD)/tests/objstore-tool $(BUILD)/asan/tests/objstore-tool \
  $(BUILD)/tests/cluster-tool $(BUILD)/asan/tests/cluster-tool $(BUILD)/asan/bin/arclamp-log $(BUILD)/asan/bin/arclamp-svg \
  $(BUILD)/asan/bin/arclamp-report $(BUILD)/doc/architecture.svg

# --- the documents' map of the code (ARCHITECTURE.md) ----------------------
# doc/architecture.dot is drawn with libgvc (doc/dot2svg.c, no `dot` program
# needed). `make doc` writes doc/architecture.svg, which is committed so that
# GitHub shows it; doc-check fails when the committed drawing, a path the
# documents name, or the lists of modules and files no longer match the tree.
$(BUILD)/doc/dot2svg: doc/dot2svg.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(shell pkg-config --cflags libgvc) -o $@ $< $(shell pkg-config --libs libgvc)
$(BUILD)/doc/architecture.svg: doc/architecture.dot $(BUILD)/doc/dot2svg
	$(BUILD)/doc/dot2svg $< $@
doc: $(BUILD)/doc/architecture.svg
	cp $< doc/architecture.svg
doc-check: $(BUILD)/doc/architecture.svg
	@echo "== documents: the architecture diagram, named paths, module lists"
	scripts/check-docs $<

# --- demo and benchmarks --------------------------------------------------
demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo

demo-stop:
	@scripts/demo stop

bench: deps
	@$(MAKE) --no-print-directory all $(BENCH_BINS)
	@bench/arclamp-log.sh
	@bench/arclamp-svg.sh
	@bench/export.sh
	@bench/excimer.sh
	@bench/hprof.sh
	@bench/tiers.sh
	@bench/report.sh
	@bench/runs.sh
	@bench/store.py
	@bench/cluster.py
	@if [ "$$(id -u)" = 0 ]; then integration-tests/bench-overhead && integration-tests/bench-hprof-split; \
	  else echo "integration-tests/bench-overhead, bench-hprof-split: need root (network namespaces), skipped"; fi

# --- installation ---------------------------------------------------------
# `make install DESTDIR=... PREFIX=...` installs the programs, the systemd
# units (with their paths rewritten for PREFIX and SYSCONFDIR), the sysusers
# and tmpfiles files (the arclamp user, /var/lib/arclamp), the packaged
# configuration, and the PHP extension with its ini file and the ArcLamp.php
# client, and the profiled second PHP-FPM (arclamp-hprof-fpm.service, its
# php-fpm configuration, the nginx snippet that splits requests to it).
# debian/rules and nix/package.nix call this.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
SYSCONFDIR  ?= $(PREFIX)/etc
UNITDIR     ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
DOCDIR      ?= $(PREFIX)/share/doc
PHP_EXTDIR  ?= $(shell php-config --extension-dir 2>/dev/null)
PHP_INIDIR  ?= $(SYSCONFDIR)/php/8.2/mods-available
PHP_LIBDIR  ?= $(PREFIX)/share/php
# the configuration of arclamp-hprof-fpm.service (php-fpm.conf, pool.d/, conf.d/)
HPROF_FPMDIR ?= $(SYSCONFDIR)/php/8.2/arclamp-hprof-fpm
UNITS := arclamp-log.socket arclamp-log.service arclamp-svg.service arclamp-svg.timer \
         arclamp-svg-compress.service arclamp-svg-compress.timer \
         arclamp-report.service arclamp-report.timer arclamp-hprof-fpm.service
# The installed units and php-fpm.conf name BINDIR, SYSCONFDIR and HPROF_FPMDIR.
INSTALL_PATHS = sed -e 's|/usr/bin/arclamp|$(BINDIR)/arclamp|g' -e 's|/etc/arclamp/|$(SYSCONFDIR)/arclamp/|g' \
                    -e 's|/etc/php/8.2/arclamp-hprof-fpm|$(HPROF_FPMDIR)|g'

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) \
	  $(DESTDIR)$(SYSCONFDIR)/arclamp $(DESTDIR)$(PHP_EXTDIR) $(DESTDIR)$(PHP_INIDIR) \
	  $(DESTDIR)$(PHP_LIBDIR)/Wikimedia $(DESTDIR)$(HPROF_FPMDIR)/pool.d $(DESTDIR)$(HPROF_FPMDIR)/conf.d
	install -m 0755 $(BUILD)/bin/arclamp-log $(BUILD)/bin/arclamp-svg $(BUILD)/bin/arclamp-report \
	  $(DESTDIR)$(BINDIR)/
	for u in $(UNITS); do \
	  $(INSTALL_PATHS) systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u && chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	install -m 0644 systemd/arclamp.sysusers $(DESTDIR)$(SYSUSERSDIR)/arclamp.conf
	install -m 0644 systemd/arclamp.tmpfiles $(DESTDIR)$(TMPFILESDIR)/arclamp.conf
	install -m 0644 systemd/arclamp-log.yaml systemd/arclamp-svg.yaml $(DESTDIR)$(SYSCONFDIR)/arclamp/
	install -d $(DESTDIR)$(SYSCONFDIR)/nginx/snippets $(DESTDIR)$(DOCDIR)/arclamp-svg/examples
	install -m 0644 $(BUILD)/nginx/arclamp.conf $(DESTDIR)$(SYSCONFDIR)/nginx/snippets/arclamp.conf
	install -m 0644 nginx/arclamp-site.conf $(DESTDIR)$(DOCDIR)/arclamp-svg/examples/nginx-site.conf
	install -m 0644 nginx/arclamp-hprof-split.conf $(DESTDIR)$(SYSCONFDIR)/nginx/snippets/arclamp-hprof-split.conf
	$(INSTALL_PATHS) $(EXT_DIR)/hprof-fpm/php-fpm.conf > $(DESTDIR)$(HPROF_FPMDIR)/php-fpm.conf
	chmod 0644 $(DESTDIR)$(HPROF_FPMDIR)/php-fpm.conf
	install -m 0644 $(EXT_DIR)/hprof-fpm/pool.d/www.conf $(DESTDIR)$(HPROF_FPMDIR)/pool.d/www.conf
	install -m 0644 $(EXT_DIR)/hprof-fpm/conf.d/90-arclamp-hprof.ini $(DESTDIR)$(HPROF_FPMDIR)/conf.d/90-arclamp-hprof.ini
	install -m 0644 $(BUILD)/php/excimer.so $(DESTDIR)$(PHP_EXTDIR)/excimer.so
	install -m 0644 $(EXT_DIR)/excimer.ini $(DESTDIR)$(PHP_INIDIR)/excimer.ini
	for m in $(EXT_API); do \
	  install -m 0644 $(BUILD)/php/$$m.so $(DESTDIR)$(PHP_EXTDIR)/$$m.so && \
	  install -m 0644 $(EXT_DIR)/$$m.ini $(DESTDIR)$(PHP_INIDIR)/$$m.ini || exit 1; \
	done
	install -m 0644 $(EXT_DIR)/client/ArcLamp.php $(DESTDIR)$(PHP_LIBDIR)/Wikimedia/ArcLamp.php

clean:
	rm -rf $(BUILD)

# --- Debian packages ------------------------------------------------------
# `make deb` builds arclamp-log, arclamp-svg, arclamp-report and
# php-excimer-sampler (see debian/) with `dpkg-buildpackage -us -uc -b` in a clean export of the tree
# under build/deb-src/, moves the .debs (and their -dbgsym .debs), the
# .buildinfo and the .changes to build/deb/, then runs lintian: any error or
# warning fails.
# The export is `git archive` of DEB_TREE (default HEAD): uncommitted changes
# are NOT packaged. `make deb DEB_TREE=worktree` packages the working tree as
# `git add -A` would commit it (changes and new files that are not ignored),
# written through a throwaway index: the index and the refs stay untouched
# (`git stash create` would leave out new files). DEB_TREE may be any commit.
DEB_TREE ?= HEAD
DEB_JOBS ?= 2
DEB_SRC  := $(BUILD)/deb-src
DEB_OUT  := $(BUILD)/deb

.PHONY: deb
deb: deps
	@set -e; \
	if [ "$(DEB_TREE)" = worktree ]; then \
	  idx=$$(mktemp); trap 'rm -f "$$idx"' EXIT; \
	  cp "$$(git rev-parse --git-path index)" "$$idx"; \
	  GIT_INDEX_FILE=$$idx git add -A; tree=$$(GIT_INDEX_FILE=$$idx git write-tree); \
	  echo "make deb: packaging the working tree (uncommitted changes included)"; \
	else \
	  tree=$$(git rev-parse --verify "$(DEB_TREE)^{tree}"); \
	  echo "make deb: packaging $(DEB_TREE) as committed; uncommitted changes are NOT included (make deb DEB_TREE=worktree includes them)"; \
	  if [ -n "$$(git status --porcelain)" ]; then \
	    echo "make deb: warning: the working tree has uncommitted changes, left out of the packages"; fi; \
	fi; \
	rm -rf $(DEB_SRC) $(DEB_OUT); mkdir -p $(DEB_SRC)/arclamp $(DEB_OUT); \
	git archive --format=tar $$tree | tar -x -C $(DEB_SRC)/arclamp; \
	test -f $(DEB_SRC)/arclamp/debian/control || \
	  { echo "make deb: $(DEB_TREE) has no debian/ (not committed yet? make deb DEB_TREE=worktree)" >&2; exit 1; }
	cd $(DEB_SRC)/arclamp && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u CPPFLAGS -u LDFLAGS \
	  dpkg-buildpackage -us -uc -b -J$(DEB_JOBS)
	mv $(DEB_SRC)/*.deb $(DEB_SRC)/*.buildinfo $(DEB_SRC)/*.changes $(DEB_OUT)/
	lintian --fail-on error,warning $(DEB_OUT)/*.changes
	@echo "make deb: packages in $(DEB_OUT)/:"; cd $(DEB_OUT) && ls -1 *.deb

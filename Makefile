# Arc Lamp: top-level build. Everything is built into build/:
#   build/bin/      programs            build/obj/        objects
#   build/tests/    unit test binaries  build/asan/       the same, with ASan+UBSan
#   build/bench/    benchmark tools     build/demo/       what `make demo` writes
# `make check` installs missing Debian packages first (scripts/install-deps).

CC       ?= cc
BUILD    := build
PKGS     := hiredis yaml-0.1 libsystemd zlib libxxhash
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
BENCH_SRC  := $(wildcard bench/src/*.c)

COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/obj/%.o)
LOG_OBJ    := $(LOG_SRC:%.c=$(BUILD)/obj/%.o)
COMMON_SAN := $(COMMON_SRC:%.c=$(BUILD)/asan/obj/%.o)
LOG_SAN    := $(LOG_SRC:%.c=$(BUILD)/asan/obj/%.o)
SVG_OBJ    := $(SVG_SRC:%.c=$(BUILD)/obj/%.o)
SVG_SAN    := $(SVG_SRC:%.c=$(BUILD)/asan/obj/%.o)

PROGRAMS := $(BUILD)/bin/arclamp-log $(BUILD)/bin/arclamp-svg
UNIT_TESTS := $(BUILD)/tests/test-common $(BUILD)/tests/test-arclamp-log $(BUILD)/tests/test-arclamp-svg
SAN_TESTS  := $(BUILD)/asan/tests/test-common $(BUILD)/asan/tests/test-arclamp-log \
              $(BUILD)/asan/tests/test-arclamp-svg
BENCH_BINS := $(BENCH_SRC:bench/src/%.c=$(BUILD)/bench/%)

.PHONY: all deps check unit-tests asan-tests log-tests svg-tests php-tests php-tests-valgrind \
        demo bench clean
all: $(PROGRAMS) $(BUILD)/php/excimer.so

deps:
	@scripts/install-deps

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DARCLAMP_VERSION='"$(VERSION)"' $(ALL_CFLAGS) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/asan/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DARCLAMP_VERSION='"$(VERSION)"' -std=c11 $(WARN) $(SAN_FLAGS) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

# arclamp-svg embeds flamegraph.js: the script becomes a C string literal in
# build/gen/flamegraph_js.h (svg.c includes it); '?' is escaped so no
# trigraph can form.
$(BUILD)/gen/flamegraph_js.h: arclamp-svg/src/flamegraph.js
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/arclamp-svg/src/svg.o $(BUILD)/asan/obj/arclamp-svg/src/svg.o: $(BUILD)/gen/flamegraph_js.h
$(BUILD)/obj/arclamp-svg/%.o $(BUILD)/asan/obj/arclamp-svg/%.o: CPPFLAGS += -I$(BUILD)/gen -Iarclamp-svg/src

$(BUILD)/bin/arclamp-log: $(BUILD)/obj/arclamp-log/src/main.o $(LOG_OBJ) $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/bin/arclamp-svg: $(BUILD)/obj/arclamp-svg/src/main.o $(SVG_OBJ) $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) -lm
$(BUILD)/asan/bin/arclamp-svg: $(BUILD)/asan/obj/arclamp-svg/src/main.o $(SVG_SAN) $(COMMON_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS) -lm

# Unit tests (Check). Each program's tests/ holds test-*.c files linked
# into one runner per program.
$(BUILD)/tests/test-common: $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard common/tests/*.c)) $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) $(CHECK_LIBS) -lm
$(BUILD)/tests/test-arclamp-log: $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard arclamp-log/tests/*.c) common/tests/testutil.c) $(LOG_OBJ) $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) $(CHECK_LIBS) -lm
$(BUILD)/tests/test-arclamp-svg: $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard arclamp-svg/tests/*.c) common/tests/testutil.c) $(SVG_OBJ) $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) $(CHECK_LIBS) -lm
$(BUILD)/asan/tests/test-arclamp-svg: $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(wildcard arclamp-svg/tests/*.c) common/tests/testutil.c) $(SVG_SAN) $(COMMON_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS) $(CHECK_LIBS) -lm
$(BUILD)/asan/tests/test-common: $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(wildcard common/tests/*.c)) $(COMMON_SAN)
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

# --- the PHP extension (php-excimer-sampler) ------------------------------
# phpize writes its build system into the directory it runs in, so the
# sources are copied (mtimes kept, so make only recompiles what changed)
# into build/php-ext, configured once, and the module copied to build/php/.
EXT_DIR     := php-excimer-sampler
EXT_SOURCES := $(EXT_DIR)/config.m4 $(wildcard $(EXT_DIR)/*.h $(EXT_DIR)/src/*.[ch])
RUN_TESTS   := /usr/lib/php/20220829/build/run-tests.php

$(BUILD)/php-ext/configured: $(EXT_DIR)/config.m4
	@rm -rf $(BUILD)/php-ext && mkdir -p $(BUILD)/php-ext
	cp -p $(EXT_DIR)/config.m4 $(BUILD)/php-ext/
	cd $(BUILD)/php-ext && phpize >/dev/null && ./configure --enable-excimer >/dev/null
	@touch $@

$(BUILD)/php/excimer.so: $(BUILD)/php-ext/configured $(EXT_SOURCES)
	@mkdir -p $(BUILD)/php-ext/src $(BUILD)/php
	cp -p $(wildcard $(EXT_DIR)/*.h) $(BUILD)/php-ext/
	cp -p $(wildcard $(EXT_DIR)/src/*.[ch]) $(BUILD)/php-ext/src/
	$(MAKE) --no-print-directory -C $(BUILD)/php-ext >/dev/null
	cp $(BUILD)/php-ext/modules/excimer.so $@.tmp && mv -f $@.tmp $@

# The .phpt suite with PHP's own run-tests.php; -n keeps Debian's own
# excimer.ini (php-excimer, installed for the benchmark) from loading.
php-tests: $(BUILD)/php/excimer.so
	@echo "== php-excimer-sampler .phpt tests"
	NO_INTERACTION=1 REPORT_EXIT_STATUS=1 php -n $(RUN_TESTS) -n -q --show-diff \
	  -d extension=$(CURDIR)/$(BUILD)/php/excimer.so $(EXT_DIR)/tests

# --fair-sched: valgrind's default thread lock lets a busy PHP thread starve
# the timer helper thread, so timers would barely fire. Some timing tests
# need more than run-tests' default 60 s under valgrind.
php-tests-valgrind: $(BUILD)/php/excimer.so
	@echo "== php-excimer-sampler .phpt tests under valgrind"
	USE_ZEND_ALLOC=0 VALGRIND_OPTS=--fair-sched=yes NO_INTERACTION=1 REPORT_EXIT_STATUS=1 \
	  php -n $(RUN_TESTS) -n -q -m --set-timeout 300 --show-diff \
	  -d extension=$(CURDIR)/$(BUILD)/php/excimer.so $(EXT_DIR)/tests

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# --- tests ---------------------------------------------------------------
PYTEST := /usr/bin/python3 -m pytest

unit-tests: $(UNIT_TESTS)
	@for t in $(UNIT_TESTS); do echo "== $$t"; $$t || exit 1; done

asan-tests: $(SAN_TESTS)
	@for t in $(SAN_TESTS); do echo "== $$t (ASan+UBSan)"; \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 $$t || exit 1; done

# The daemon against real redis-server, sockets and notify sockets; once
# with the release build and once with the ASan+UBSan build.
log-tests: $(BUILD)/bin/arclamp-log $(BUILD)/asan/bin/arclamp-log
	@echo "== arclamp-log integration tests"
	ARCLAMP_LOG_BIN=$(BUILD)/bin/arclamp-log $(PYTEST) -q -p no:cacheprovider arclamp-log/tests
	@echo "== arclamp-log integration tests (ASan+UBSan build)"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ARCLAMP_LOG_BIN=$(BUILD)/asan/bin/arclamp-log $(PYTEST) -q -p no:cacheprovider arclamp-log/tests

# arclamp-svg's command-line, generator, xmllint and browser tests; also
# against the ASan+UBSan build (the browser test only once: it checks the
# script, not the C).
svg-tests: $(BUILD)/bin/arclamp-svg $(BUILD)/asan/bin/arclamp-svg
	@echo "== arclamp-svg tests"
	ARCLAMP_SVG_BIN=$(BUILD)/bin/arclamp-svg $(PYTEST) -q -p no:cacheprovider arclamp-svg/tests
	@echo "== arclamp-svg tests (ASan+UBSan build)"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ARCLAMP_SVG_BIN=$(BUILD)/asan/bin/arclamp-svg ARCLAMP_SKIP_BROWSER=1 \
	  $(PYTEST) -q -p no:cacheprovider arclamp-svg/tests

check: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory unit-tests asan-tests log-tests svg-tests php-tests php-tests-valgrind

# --- demo and benchmarks --------------------------------------------------
demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo

bench: deps
	@$(MAKE) --no-print-directory all $(BENCH_BINS)
	@bench/arclamp-log.sh
	@bench/arclamp-svg.sh
	@bench/excimer.sh

clean:
	rm -rf $(BUILD)

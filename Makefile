# Tocsin: build, test, install. The two commands for a new machine are
# scripts/demo.sh and scripts/test.sh (they install what is missing, then
# call `make demo` and `make test`).
#
#   make            build libtocsin.so and libtocsin-notify.so into out/CONFIG/
#                   (with headers and pkg-config files)
#   make demo       build the tocsin command and count down 5 s with it
#   make command    build the tocsin command into out/CONFIG/bin
#   make docs       the Swift API's documentation (DocC): out/docs/Tocsin.doccarchive
#   make check      the fast check while working (about a minute on a built
#                   tree): Swift, C ABI, header/symbols, Python, command and
#                   service tests; no instrumented builds, no desktop session
#   make test       every test: the above, the stress, sanitizer, fuzz and
#                   crash tests, examples, desktop session, clean pip install,
#                   the packages on fresh Debian roots
#   make wheel      dist/tocsin-VERSION-py3-none-manylinux_2_17_ARCH.whl
#   make deb        dist/*.deb: libtocsin0, libtocsin-notify0, libtocsin-dev,
#                   tocsin, python3-tocsin (lintian-checked)
#   make install    PREFIX=/usr/local by default; the optimized build
#                   (CONFIG=debug installs the debug build); it says what
#                   else a prefix of your own needs (PATH, pkg-config)
#   make uninstall  the same PREFIX: removes what make install put there

SHELL := /bin/bash
PREFIX ?= /usr/local
# Where make install puts the libraries (a Debian package: /usr/lib/ARCH-TRIPLET).
LIBDIR ?= $(PREFIX)/lib
# Debug builds by default (fastest to build, for working and testing); an
# install is of the optimized build unless CONFIG says otherwise.
CONFIG ?= $(if $(filter install install-lib,$(MAKECMDGOALS)),release,debug)
CC ?= cc
# Package.swift: a warning in the C targets fails the build too (the Swift
# targets' always do). Set here, not for a package that depends on Tocsin.
export TOCSIN_STRICT := 1
VERSION := $(shell sed -n 's/^\#define TOCSIN_VERSION_STRING "\(.*\)"/\1/p' include/tocsin.h)
MAJOR := $(firstword $(subst ., ,$(VERSION)))
OUT := out/$(CONFIG)
CFLAGS_TEST := -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -g
# Runs a program with no Swift toolchain on its paths: only the staged library.
NO_SWIFT_ENV = env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=$(abspath $(OUT))/lib TOCSIN_TEST_SET_CLOCK=$(TOCSIN_TEST_SET_CLOCK)

PYTHON ?= python3
VENV := out/venv
# The longest a command, service or desktop test may take (pytest-timeout):
# a test that hangs fails with its traceback instead of holding the run.
TEST_TIMEOUT ?= 600

.PHONY: all lib command translations pot demo docs check test test-steps wheel deb stress test-swift test-as-dependency test-instructions test-c test-stress test-sanitizers test-fuzz test-crash test-abi test-examples test-python test-python-versions test-rust test-node test-cli test-service test-desktop \
	test-python-install test-debian instrumented-libs stage-service install install-lib install-service install-wake uninstall man clean

all: lib

# Builds both libraries and stages them as they will be installed:
# lib/libNAME.so.VERSION with the .so.MAJOR and .so links, include/, pkgconfig/.
# Both are built in Embedded Swift (scripts/build-embedded.sh): libtocsin.so
# from the engine's sources (~330 KB stripped, libc, libm and libpthread only),
# libtocsin-notify.so from the notifier's (~300 KB, plus the desktop's
# libraries), the same sources SwiftPM builds for the Swift API, the command
# and the service. Where the toolchain has no Embedded runtime for this
# machine, SwiftPM's products tocsin-core and tocsin-notify (the Swift
# runtime linked in, 6 MB or more each) stand in.
LIBRARIES := tocsin tocsin-notify
EMBEDDED_RUNTIME := $(shell dirname "$$(readlink -f "$$(command -v swiftc)")")/../lib/swift/embedded/$(shell uname -m)-unknown-linux-gnu

LIBTOCSIN := $(OUT)/lib/libtocsin.so.$(VERSION)
LIBNOTIFY := $(OUT)/lib/libtocsin-notify.so.$(VERSION)
SHARED_SOURCES := $(wildcard Sources/TocsinBase/*.swift Sources/CTocsin/*.c Sources/CTocsin/include/*.h \
	Sources/CTocsinSystem/*.c Sources/CTocsinSystem/include/*.h embedded/*.swift embedded/Glibc/* embedded/CTocsin/*) \
	scripts/build-embedded.sh
ENGINE_SOURCES := $(SHARED_SOURCES) $(wildcard Sources/Tocsin/*.swift Sources/TocsinC/* embedded/CTocsinSystem/*)
NOTIFY_SOURCES := $(SHARED_SOURCES) $(wildcard Sources/TocsinDesktop/*.swift Sources/TocsinNotifyC/* \
	Sources/CTocsinNotify/*.c Sources/CTocsinNotify/include/*.h Sources/CNotify/* Sources/CCanberra/* \
	embedded/CNotify/* embedded/CCanberra/* embedded/CTocsinNotify/*)

# The translations (po/, docs/translating.md): one .mo per language, where
# the notifier and the command built here find them ($(OUT)/share/locale,
# beside $(OUT)/lib and $(OUT)/bin). Without msgfmt (Debian's gettext) the
# texts stay English.
LINGUAS := $(shell cat po/LINGUAS)
MO_FILES := $(foreach lang,$(LINGUAS),$(OUT)/share/locale/$(lang)/LC_MESSAGES/tocsin.mo)
translations:
	@if command -v msgfmt >/dev/null; then $(MAKE) --no-print-directory $(MO_FILES); \
	  else echo "translations: no msgfmt (apt install gettext): the texts stay English"; fi
$(OUT)/share/locale/%/LC_MESSAGES/tocsin.mo: po/%.po
	@mkdir -p $(dir $@)
	msgfmt --check -o $@ $<

# po/tocsin.pot from the sources (`tr`/`trn` calls of the files in
# po/POTFILES, read by scripts/xgettext-swift.sh); scripts/check-translations.sh
# (make check) fails when it is out of date, a file that translates is
# missing from POTFILES, or a translation drops a {value}.
pot:
	scripts/xgettext-swift.sh po/tocsin.pot
	@for lang in $(LINGUAS); do msgmerge -q --update --backup=none po/$$lang.po po/tocsin.pot; done

# The two libraries build side by side (each is one single-threaded
# compiler run at a time).
lib: translations
	@$(MAKE) --no-print-directory -j2 $(LIBTOCSIN) $(LIBNOTIFY)
	@mkdir -p $(OUT)/lib/pkgconfig $(OUT)/include
	@for name in $(LIBRARIES); do \
	  ln -sf lib$$name.so.$(VERSION) $(OUT)/lib/lib$$name.so.$(MAJOR); \
	  ln -sf lib$$name.so.$(MAJOR) $(OUT)/lib/lib$$name.so; \
	  sed -e 's|@PREFIX@|$(abspath $(OUT))|' -e 's|@LIBDIR@|$(abspath $(OUT))/lib|' -e 's|@VERSION@|$(VERSION)|' \
	    bindings/c/$$name.pc.in > $(OUT)/lib/pkgconfig/$$name.pc; \
	done
	@cp include/tocsin.h include/tocsin_notify.h $(OUT)/include/

# $(call embedded_or_swiftpm,build-embedded.sh arguments,SwiftPM product)
define embedded_or_swiftpm
	@mkdir -p $(OUT)/lib
	@if [ -d "$(EMBEDDED_RUNTIME)" ]; then \
	  echo "scripts/build-embedded.sh $(1)"; scripts/build-embedded.sh $(1); \
	else \
	  echo "lib: no Embedded Swift runtime for $$(uname -m): $(2) with the Swift runtime linked in"; \
	  swift build -c $(CONFIG) --product $(2) && \
	  cp "$$(swift build -c $(CONFIG) --show-bin-path)/lib$(2).so" $@; \
	fi
endef

$(LIBTOCSIN): $(ENGINE_SOURCES)
	$(call embedded_or_swiftpm,$@,tocsin-core)

$(LIBNOTIFY): $(NOTIFY_SOURCES)
	$(call embedded_or_swiftpm,--notifier $@,tocsin-notify)

# The main job: the `tocsin` command counting down 5 s, with the desktop
# alert and sound at zero (where there is a desktop).
demo: command
	$(OUT)/bin/tocsin 5s "Tea is ready"

command: translations
	swift build -c $(CONFIG) --product tocsin
	@mkdir -p $(OUT)/bin
	@cp "$$(swift build -c $(CONFIG) --show-bin-path)/tocsin" $(OUT)/bin/tocsin

# The manual page, generated by swift-argument-parser's generate-manual from
# the command's own definition (as its --help is).
man: command
	swift build -c $(CONFIG) --product generate-manual
	@mkdir -p $(OUT)/man
	"$$(swift build -c $(CONFIG) --show-bin-path)/generate-manual" $(OUT)/bin/tocsin --output-directory $(OUT)/man
	scripts/fix-manual.sh $(OUT)/man/tocsin.1

check: test-swift test-c test-abi test-python test-rust test-node test-cli test-service
	@echo "make check: all steps passed"

# Every test step, in order (scripts/test.sh runs and times them one by one).
TEST_STEPS := test-swift test-as-dependency test-c test-instructions test-stress test-sanitizers test-fuzz test-crash test-abi test-examples test-python test-python-versions test-rust test-node test-cli test-service test-desktop test-python-install test-debian
test: $(TEST_STEPS)
	@echo "make test: all steps passed"

test-steps:
	@echo $(TEST_STEPS)

test-swift:
	@# Every import declared: SwiftPM's own check (imports from outside a
	@# target's dependency closure) and scripts/check-imports.sh (direct ones).
	scripts/check-imports.sh
	@# Every source file in docs/engine.md's or docs/service-and-command.md's
	@# map, and none over 300 lines without its reason.
	scripts/check-docs-maps.py
	scripts/check-translations.sh
	swift build --build-tests --explicit-target-dependency-import-check error
	@# Per-test lines are dropped; failures, and the closing "Test run" line, stay.
	G_DEBUG=fatal-criticals swift test --skip-build 2>&1 | grep -vE '^\[|^Test Suite|Executed 0 tests|^◇|^✔ (Suite|Test [A-Za-z_]+\()'; exit $${PIPESTATUS[0]}
	@# The DocC catalog with the public symbols, warnings as errors.
	scripts/build-docs.sh

# The Swift API's documentation: out/docs/Tocsin.doccarchive (DocC).
docs:
	swift build --target Tocsin
	scripts/build-docs.sh

# Tocsin as another package's dependency, by a file:// git URL, in release;
# the README's Swift examples run as written.
test-as-dependency:
	scripts/test-as-dependency.sh

# Instructions per call (callgrind: the same however busy the machine) against
# bench/instructions.baseline: fails on more than 10 % growth, and says how
# to update the baseline on purpose.
test-instructions: lib
	bench/instructions.sh --check $(OUT)/lib/libtocsin.so.0

test-c: lib
	$(CC) $(CFLAGS_TEST) -Iinclude Tests/c/*.c -L$(OUT)/lib -ltocsin -lm -lpthread -o $(OUT)/test_abi
	@! ldd $(OUT)/test_abi | grep -i swift || { echo "test_abi must not need a Swift library"; exit 1; }
	$(NO_SWIFT_ENV) $(OUT)/test_abi
	@# The same library in a process without CAP_WAKE_ALARM (and none to regain).
	$(NO_SWIFT_ENV) setpriv --inh-caps=-wake_alarm --bounding-set=-wake_alarm $(OUT)/test_abi wake_denied
	$(CC) $(CFLAGS_TEST) -Iinclude Tests/c/notify/bad_input.c -L$(OUT)/lib -ltocsin -ltocsin-notify -o $(OUT)/test_notify_input
	$(NO_SWIFT_ENV) $(OUT)/test_notify_input

# Saving under SIGKILL: after every kill the file loads (old or new content).
# The kill moments come from CRASH_SEED (fixed here; `make test-crash
# CRASH_SEED=` draws one and prints it).
CRASH_SEED ?= 1
test-crash: lib
	$(CC) $(CFLAGS_TEST) -Iinclude Tests/c/crash/crash_save.c -L$(OUT)/lib -ltocsin -o $(OUT)/crash_save
	@rm -rf $(OUT)/crash && mkdir -p $(OUT)/crash
	$(NO_SWIFT_ENV) $(OUT)/crash_save 300 $(abspath $(OUT))/crash $(CRASH_SEED)

# The engine under ThreadSanitizer and AddressSanitizer/LeakSanitizer: the
# library built instrumented (own scratch folders), the C tests and the
# concurrency stress test built with the toolchain's clang. SANITIZER_SCALE
# multiplies the stress test's work (make stress sets it).
SANITIZER_SCALE ?= 1
SWIFT_CLANG := $(dir $(shell readlink -f $$(command -v swift)))clang
TSAN_LIBS := -L$(dir $(SWIFT_CLANG))../lib/swift/linux -ldispatch -lBlocksRuntime -Wl,-rpath,$(dir $(SWIFT_CLANG))../lib/swift/linux

# pipefail: a test that dies under a sanitizer must fail the step, not just
# lose its last line to tail. These are the same tests run again, so their
# closing lines are marked "thread sanitizer:" / "address sanitizer:" and
# scripts/test.sh reports them apart from the total.
# A library instrumented into DIR: the Embedded Swift build that make lib
# ships (build-embedded.sh arguments $(5)) with SANITIZE=$(1), or where there
# is no Embedded runtime, SwiftPM's product $(6) built with the flags $(2) in
# scratch path .build-$(4). $(7): the file's name in DIR.
define instrumented_library
	@mkdir -p $(3)
	@if [ -d "$(EMBEDDED_RUNTIME)" ]; then \
	  SANITIZE=$(1) scripts/build-embedded.sh $(5) $(3)/$(7) 2>&1 | grep -E "error:" ; [ $${PIPESTATUS[0]} -eq 0 ]; \
	else \
	  swift build --product $(6) $(2) --scratch-path .build-$(4) 2>&1 | grep -E "error:" ; \
	  cp .build-$(4)/debug/lib$(6).so $(3)/$(7); \
	fi
endef
instrumented_libtocsin = $(call instrumented_library,$(1),$(2),$(3),$(4),,tocsin-core,libtocsin.so.0)
instrumented_libnotify = $(call instrumented_library,$(1),$(2),$(3),$(4),--notifier,tocsin-notify,libtocsin-notify.so.0)
comma := ,

TSAN_LIBTOCSIN := out/thread/lib/libtocsin.so.0
ASAN_LIBTOCSIN := out/address/lib/libtocsin.so.0
ASAN_LIBNOTIFY := out/address/lib/libtocsin-notify.so.0
FUZZ_LIBTOCSIN := out/fuzz/lib/libtocsin.so.0
$(TSAN_LIBTOCSIN): $(ENGINE_SOURCES)
	@echo "== thread sanitizer: building libtocsin"
	$(call instrumented_libtocsin,thread,--sanitize=thread,out/thread/lib,thread)
$(ASAN_LIBTOCSIN): $(ENGINE_SOURCES)
	@echo "== address sanitizer: building libtocsin"
	$(call instrumented_libtocsin,address,--sanitize=address,out/address/lib,address)
$(ASAN_LIBNOTIFY): $(NOTIFY_SOURCES)
	@echo "== address sanitizer: building libtocsin-notify"
	$(call instrumented_libnotify,address,--sanitize=address,out/address/lib,address)
$(FUZZ_LIBTOCSIN): $(ENGINE_SOURCES)
	@echo "== fuzzer: building libtocsin"
	$(call instrumented_libtocsin,fuzzer$(comma)address,--sanitize=address -Xswiftc -sanitize=fuzzer,out/fuzz/lib,fuzz)

# Every instrumented library, two builds at a time (the fuzzer's too, for
# test-fuzz after this step).
instrumented-libs:
	@$(MAKE) --no-print-directory -j2 $(TSAN_LIBTOCSIN) $(ASAN_LIBTOCSIN) $(ASAN_LIBNOTIFY) $(FUZZ_LIBTOCSIN)

# Tests that run on one thread only (the model test on a manual clock, the
# calendar and zone rules against their oracles) can have no data race: the
# plain run (test-swift) covers them, and under ThreadSanitizer they were
# 165 of its 185 s (the other 179 tests take 20 s under it).
TSAN_SKIP := ModelTests offsetsAgreeWithZoneinfoFrom2015To2055 anOccurrenceIsStrictlyAfterAndNoneAfter2199

test-sanitizers: instrumented-libs
	$(SWIFT_CLANG) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=thread -Iinclude Tests/c/*.c out/thread/lib/libtocsin.so.0 $(TSAN_LIBS) -lm -lpthread -o out/thread/test_abi
	$(SWIFT_CLANG) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=thread -Iinclude Tests/c/stress/stress.c out/thread/lib/libtocsin.so.0 $(TSAN_LIBS) -lpthread -o out/thread/stress
	$(SWIFT_CLANG) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=address -fuse-ld=bfd -Iinclude Tests/c/*.c out/address/lib/libtocsin.so.0 -lm -lpthread -o out/address/test_abi
	$(SWIFT_CLANG) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=address -fuse-ld=bfd -Iinclude Tests/c/stress/stress.c out/address/lib/libtocsin.so.0 -lpthread -o out/address/stress
	set -o pipefail; env LD_LIBRARY_PATH=$(abspath out/thread/lib) TSAN_OPTIONS=halt_on_error=1:exitcode=66 out/thread/test_abi | tail -1 | sed 's/^/thread sanitizer: /'
	set -o pipefail; env LD_LIBRARY_PATH=$(abspath out/thread/lib) TSAN_OPTIONS=halt_on_error=1:exitcode=66 out/thread/stress 8 $$((300 * $(SANITIZER_SCALE))) 100000 | sed 's/^/thread sanitizer: /'
	set -o pipefail; env LD_LIBRARY_PATH=$(abspath out/address/lib) ASAN_OPTIONS=detect_leaks=1 out/address/test_abi | tail -1 | sed 's/^/address sanitizer: /'
	set -o pipefail; env LD_LIBRARY_PATH=$(abspath out/address/lib) ASAN_OPTIONS=detect_leaks=1 out/address/stress 8 $$((300 * $(SANITIZER_SCALE))) 0 | sed 's/^/address sanitizer: /'
	$(SWIFT_CLANG) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=address -fuse-ld=bfd -Iinclude Tests/c/notify/bad_input.c out/address/lib/libtocsin.so.0 out/address/lib/libtocsin-notify.so.0 -o out/address/test_notify_input
	set -o pipefail; env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=$(abspath out/address/lib) ASAN_OPTIONS=detect_leaks=1 out/address/test_notify_input | tail -1 | sed 's/^/address sanitizer: /'
	@echo "== thread sanitizer: the Swift tests"
	@swift build --build-tests --sanitize=thread --scratch-path .build-thread 2>&1 | grep -E "error:" ; true
	set -o pipefail; TSAN_OPTIONS=halt_on_error=1:exitcode=66 swift test --skip-build --sanitize=thread --scratch-path .build-thread \
	  $(addprefix --skip ,$(TSAN_SKIP)) 2>&1 \
	  | grep -E "Test run with|ThreadSanitizer|SUMMARY|✘" | sed 's/^/thread sanitizer: /'

# libFuzzer on the C ABI (Tests/fuzz/fuzz_abi.c): the library built with
# AddressSanitizer and libFuzzer's coverage; starts from Tests/fuzz/corpus and
# grows a working corpus in out/fuzz/corpus. Findings land in out/fuzz/.
# Its mutations come from FUZZ_SEED (fixed here; `make test-fuzz FUZZ_SEED=0`
# lets libFuzzer draw one); the seed and any reproducer are printed.
# 30 s in the test run (with the fixed seed and the committed corpus: a
# smoke test of the ABI under hostile input; `make stress` fuzzes an hour).
FUZZ_SECONDS ?= 30
FUZZ_SEED ?= 1
test-fuzz: $(FUZZ_LIBTOCSIN)
	@mkdir -p out/fuzz/corpus
	$(SWIFT_CLANG) -g -O1 -fsanitize=fuzzer,address -fuse-ld=bfd -Iinclude Tests/fuzz/fuzz_abi.c out/fuzz/lib/libtocsin.so.0 -lm -o out/fuzz/fuzz_abi
	env LD_LIBRARY_PATH=$(abspath out/fuzz/lib) ASAN_OPTIONS=detect_leaks=1 out/fuzz/fuzz_abi \
	  -max_total_time=$(FUZZ_SECONDS) -seed=$(FUZZ_SEED) -timeout=10 -print_final_stats=1 -artifact_prefix=$(abspath out/fuzz)/ \
	  out/fuzz/corpus Tests/fuzz/corpus 2>&1 | grep -E "^(INFO: Seed:|Done|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY|broken promise|MS: |Base64: |artifact_prefix|Test unit written)" ; \
	  status=$${PIPESTATUS[0]}; [ $$status -eq 0 ] && echo "fuzz: 1 passed, 0 failed" || { echo "fuzz: 0 passed, 1 failed"; exit 1; }

# The long versions (minutes to hours): millions of model operations, 10x the
# stress and sanitizer work, an hour of fuzzing.
stress:
	TOCSIN_LONG=1 swift test --filter ModelTests
	$(MAKE) --no-print-directory test-stress test-sanitizers SANITIZER_SCALE=10
	$(MAKE) --no-print-directory test-fuzz FUZZ_SECONDS=3600 FUZZ_SEED=0

# The fast concurrency and memory check on the ordinary build: 8 threads,
# then a million create/start/cancel/free cycles with RSS before and after.
test-stress: lib
	$(CC) $(CFLAGS_TEST) -O1 -Iinclude Tests/c/stress/stress.c -L$(OUT)/lib -ltocsin -lpthread -o $(OUT)/stress
	$(NO_SWIFT_ENV) $(OUT)/stress 8 $$((2000 * $(SANITIZER_SCALE))) 1000000

test-abi: lib
	FOOTPRINT_KB=$$([ -d "$(EMBEDDED_RUNTIME)" ] && echo 340) scripts/check-abi.sh $(OUT)/lib/libtocsin.so include/tocsin.h
	@# The notifier's bound: 300 KB until the sleep timer (tocsin_alert.media:
	@# MPRIS volume fade, Pause/Stop at zero) took it from 299,304 to about
	@# 307,700 bytes stripped (the file grows by whole 4 KB pages).
	FOOTPRINT_KB=$$([ -d "$(EMBEDDED_RUNTIME)" ] && echo 310) scripts/check-abi.sh $(OUT)/lib/libtocsin-notify.so include/tocsin_notify.h \
	  'libnotify\.so\.4|libcanberra\.so\.0|lib(glib|gobject|gio|gdk_pixbuf)-2\.0\.so\.0'
	@# The manifest every binding is checked against (bindings/contract):
	@# current with the headers, and the libraries export what it declares.
	scripts/gen-contract.py --check --library $(OUT)/lib/libtocsin.so --notify-library $(OUT)/lib/libtocsin-notify.so
	@# The contract's scenarios through the C header (make test-python runs them in Python).
	$(CC) $(CFLAGS_TEST) -Iinclude bindings/contract/*.c -L$(OUT)/lib -ltocsin -lm -o $(OUT)/contract_runner
	$(NO_SWIFT_ENV) $(OUT)/contract_runner bindings/contract/scenarios
	@# The docs' numbers that come from the code or the build: Add's option
	@# count, and the README's stripped sizes (of the Embedded Swift build).
	scripts/check-doc-numbers.py $$([ -d "$(EMBEDDED_RUNTIME)" ] && echo $(OUT)/lib)

# The notifier as a person sees and hears it: in a throw-away headless
# session (Xvfb, D-Bus, dunst, PulseAudio with a recorded null sink), and
# outside any session. Screenshots land in out/artifacts/.
test-desktop: lib stage-service $(VENV)/.installed
	$(CC) -Wall -Werror Tests/desktop/alert_driver.c -I$(OUT)/include -L$(OUT)/lib -ltocsin -ltocsin-notify -o $(OUT)/alert_driver
	@mkdir -p out/artifacts
	@# Without DESKTOP_TESTS: two sessions side by side, each with its own X
	@# server, bus, dunst and PulseAudio (the tests mostly wait on real time);
	@# each one's output is shown once both are done.
	export TOCSIN_SERVICE_DIR=$(abspath $(OUT))/service-prefix/share/dbus-1/services \
	  TOCSIN_DRIVER=$(abspath $(OUT))/alert_driver TOCSIN_ARTIFACTS=$(abspath out/artifacts) TOCSIN_BIN=$(abspath $(OUT))/bin/tocsin \
	  LD_LIBRARY_PATH=$(abspath $(OUT))/lib TOCSIN_LIBRARY=$(abspath $(OUT))/lib/libtocsin.so.0 \
	  TOCSIN_NOTIFY_LIBRARY=$(abspath $(OUT))/lib/libtocsin-notify.so.0 PYTHONPATH=$(abspath bindings/python):$(abspath Tests/support); \
	pytest="$(abspath $(VENV))/bin/python -m pytest -q -p no:cacheprovider --timeout=$(TEST_TIMEOUT)"; \
	if [ -n "$(DESKTOP_TESTS)" ]; then scripts/desktop-session.sh $$pytest $(DESKTOP_TESTS); exit; fi; \
	scripts/desktop-session.sh $$pytest $(DESKTOP_GROUP_1) > out/desktop-1.log 2>&1 & first=$$!; \
	scripts/desktop-session.sh $$pytest $(DESKTOP_GROUP_2) > out/desktop-2.log 2>&1; second=$$?; \
	wait $$first; first=$$?; cat out/desktop-1.log out/desktop-2.log; [ $$first -eq 0 ] && [ $$second -eq 0 ]

# The desktop suite in two halves of about equal time (the timer service's
# tests, 24 of them with the SIGKILL runs, about as long as all the others).
DESKTOP_GROUP_1 := Tests/desktop/test_service.py
DESKTOP_GROUP_2 := $(filter-out $(DESKTOP_GROUP_1),$(wildcard Tests/desktop/test_*.py))

# The service as make install puts it, in a throw-away prefix a session bus
# activates it from.
stage-service: command
	@rm -rf $(OUT)/service-prefix && mkdir -p $(OUT)/service-prefix/bin
	cp $(OUT)/bin/tocsin $(OUT)/service-prefix/bin/
	$(MAKE) --no-print-directory install-service PREFIX=$(abspath $(OUT))/service-prefix

# The timer service with no desktop (no notification or sound server): each
# test gets its own private session bus that activates the staged service,
# so the tests run side by side. Its calls, signals, errors, the command as
# its client, SIGKILL and reactivation, a full and a read-only disk.
test-service: lib stage-service $(VENV)/.installed
	TOCSIN_SERVICE_DIR=$(abspath $(OUT))/service-prefix/share/dbus-1/services TOCSIN_BIN=$(abspath $(OUT))/bin/tocsin \
	  TOCSIN_OUT=$(abspath $(OUT)) TOCSIN_LIBRARY=$(abspath $(OUT))/lib/libtocsin.so.0 \
	  PYTHONPATH=$(abspath Tests/support):$(abspath bindings/python) \
	  $(VENV)/bin/python -m pytest -q -p no:cacheprovider --timeout=$(TEST_TIMEOUT) -n $(TEST_JOBS) $(or $(SERVICE_TESTS),Tests/service)

# Installs into a throw-away prefix, builds the examples the way a user would
# (pkg-config), and runs them with no Swift toolchain on any path.
test-examples: lib
	@rm -f $(OUT)/examples.passed
	@# make install builds the optimized command unless told otherwise.
	env -u CONFIG MAKEFLAGS= MAKEOVERRIDES= $(MAKE) --no-print-directory -n install PREFIX=/nonexistent | grep -q -- 'swift build -c release --product tocsin'
	@rm -rf $(OUT)/prefix
	$(MAKE) --no-print-directory install-lib PREFIX=$(abspath $(OUT))/prefix CONFIG=$(CONFIG)
	@# The first C block of the README is a whole program; later ones are fragments.
	awk '/^```c$$/ && !done { keep = 1; next } /^```$$/ && keep { keep = 0; done = 1 } keep' README.md > $(OUT)/readme_example.c
	for example in countdown poll_loop; do \
	  $(CC) -Wall -Werror bindings/c/examples/$$example.c \
	    $$(PKG_CONFIG_PATH=$(abspath $(OUT))/prefix/lib/pkgconfig pkg-config --cflags --libs tocsin) \
	    -lpthread -o $(OUT)/$$example || exit 1; \
	done
	$(CC) -Wall -Werror bindings/c/examples/alarm.c \
	  $$(PKG_CONFIG_PATH=$(abspath $(OUT))/prefix/lib/pkgconfig pkg-config --cflags --libs tocsin-notify) -o $(OUT)/alarm
	@# Outside any desktop session: it finishes and says why there is no alert.
	@# It waits for its countdown on the real clock (2 s), then says it ran out.
	began=$$(date +%s.%N); env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=$(abspath $(OUT))/prefix/lib $(OUT)/alarm 2 Eggs \
	  | tee $(OUT)/alarm.log; awk -v began=$$began -v ended=$$(date +%s.%N) 'BEGIN { exit !(ended - began >= 2) }'
	grep -q '^Eggs: finished after 2.0 s' $(OUT)/alarm.log
	grep -q '^notifier: alert failed: no session bus' $(OUT)/alarm.log
	@echo alarm >> $(OUT)/examples.passed
	env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=$(abspath $(OUT))/prefix/lib $(OUT)/countdown 1.2 Eggs | tee $(OUT)/countdown.log
	grep -q '^FINISH: Eggs after 1.200 s' $(OUT)/countdown.log
	@echo countdown >> $(OUT)/examples.passed
	env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=$(abspath $(OUT))/prefix/lib $(OUT)/poll_loop | tee $(OUT)/poll_loop.log
	grep -q '^Eggs *finish' $(OUT)/poll_loop.log
	@echo poll_loop >> $(OUT)/examples.passed
	@# The README's C example, compiled and run exactly as shown there.
	$(CC) -Wall -Werror $(OUT)/readme_example.c \
	  $$(PKG_CONFIG_PATH=$(abspath $(OUT))/prefix/lib/pkgconfig pkg-config --cflags --libs tocsin) -o $(OUT)/tea
	env -i LD_LIBRARY_PATH=$(abspath $(OUT))/prefix/lib $(OUT)/tea | tee $(OUT)/tea.log
	diff <(printf '1 s left\nFINISH\n') $(OUT)/tea.log
	@echo readme_example >> $(OUT)/examples.passed
	@# make uninstall takes away what the install put in the prefix, and nothing else.
	$(MAKE) --no-print-directory install-service PREFIX=$(abspath $(OUT))/prefix
	touch $(OUT)/prefix/share/not-ours
	$(MAKE) --no-print-directory uninstall PREFIX=$(abspath $(OUT))/prefix
	test "$$(cd $(OUT)/prefix && find . -not -type d -o -name tocsin | tr '\n' ' ')" = "./share/not-ours "
	@echo uninstall >> $(OUT)/examples.passed
	@# Counted as they passed (make stops at the first that fails).
	@echo "$$(wc -l < $(OUT)/examples.passed) passed, 0 failed"

# The command's and the service's tests are independent of each other
# (their own files, buses and services) and mostly wait for timers: they
# run side by side in this many processes (pytest-xdist).
TEST_JOBS ?= 4

# The Python binding's tests, on the real library staged above.
# The command as a person (under a pseudo-terminal) and a script run it.
test-cli: command man $(VENV)/.installed
	TOCSIN_BIN=$(abspath $(OUT))/bin/tocsin TOCSIN_MAN=$(abspath $(OUT))/man/tocsin.1 PYTHONPATH=$(abspath Tests/support) \
	  $(VENV)/bin/python -m pytest -q -p no:cacheprovider --timeout=$(TEST_TIMEOUT) -n $(TEST_JOBS) Tests/cli

test-python: lib $(VENV)/.installed
	cd bindings/python && $(abspath $(VENV))/bin/mypy --strict --no-incremental tocsin
	cd bindings/python && TOCSIN_LIBRARY=$(abspath $(OUT))/lib/libtocsin.so.0 \
	  TOCSIN_NOTIFY_LIBRARY=$(abspath $(OUT))/lib/libtocsin-notify.so.0 \
	  $(abspath $(VENV))/bin/python -m pytest -q -p no:cacheprovider

# The Rust crates (bindings/rust): fmt, clippy, their tests and doc tests
# (tokio from Debian's librust-tokio-dev, through a throw-away CARGO_HOME),
# rustdoc, valgrind memcheck, and ThreadSanitizer where make
# instrumented-libs has built its libtocsin (scripts/test-rust.sh).
test-rust: lib
	scripts/test-rust.sh $(OUT)/lib
# The Node.js addon (bindings/node) as node-gyp builds it (the flags of
# /usr/include/node/common.gypi for an addon), warnings as errors against
# the real header, so the compiler checks the type of every C call.
NODE_ADDON := $(OUT)/node/tocsin.node
NODE_CFLAGS := -std=gnu11 -fPIC -pthread -Wall -Wextra -Wno-unused-parameter -Werror -O2 -fno-omit-frame-pointer \
  -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64 -DBUILDING_NODE_EXTENSION -DNODE_GYP_MODULE_NAME=tocsin -DNAPI_VERSION=8
$(NODE_ADDON): $(wildcard bindings/node/src/*.c bindings/node/src/*.h) include/tocsin.h $(LIBTOCSIN)
	@mkdir -p $(@D)
	$(CC) $(NODE_CFLAGS) -I/usr/include/node -Iinclude bindings/node/src/*.c -shared -L$(OUT)/lib -ltocsin -o $@

# node --test on bindings/node/test (the contract's scenarios, the real
# loop, workers, misuse, the README's examples); the TAP copy gives the
# closing line scripts/test.sh totals.
test-node: lib $(NODE_ADDON)
	cd bindings/node && TOCSIN_NODE_ADDON=$(abspath $(NODE_ADDON)) LD_LIBRARY_PATH=$(abspath $(OUT))/lib \
	  PKG_CONFIG_PATH=$(abspath $(OUT))/lib/pkgconfig \
	  node --test --test-reporter=spec --test-reporter-destination=stdout \
	  --test-reporter=tap --test-reporter-destination=$(abspath $(OUT))/node/tap.txt test/*.test.js; \
	status=$$?; awk '/^# pass /{p=$$3} /^# fail /{f=$$3} END{printf "node: %d passed, %d failed\n", p, f}' $(abspath $(OUT))/node/tap.txt; \
	exit $$status

# The Python versions the binding claims (pyproject.toml's requires-python,
# the README): on each, mypy --strict and the binding's tests, two versions
# at a time on the library built above, each in its own venv (out/venv-X.Y,
# kept). A version whose interpreter is missing fails the step.
PYTHON_VERSIONS := 3.9 3.10 3.11 3.12 3.13
test-python-versions: lib $(VENV)/.installed
	scripts/test-python-versions.sh $(OUT)/lib/libtocsin.so.0 $(OUT)/lib/libtocsin-notify.so.0 $(PYTHON_VERSIONS)

$(VENV)/.installed: Tests/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r Tests/requirements.txt
	@touch $@

# The Python package as a wheel for any Linux with glibc 2.17 or later
# (manylinux2014): dist/tocsin-VERSION-py3-none-manylinux_2_17_ARCH.whl. It
# bundles the release libtocsin.so.0 (Embedded Swift: libc alone, no symbol
# version past GLIBC_2.17, check-abi checks it); the notifier is left to the
# system (libtocsin-notify0), as it needs the desktop's libraries. auditwheel
# must find the tag claimed consistent with what the library references.
WHEEL_TAG := manylinux_2_17_$(shell uname -m)
WHEEL := dist/tocsin-$(VERSION)-py3-none-$(WHEEL_TAG).whl
wheel: $(VENV)/.installed
	$(MAKE) --no-print-directory lib CONFIG=release
	rm -rf out/wheel bindings/python/build && mkdir -p out/wheel/lib dist
	strip -o out/wheel/lib/libtocsin.so.0 out/release/lib/libtocsin.so.$(VERSION)
	TOCSIN_BUNDLE_LIBRARY=$(abspath out/wheel/lib/libtocsin.so.0) TOCSIN_BUNDLE_NOTIFIER=0 \
	  $(VENV)/bin/pip wheel -q --disable-pip-version-check --no-deps -w out/wheel ./bindings/python
	$(VENV)/bin/wheel tags --remove --platform-tag $(WHEEL_TAG) out/wheel/tocsin-$(VERSION)-*.whl > /dev/null
	mv out/wheel/tocsin-$(VERSION)-py3-none-$(WHEEL_TAG).whl $(WHEEL)
	$(VENV)/bin/auditwheel show $(WHEEL) | tee out/wheel/auditwheel.txt
	@tr -s ' \n' ' ' < out/wheel/auditwheel.txt | grep -q 'consistent with the following platform tag: "$(WHEEL_TAG)"' \
	  || { echo "wheel: auditwheel does not accept $(WHEEL_TAG)" >&2; exit 1; }
	@echo "wheel: $(WHEEL) ($$(du -k $(WHEEL) | cut -f1) KB)"

# Debian binary packages in dist/ (libtocsin0, libtocsin-notify0,
# libtocsin-dev, tocsin, python3-tocsin), built with dpkg-shlibdeps,
# dpkg-gensymbols and dpkg-deb from the release `make install`
# (scripts/build-debs.sh), then checked by lintian: any error fails.
deb:
	scripts/build-debs.sh
	lintian --fail-on error dist/*_$(VERSION)_*.deb | tee out/deb/lintian.txt

# The packages and the wheel on a fresh Debian 12 without Swift, and the
# wheel on Debian 11 (scripts/test-debian.sh; the roots are made once per
# machine by debootstrap and cached in out/debian). Needs root.
test-debian: wheel deb
	scripts/test-debian.sh

# A clean `pip install ./bindings/python` in a fresh virtual environment (it
# builds and bundles a release libtocsin.so), then the examples as a user
# runs them: no TOCSIN_LIBRARY, no source tree on the path. The same wheel
# on the oldest and newest Python claimed (INSTALL_PYTHONS), where 10,000
# countdowns must each get their FINISH (Tests/python-install).
INSTALL_PYTHONS := 3.9 3.13
test-python-install:
	rm -rf out/venv-install out/python-install out/python-install.passed
	$(PYTHON) -m venv out/venv-install
	out/venv-install/bin/pip wheel -q --disable-pip-version-check --no-deps -w out/python-install ./bindings/python
	out/venv-install/bin/pip install -q --disable-pip-version-check out/python-install/tocsin-*.whl
	cd /tmp && env -u TOCSIN_LIBRARY -u PYTHONPATH $(abspath out/venv-install)/bin/python -c \
	  'import tocsin._library as l, tocsin; tocsin.Engine(manual_clock=True).close(); p = next(iter(l._loaded)); print("loaded", p); assert "/site-packages/tocsin/_lib/" in p'
	@echo import >> out/python-install.passed
	cd /tmp && for example in "progress.py 0.5" "kitchen.py 0.1" "async_timers.py 0.5"; do \
	  echo "== $$example"; \
	  env -u TOCSIN_LIBRARY -u PYTHONPATH timeout 60 $(abspath out/venv-install)/bin/python $(abspath bindings/python/examples)/$$example > $(abspath out)/example.log || exit 1; \
	  tr '\r' '\n' < $(abspath out)/example.log | tail -3; \
	  grep -qE 'is ready|all done' $(abspath out)/example.log || exit 1; \
	  echo "$$example" >> $(abspath out)/python-install.passed; \
	done
	for version in $(INSTALL_PYTHONS); do \
	  python=$$(scripts/find-python.sh $$version) || exit 1; \
	  $$python -m venv --without-pip out/python-install/venv-$$version && \
	  out/venv-install/bin/pip --python out/python-install/venv-$$version/bin/python install -q --disable-pip-version-check \
	    out/python-install/tocsin-*.whl && \
	  (cd /tmp && env -u TOCSIN_LIBRARY -u PYTHONPATH timeout 120 $(abspath out)/python-install/venv-$$version/bin/python \
	    $(abspath Tests/python-install/ten_thousand.py)) || exit 1; \
	  echo "ten_thousand $$version" >> out/python-install.passed; \
	done
	@echo "$$(wc -l < out/python-install.passed) passed, 0 failed"

# install: the libraries, headers and pkg-config files (install-lib), and the
# command linked with the Swift runtime inside, so it runs without a toolchain
# (built in its own scratch folder: the flag would rebuild the rest).
install: install-lib install-service
	swift build -c $(CONFIG) --product tocsin --static-swift-stdlib --scratch-path .build-static
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 "$$(swift build -c $(CONFIG) --scratch-path .build-static --show-bin-path)/tocsin" $(DESTDIR)$(PREFIX)/bin/
	@# Shell completions, generated by swift-argument-parser from the command's own definition.
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	$(DESTDIR)$(PREFIX)/bin/tocsin --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/tocsin
	$(DESTDIR)$(PREFIX)/bin/tocsin --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_tocsin
	$(DESTDIR)$(PREFIX)/bin/tocsin --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/tocsin.fish
	@# The manual's generator in the same scratch folder: it reuses the argument parser built for the command.
	swift build -c $(CONFIG) --product generate-manual --static-swift-stdlib --scratch-path .build-static
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	"$$(swift build -c $(CONFIG) --scratch-path .build-static --show-bin-path)/generate-manual" $(DESTDIR)$(PREFIX)/bin/tocsin \
	  --output-directory $(DESTDIR)$(PREFIX)/share/man/man1
	scripts/fix-manual.sh $(DESTDIR)$(PREFIX)/share/man/man1/tocsin.1
	install -d $(DESTDIR)$(PREFIX)/share/doc/tocsin
	@# Every document the command or the README names: the service's API, the timer file, the alarms file, status bars, commands and hooks, the history.
	install -m 0644 docs/dbus.md docs/timer-file.md docs/alarms-file.md docs/status-bars.md docs/commands-and-hooks.md docs/history.md $(DESTDIR)$(PREFIX)/share/doc/tocsin/
	@scripts/after-install.sh "$(PREFIX)" "$(LIBDIR)"

# Everything make install put under PREFIX (and LIBDIR), and nothing else;
# of the folders, only Tocsin's own, and only when left empty. A user's timers
# ($$XDG_STATE_HOME/tocsin) and the links of tocsin service --enable (which
# tocsin service --disable removes) are the user's, not the prefix's.
INSTALLED_FILES = bin/tocsin share/bash-completion/completions/tocsin share/zsh/site-functions/_tocsin \
	share/fish/vendor_completions.d/tocsin.fish share/man/man1/tocsin.1 share/doc/tocsin/dbus.md \
	share/doc/tocsin/timer-file.md share/doc/tocsin/alarms-file.md share/doc/tocsin/status-bars.md share/doc/tocsin/commands-and-hooks.md \
	share/doc/tocsin/history.md \
	share/dbus-1/services/dev.tocsin.Timers.service \
	share/dbus-1/interfaces/dev.tocsin.Timers1.xml share/systemd/user/tocsin.service \
	share/systemd/user/tocsin.service.d/wake.conf include/tocsin.h include/tocsin_notify.h \
	$(foreach lang,$(LINGUAS),share/locale/$(lang)/LC_MESSAGES/tocsin.mo)
uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED_FILES))
	for name in $(LIBRARIES); do \
	  rm -f $(DESTDIR)$(LIBDIR)/lib$$name.so.$(VERSION) $(DESTDIR)$(LIBDIR)/lib$$name.so.$(MAJOR) \
	    $(DESTDIR)$(LIBDIR)/lib$$name.so $(DESTDIR)$(LIBDIR)/pkgconfig/$$name.pc; \
	done
	@# Only the folders that are Tocsin's own: bin, lib, share... may be a system's.
	rmdir --ignore-fail-on-non-empty $(DESTDIR)$(PREFIX)/share/systemd/user/tocsin.service.d $(DESTDIR)$(PREFIX)/share/doc/tocsin \
	  2>/dev/null || true
	@echo "uninstall: removed Tocsin from $(DESTDIR)$(PREFIX)"

# The timer service's D-Bus activation file and systemd user unit, with
# Exec= pointing at $(PREFIX)/bin/tocsin, and its interface's XML.
install-service:
	install -d $(DESTDIR)$(PREFIX)/share/dbus-1/services $(DESTDIR)$(PREFIX)/share/dbus-1/interfaces \
	  $(DESTDIR)$(PREFIX)/share/systemd/user
	for file in dbus-1/services/dev.tocsin.Timers.service systemd/user/tocsin.service; do \
	  sed 's|@BINDIR@|$(PREFIX)/bin|' share/$$file.in > $(DESTDIR)$(PREFIX)/share/$$file || exit 1; \
	done
	install -m 0644 share/dbus-1/interfaces/dev.tocsin.Timers1.xml $(DESTDIR)$(PREFIX)/share/dbus-1/interfaces/

# The optional drop-in that passes CAP_WAKE_ALARM to the timer service (see
# share/systemd/user/tocsin.service.d/wake.conf): its alarms then wake the
# machine from suspend. Then: systemctl --user daemon-reload, and restart it.
# Refused on systemd 255 and 256, which would then not start the service
# (scripts/install-wake.sh says why; WAKE_FORCE=1 installs anyway).
install-wake:
	scripts/install-wake.sh $(DESTDIR)$(PREFIX)/share/systemd/user

install-lib:
	$(MAKE) --no-print-directory lib CONFIG=$(CONFIG)
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/include
	for name in $(LIBRARIES); do \
	  install -s -m 0644 $(OUT)/lib/lib$$name.so.$(VERSION) $(DESTDIR)$(LIBDIR)/ && \
	  ln -sf lib$$name.so.$(VERSION) $(DESTDIR)$(LIBDIR)/lib$$name.so.$(MAJOR) && \
	  ln -sf lib$$name.so.$(MAJOR) $(DESTDIR)$(LIBDIR)/lib$$name.so && \
	  sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' bindings/c/$$name.pc.in \
	    > $(DESTDIR)$(LIBDIR)/pkgconfig/$$name.pc || exit 1; \
	done
	install -m 0644 include/tocsin.h include/tocsin_notify.h $(DESTDIR)$(PREFIX)/include/
	for lang in $(LINGUAS); do \
	  if [ -f $(OUT)/share/locale/$$lang/LC_MESSAGES/tocsin.mo ]; then \
	    install -D -m 0644 $(OUT)/share/locale/$$lang/LC_MESSAGES/tocsin.mo \
	      $(DESTDIR)$(PREFIX)/share/locale/$$lang/LC_MESSAGES/tocsin.mo || exit 1; \
	  fi; \
	done
	@if [ -z "$(DESTDIR)" ] && { [ "$(PREFIX)" = /usr/local ] || [ "$(PREFIX)" = /usr ]; }; then ldconfig 2>/dev/null || true; fi

clean:
	rm -rf out .build

# Whistle — build, test, run, bench. See README.md.
CC      ?= cc
PKGS    := libmicrohttpd jansson sqlite3 libpq libsodium liburiparser libxml-2.0 libcurl libpsl liblz4 \
           liboath zlib
BUILD   ?= build
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c17 -Wall -Wextra -Werror -Wshadow -Wformat=2 -D_GNU_SOURCE -Isrc -MMD -MP
# libcsv (the nflverse CSV reader) and CRoaring (the list index) ship no pkg-config file
LDLIBS  += -lcsv -lroaring -lpthread -lm

# The version `whistle --version` prints: `git describe` of a tagged checkout, else the base
# version and the commit (0.1.0+g31abc74), else the base version alone (no git).
# `make VERSION=1.2.3` overrides it.
WHISTLE_VERSION_BASE := 0.1.0
VERSION ?= $(or $(shell git describe --tags --dirty 2>/dev/null || \
             git describe --always --dirty 2>/dev/null | sed 's/^/$(WHISTLE_VERSION_BASE)+g/'),$(WHISTLE_VERSION_BASE))

# ASan + UBSan build of the same program and suite: make test SANITIZE=1
ifeq ($(SANITIZE),1)
BUILD   := build/asan
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

# ThreadSanitizer build: make test TSAN=1 runs the unit tests and the mixed concurrent load
# test (tests/http/test_concurrent_load.py) against it
ifeq ($(TSAN),1)
BUILD   := build/tsan
CFLAGS  += -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS += -fsanitize=thread
endif

# libFuzzer harnesses (tests/fuzz/fuzz_*.c) over the same sources, built with clang, ASan and
# UBSan in build/fuzz: make fuzz runs each for FUZZ_SECONDS on tests/fuzz/corpus/NAME/
ifeq ($(FUZZ),1)
CC      := clang
BUILD   := build/fuzz
CFLAGS  += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 60

# Debian packages: build, test and bench needs (make deps installs what is missing)
DEPS_BUILD := build-essential pkg-config libmicrohttpd-dev libjansson-dev libsqlite3-dev \
              libsodium-dev liburiparser-dev libxml2-dev libcurl4-openssl-dev libpsl-dev libpq-dev \
              libcsv-dev liboath-dev zlib1g-dev libroaring-dev liblz4-dev
DEPS_TEST  := libcmocka-dev python3 python3-pytest python3-requests python3-jsonschema \
              python3-feedparser python3-bs4 python3-aiosmtpd python3-prometheus-client python3-lz4 \
              chromium curl jq \
              sqlite3 clang-format
DEPS_BENCH := wrk nginx-light curl sqlite3
DEPS_FUZZ  := clang libclang-rt-14-dev
# PostgreSQL server (throwaway test clusters) and HAProxy (the multi-node test): make test
# runs the PostgreSQL half of the suite when they are installed; .ci/run installs them
DEPS_PG    := postgresql haproxy

SRC_DIRS := src src/util src/store src/domain src/app src/http src/api src/web src/research src/providers src/worker src/cli
SRCS     := $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c))
OBJS     := $(SRCS:%.c=$(BUILD)/%.o) $(BUILD)/gen/migrations.o $(BUILD)/gen/openapi.o \
            $(BUILD)/gen/passwords.o $(BUILD)/gen/version.o
LIB_OBJS := $(filter-out $(BUILD)/src/main.o,$(OBJS))
MIGRATIONS := $(sort $(wildcard src/store/migrations/*.sql))

UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps deps-run deps-bench deps-pg run test unit style lint-openapi bench docs clean \
        fuzz fuzz-build FORCE

all: $(BUILD)/whistle

deps:
	@scripts/deps.sh $(DEPS_BUILD) $(DEPS_TEST)

deps-run:
	@scripts/deps.sh $(DEPS_BUILD)

deps-bench:
	@scripts/deps.sh $(DEPS_BENCH)

deps-pg:
	@scripts/deps.sh $(DEPS_PG)

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c $< -o $@

# the list of migration files, rewritten only when it changes (a renamed or removed migration
# regenerates migrations.c); two files with one number fail here, by name
$(BUILD)/gen/migrations.list: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' $(MIGRATIONS) > $@.new; \
	  dup=$$(sed 's|.*/||; s|_.*||' $@.new | sort | uniq -d); \
	  if [ -n "$$dup" ]; then echo "migrations: two files are numbered $$dup:"; \
	    grep "/$$dup"_ $@.new; rm -f $@.new; exit 1; fi; \
	  if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi

$(BUILD)/gen/migrations.c: $(MIGRATIONS) $(BUILD)/gen/migrations.list scripts/embed.sh
	@mkdir -p $(dir $@)
	@: > $@
	@for f in $(MIGRATIONS); do n=$$(basename $$f .sql | cut -d_ -f1); \
	  scripts/embed.sh migration_$$n $$f >> $@; done
	@{ echo 'const struct { int version; const unsigned char *sql; } store_migrations[] = {'; \
	  for f in $(MIGRATIONS); do n=$$(basename $$f .sql | cut -d_ -f1); \
	  echo "    {$$(expr $$n + 0), migration_$$n},"; done; echo '};'; \
	  echo 'const unsigned long store_nmigrations = sizeof store_migrations / sizeof store_migrations[0];'; } >> $@

$(BUILD)/gen/openapi.c: src/api/openapi.json scripts/embed.sh
	@mkdir -p $(dir $@)
	scripts/embed.sh openapi_json $< > $@

$(BUILD)/gen/passwords.c: data/common-passwords.txt scripts/embed.sh
	@mkdir -p $(dir $@)
	scripts/embed.sh common_passwords $< > $@

# rewritten only when the version changed, so that an unchanged tree links nothing again
$(BUILD)/gen/version.c: FORCE
	@mkdir -p $(dir $@)
	@printf 'const char whistle_version[] = "%s";\n' '$(VERSION)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/whistle: $(OBJS)
	$(CC) $(LDFLAGS) $^ $(PKG_LIBS) $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) $(LDFLAGS) $< $(LIB_OBJS) $(PKG_LIBS) -lcmocka $(LDLIBS) -o $@

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(LIB_OBJS)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -fsanitize=fuzzer $(LDFLAGS) $< $(LIB_OBJS) $(PKG_LIBS) \
	    $(LDLIBS) -o $@

fuzz-build: $(FUZZ_NAMES:%=$(BUILD)/fuzz_%)

# every harness for FUZZ_SECONDS (default 60) each; new inputs go to build/fuzz/corpus/NAME
fuzz:
	@scripts/deps.sh $(DEPS_BUILD) $(DEPS_FUZZ)
	@$(MAKE) --no-print-directory FUZZ=1 fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run.sh build/fuzz $(FUZZ_NAMES)

# make run [PORT=8080] [HOST=127.0.0.1]: the sample database, the sample publishers of the
# README tour (whistle demo-sources, stopped with the server) and the server allowed to fetch
# them; installs only what building and running need
PORT ?= 8080
HOST ?= 127.0.0.1
DEMO_SOURCES := 127.0.0.2:8091 127.0.0.3:8091
run: deps-run all
	scripts/demo-db.sh $(BUILD)/whistle whistle.db
	@$(BUILD)/whistle demo-sources $(DEMO_SOURCES:%=--listen %) & demo=$$!; \
	  trap 'kill $$demo 2>/dev/null' EXIT INT TERM; \
	  $(BUILD)/whistle serve --db whistle.db --listen $(HOST):$(PORT) \
	    $(DEMO_SOURCES:%=--allow-fetch %)

style:
	@scripts/check-banned.sh
	@clang-format --dry-run --Werror $(SRCS) $(wildcard src/*/*.h) $(UNIT_SRCS) \
	    $(wildcard tests/fuzz/*.c)

# docs/operators.md's option reference, printed from the options table (cli/settings.c);
# tests/http/test_options.py fails when the committed text differs
docs: $(BUILD)/whistle
	@scripts/options-doc.sh $(BUILD)/whistle docs/operators.md

lint-openapi:
	@bash tests/lint-openapi.sh

unit: $(UNIT_BINS)

test: deps all unit
	@WHISTLE_BIN=$(BUILD)/whistle UNIT_BINS="$(UNIT_BINS)" TSAN=$(TSAN) SANITIZE=$(SANITIZE) bash tests/run.sh

bench: deps deps-bench deps-pg all
	WHISTLE_BIN=$(BUILD)/whistle bash bench/run.sh

clean:
	rm -rf build

-include $(OBJS:.o=.d)

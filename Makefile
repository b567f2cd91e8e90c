# pg_topics: Kafka-style topics as tables (PGXS build)

MODULE_big = pg_topics

# The source tree in layers, bottom to top (src/README.md).  A file includes
# only headers of its own layer or lower ones: `make check-layers`.
LAYERS = base wire log shared segments replication writer am read worker api hooks kafka
OBJS = $(foreach layer,$(LAYERS),$(patsubst %.c,%.o,$(sort $(wildcard src/$(layer)/*.c)))) \
	$(patsubst %.c,%.o,$(sort $(wildcard src/*.c)))

EXTENSION = pg_topics
# The base script of the first release and the upgrade scripts since, each
# frozen once released (sql-released.sha256, `make check-release-sql`):
# CREATE EXTENSION runs pg_topics--0.1.sql, then the chain of upgrade
# scripts up to the control file's default_version
DATA = $(notdir $(wildcard $(srcdir)/pg_topics--*.sql))
PGFILEDESC = "pg_topics - Kafka-style topics as tables"

# Tests run on temporary instances with the library preloaded.  Their server
# logs go to tmp_server_log/ (pg_regress removes its instance after a clean
# run), and check_server_log fails the run on any internal error, assertion
# failure, PANIC or crash a test did not declare (see docs/testing.md).
REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --temp-instance=tmp_regress --temp-config=test/pg_topics.conf \
	--temp-config=tmp_server_log/regress.conf
ISOLATION = $(patsubst test/specs/%.spec,%,$(sort $(wildcard test/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test --temp-instance=tmp_isolation --outputdir=output_iso \
	--temp-config=test/pg_topics.conf --temp-config=tmp_server_log/isolation.conf
TAP_TESTS = 1
PROVE_TESTS = test/t/*.pl
# our own installcheck (below) checks the server logs after each suite
NO_INSTALLCHECK = 1
EXTRA_CLEAN = tmp_server_log pg_topics.build-flags tmp_wire tmp_fuzz

# The test build (scripts/test.sh runs `make CASSERT=1`) checks our own
# assertions, and those of the server's inline functions we compile, against
# Debian's server, which is built without them, and fails on any compiler
# warning (each major's server sets warnings of its own, e.g. 17's
# -Wshadow=compatible-local).  Users' builds stay as they are.
ifeq ($(CASSERT),1)
ASSERT_CPPFLAGS = -DUSE_ASSERT_CHECKING
WARNINGS_FATAL = -Werror
endif

PG_CPPFLAGS = -I$(srcdir)/src/include $(ASSERT_CPPFLAGS)
# the Kafka listener decompresses what producers send (src/wire/compression.c)
# and speaks TLS (src/kafka/tls.c)
SHLIB_LINK = -lz -llz4 -lzstd -lsnappy -lssl -lcrypto

PG_CFLAGS = -Wall -Wmissing-prototypes -Wpointer-arith -Werror=vla -Wendif-labels \
	-Wmissing-format-attribute -Wformat-security $(WARNINGS_FATAL)

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Every include and call points down the layers (scripts/check-layers);
# with the library built, calls between object files are checked too
check-layers:
	@$(srcdir)/scripts/check-layers $(LAYERS)
.PHONY: check-layers

# Released SQL scripts never change (their sha256 are in sql-released.sha256),
# default_version is reached from every release, and the built library has
# the C functions of every script: see scripts/check-release-sql
check-release-sql:
	@$(srcdir)/scripts/check-release-sql $(srcdir) pg_topics$(DLSUFFIX)
.PHONY: check-release-sql

# The wire layer (src/wire/) builds as frontend code too, for its unit tests
# and fuzz targets: with every file of src/wire/, against PostgreSQL's
# frontend libraries (palloc, StringInfo, CRC-32C) and the codecs' ones
WIRE_SRCS = $(sort $(wildcard $(srcdir)/src/wire/*.c))
WIRE_DEPS = $(WIRE_SRCS) $(wildcard $(srcdir)/src/include/pg_topics/wire/*.h)
WIRE_CPPFLAGS = -DFRONTEND -DUSE_ASSERT_CHECKING -I$(srcdir)/src/include \
	-I$(includedir_server) -I$(includedir)
WIRE_LIBS = -L$(pkglibdir) -L$(libdir) -lpgcommon -lpgport $(SHLIB_LINK) -lcrypto -lm
# Debian's python3, with python3-kafka and python3-confluent-kafka
WIRE_PYTHON = /usr/bin/python3

# Unit tests of the wire layer: each test/wire/*_test.c is a program of its
# own (tmp_wire/NAME), run with WIRE_VECTORS (batches of kafka-python and
# librdkafka, made by test/wire/kafka_python.py and test/wire/librdkafka.py
# generate), WIRE_REQUESTS (fuzz_requests' seed corpus, every request of
# which must parse: test/fuzz/requests_corpus.py) and WIRE_OUT, where it
# leaves .vec files of our batches, which kafka-python's reader and a
# librdkafka consumer must then read back
WIRE_TESTS = $(patsubst $(srcdir)/test/wire/%.c,tmp_wire/%,$(sort $(wildcard $(srcdir)/test/wire/*_test.c)))

check-wire: $(WIRE_TESTS)
	@rm -rf tmp_wire/out && mkdir -p tmp_wire/out
	@status=0; \
	for t in $(WIRE_TESTS); do \
		WIRE_VECTORS=$(srcdir)/test/wire/vectors WIRE_OUT=tmp_wire/out \
			WIRE_REQUESTS=$(srcdir)/test/fuzz/corpus/requests $$t || status=1; \
	done; \
	if ls tmp_wire/out/*.vec >/dev/null 2>&1; then \
		$(WIRE_PYTHON) $(srcdir)/test/wire/kafka_python.py check tmp_wire/out/*.vec || status=1; \
		$(WIRE_PYTHON) $(srcdir)/test/wire/librdkafka.py check tmp_wire/out/*.vec || status=1; \
	fi; \
	exit $$status
.PHONY: check-wire

tmp_wire/%: $(srcdir)/test/wire/%.c $(srcdir)/test/wire/unit_check.h $(WIRE_DEPS)
	@mkdir -p tmp_wire
	$(CC) $(CFLAGS) $(WIRE_CPPFLAGS) -o $@ $< $(WIRE_SRCS) $(WIRE_LIBS)

# Fuzzing the wire layer: each test/fuzz/fuzz_NAME.c is a libFuzzer target
# (tmp_fuzz/fuzz_NAME, built by clang with AddressSanitizer and
# UndefinedBehaviorSanitizer), run for FUZZ_SECONDS from a copy of its seed
# corpus test/fuzz/corpus/NAME/, with the libFuzzer flags of
# test/fuzz/fuzz_NAME.flags if there is one; a crash leaves its input in tmp_fuzz/
FUZZ_SECONDS ?= 20
FUZZ_CC = clang
FUZZ_TARGETS = $(patsubst $(srcdir)/test/fuzz/%.c,tmp_fuzz/%,$(sort $(wildcard $(srcdir)/test/fuzz/fuzz_*.c)))

fuzz-wire: $(FUZZ_TARGETS)
	@status=0; \
	for t in $(FUZZ_TARGETS); do \
		name=$${t#tmp_fuzz/fuzz_}; corpus=tmp_fuzz/corpus_$$name; \
		rm -rf $$corpus && mkdir -p $$corpus; \
		cp $(srcdir)/test/fuzz/corpus/$$name/* $$corpus/ 2>/dev/null; \
		echo "fuzz-wire: $$t for $(FUZZ_SECONDS) s"; \
		flags=$$(cat $(srcdir)/test/fuzz/fuzz_$$name.flags 2>/dev/null); \
		if $$t -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=512 -timeout=10 $$flags \
			-print_final_stats=1 -artifact_prefix=tmp_fuzz/$$name- $$corpus \
			>tmp_fuzz/$$name.log 2>&1; then \
			grep -E '^stat::number_of_executed_units|^Done' tmp_fuzz/$$name.log; \
		else \
			status=1; tail -n 60 tmp_fuzz/$$name.log; \
		fi; \
	done; \
	exit $$status
.PHONY: fuzz-wire

tmp_fuzz/%: $(srcdir)/test/fuzz/%.c $(WIRE_DEPS)
	@mkdir -p tmp_fuzz
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-Wall -Wno-ignored-attributes \
		-fno-strict-aliasing -fwrapv $(WIRE_CPPFLAGS) -o $@ $< $(WIRE_SRCS) $(WIRE_LIBS)

# the TAP tests' shared helpers (after PGXS, which sets PG_PROVE_FLAGS)
PG_PROVE_FLAGS += -I $(srcdir)/test/lib

# PGXS tracks no header dependencies: rebuild everything when a header changes,
# or when the build switches between the test build and the normal one
# (the file is written when make reads this, as PGXS' .SECONDARY would
# leave a missing prerequisite unmade)
$(shell echo '$(ASSERT_CPPFLAGS) $(WARNINGS_FATAL)' | cmp -s - pg_topics.build-flags || echo '$(ASSERT_CPPFLAGS) $(WARNINGS_FATAL)' > pg_topics.build-flags)
$(OBJS): $(wildcard src/include/pg_topics/*/*.h) pg_topics.build-flags

# $(call server_log_conf,NAME): pg_regress and isolation instances log with
# SQLSTATEs to tmp_server_log/NAME.log (made afresh), and each connection
# with the test's name (so that a crash names its test)
server_log_conf = mkdir -p tmp_server_log && rm -f tmp_server_log/$(1).log && \
	{ cat $(srcdir)/test/server_log.conf; \
	  printf "logging_collector = on\nlog_directory = '%s'\nlog_filename = '%s.log'\nlog_rotation_age = 0\nlog_rotation_size = 0\nlog_connections = on\n" \
		'$(CURDIR)/tmp_server_log' '$(1)'; } > tmp_server_log/$(1).conf

check_server_log = perl $(srcdir)/test/check_server_log

installcheck: submake $(REGRESS_PREP)
ifdef REGRESS
	@$(call server_log_conf,regress)
	status=0; $(pg_regress_installcheck) $(REGRESS_OPTS) $(REGRESS) || status=$$?; \
	$(check_server_log) --tests=sql tmp_server_log/regress.log || status=1; exit $$status
endif
ifdef ISOLATION
	@$(call server_log_conf,isolation)
	status=0; $(pg_isolation_regress_installcheck) $(ISOLATION_OPTS) $(ISOLATION) || status=$$?; \
	$(check_server_log) --tests=test/specs tmp_server_log/isolation.log || status=1; exit $$status
endif
ifdef TAP_TESTS
	@missing=$$(grep -L '^use PgTopicsTest;' $(srcdir)/test/t/*.pl); \
	if [ -n "$$missing" ]; then \
		echo "every TAP test must use PgTopicsTest, which checks its servers' logs:" $$missing; exit 1; \
	fi
	$(prove_installcheck)
endif

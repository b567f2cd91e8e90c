# pg_topics: Kafka-style topics as tables (PGXS build)

MODULE_big = pg_topics
OBJS = \
	src/pg_topics.o \
	src/guc.o \
	src/sync_standby.o \
	src/record.o \
	src/storage.o \
	src/visibility.o \
	src/freeze.o \
	src/insert.o \
	src/scan.o \
	src/tableam.o \
	src/walredo.o \
	src/decode.o \
	src/markers.o \
	src/subscription.o \
	src/ddl.o \
	src/verify.o \
	src/registry.o \
	src/partitioner.o \
	src/catalog.o \
	src/topics.o \
	src/produce.o \
	src/result_store.o \
	src/record_tuple.o \
	src/fetch.o \
	src/fetch_scan.o \
	src/unordered_read.o \
	src/views.o \
	src/routing.o \
	src/copy.o \
	src/seek.o \
	src/shmem.o \
	src/group_state.o \
	src/groups.o \
	src/segment.o \
	src/segment_ddl.o \
	src/retention.o \
	src/maintenance.o \
	src/compaction.o \
	src/internal_sql.o \
	src/worker.o

EXTENSION = pg_topics
DATA = pg_topics--0.1.sql
PGFILEDESC = "pg_topics - Kafka-style topics as tables"

# Tests run on temporary instances with the library preloaded
REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --temp-instance=tmp_regress --temp-config=test/pg_topics.conf
ISOLATION = $(patsubst test/specs/%.spec,%,$(sort $(wildcard test/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test --temp-instance=tmp_isolation --outputdir=output_iso --temp-config=test/pg_topics.conf
TAP_TESTS = 1
PROVE_TESTS = test/t/*.pl

PG_CPPFLAGS = -I$(srcdir)/src
PG_CFLAGS = -Wall -Wmissing-prototypes -Wpointer-arith -Werror=vla -Wendif-labels \
	-Wmissing-format-attribute -Wformat-security

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# the TAP tests' shared helpers (after PGXS, which sets PG_PROVE_FLAGS)
PG_PROVE_FLAGS += -I $(srcdir)/test/lib

# PGXS tracks no header dependencies: rebuild everything when a header changes
$(OBJS): $(wildcard src/*.h)

/*-------------------------------------------------------------------------
 *
 * internal_sql.c
 *	  Running pg_topics' own SQL and DDL, safely.
 *
 * Some of our SQL reads or writes internal tables that PUBLIC cannot see
 * (settings, group positions, log starts), or creates internal relations
 * (segments), so it runs as the bootstrap superuser.  It must not run
 * anything the caller could have planted, and the caller's settings must
 * not decide how it is read or where and how what it creates is stored:
 * every such setting is pinned (pinned_settings), and the operation is
 * security-restricted, as for maintenance commands.  Our own objects are
 * always schema-qualified in that SQL.
 *
 * The DDL that creates a topic and its partitions runs as the caller, who
 * owns them and whose privileges PostgreSQL checks, but with the same
 * pinned settings.
 *
 * One way in: topic_internal_sql_exec runs one statement and returns SPI's
 * result code; topic_internal_sql_begin/end bracket several statements, or
 * one whose rows the caller reads (SPI_tuptable) before the end;
 * topic_internal_sql_ddl runs one DDL statement, as the bootstrap
 * superuser or as the caller.  Each connects to SPI first, then changes
 * user and settings, and undoes that in the opposite order.  An error in
 * between needs no cleanup: the abort of the (sub)transaction gives the
 * caller back its user, security context and settings, and closes the
 * SPI connection.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "pg_topics/base/internal_sql.h"

/* set while pg_topics itself runs DDL on a topic (create, add partitions) */
static bool internal_ddl = false;

/*
 * The settings pinned, and their values.  search_path: pg_catalog, then
 * pg_temp last, so that a temporary object never shadows a system one.
 * default_tablespace: the database's default, unless the DDL names a
 * tablespace (a segment's is its partition's): the bootstrap superuser may
 * create anywhere, so a caller's choice would store records where the
 * caller itself may not create anything.  temp_tablespaces: the same for
 * the temporary files of our queries.  default_table_access_method: what a
 * table created without USING is.  standard_conforming_strings: how our
 * literals are read.  (default_toast_compression is read when a value is
 * stored, not when a table is created; it is the writer's, as for any
 * table.)
 */
static const struct
{
	const char *name;
	const char *value;
}			pinned_settings[] =
{
	{"search_path", "pg_catalog, pg_temp"},
	{"default_tablespace", ""},
	{"temp_tablespaces", ""},
	{"default_table_access_method", "heap"},
	{"standard_conforming_strings", "on"},
};

/* Pin the settings until topic_internal_settings_restore(returned level) */
int
topic_internal_settings_pin(void)
{
	int			nestlevel = NewGUCNestLevel();

	for (int i = 0; i < lengthof(pinned_settings); i++)
		(void) set_config_option(pinned_settings[i].name,
								 pinned_settings[i].value,
								 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
								 true, 0, false);
	return nestlevel;
}

/* Give the caller its settings back */
void
topic_internal_settings_restore(int nestlevel)
{
	AtEOXact_GUC(false, nestlevel);
}

/* Connect to SPI, or fail */
static void
spi_connect(void)
{
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
}

/*
 * Connect to SPI and become the bootstrap superuser, security-restricted,
 * with pinned settings, until topic_internal_sql_end
 */
void
topic_internal_sql_begin(TopicInternalSql *state)
{
	spi_connect();
	GetUserIdAndSecContext(&state->save_userid, &state->save_sec_context);
	SetUserIdAndSecContext(BOOTSTRAP_SUPERUSERID,
						   state->save_sec_context | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	state->save_nestlevel = topic_internal_settings_pin();
}

/*
 * Back to the caller (its settings, user and security context), then
 * close the SPI connection: SPI_tuptable is gone afterwards
 */
void
topic_internal_sql_end(TopicInternalSql *state)
{
	topic_internal_settings_restore(state->save_nestlevel);
	SetUserIdAndSecContext(state->save_userid, state->save_sec_context);
	SPI_finish();
}

/*
 * Between topic_internal_sql_begin and _end: does the extension's relation
 * topics.relname exist?  A database whose extension was not updated yet
 * lacks the relations of the newer release, and the background worker's
 * steps that read them skip it.
 */
bool
topic_internal_relation_exists(const char *relname)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1];

	values[0] = CStringGetTextDatum(psprintf("topics.%s", relname));
	if (SPI_execute_with_args("SELECT FROM pg_catalog.to_regclass($1) r "
							  "WHERE r IS NOT NULL", 1, argtypes, values,
							  NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not look for topics.%s", relname);
	return SPI_processed > 0;
}

/*
 * Run one statement as the bootstrap superuser (SPI_execute_with_args'
 * arguments) and return SPI's result code.  Its rows are gone on return.
 */
int
topic_internal_sql_exec(const char *sql, int nargs, Oid *argtypes,
						Datum *values, const char *nulls, bool read_only,
						long tcount)
{
	TopicInternalSql state;
	int			rc;

	topic_internal_sql_begin(&state);
	rc = SPI_execute_with_args(sql, nargs, argtypes, values, nulls,
							   read_only, tcount);
	topic_internal_sql_end(&state);
	return rc;
}

/*
 * Run one DDL statement through SPI: as the bootstrap superuser with pinned
 * settings if as_owner, else as the caller with the caller's settings (the
 * caller pins them if it must).  Errors propagate.
 */
void
topic_internal_sql_ddl(const char *sql, bool as_owner)
{
	TopicInternalSql state;
	int			rc;

	if (as_owner)
		topic_internal_sql_begin(&state);
	else
		spi_connect();
	rc = SPI_execute(sql, false, 0);
	if (rc != SPI_OK_UTILITY)
		elog(ERROR, "SPI_execute failed for \"%s\": %s", sql,
			 SPI_result_code_string(rc));
	if (as_owner)
		topic_internal_sql_end(&state);
	else
		SPI_finish();
}

/* Run fn(arg) with the lock-down relaxed for pg_topics' own DDL */
void
topic_ddl_run_internal(void (*fn) (void *), void *arg)
{
	bool		save = internal_ddl;

	internal_ddl = true;
	PG_TRY();
	{
		fn(arg);
	}
	PG_FINALLY();
	{
		internal_ddl = save;
	}
	PG_END_TRY();
}

/* Is pg_topics running its own DDL? */
bool
topic_ddl_is_internal(void)
{
	return internal_ddl;
}

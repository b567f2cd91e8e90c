/*-------------------------------------------------------------------------
 *
 * internal_sql.c
 *	  Running pg_topics' own SQL as the bootstrap superuser, safely.
 *
 * Some of our SQL reads or writes internal tables that PUBLIC cannot see
 * (settings, group positions, log starts), so it runs as the bootstrap
 * superuser.  It must not run anything the caller could have planted: the
 * search_path is pinned to pg_catalog (then pg_temp, last, so that a
 * temporary object never shadows a system one) and the operation is
 * security-restricted, as for maintenance commands.  Our own objects are
 * always schema-qualified in that SQL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "internal_sql.h"

/* Become the bootstrap superuser with a pinned search_path */
void
topic_internal_sql_begin(TopicInternalSql *state)
{
	GetUserIdAndSecContext(&state->save_userid, &state->save_sec_context);
	SetUserIdAndSecContext(BOOTSTRAP_SUPERUSERID,
						   state->save_sec_context | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	state->save_nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
							 true, 0, false);
}

/* Back to the caller: its user, security context and search_path */
void
topic_internal_sql_end(TopicInternalSql *state)
{
	AtEOXact_GUC(false, state->save_nestlevel);
	SetUserIdAndSecContext(state->save_userid, state->save_sec_context);
}

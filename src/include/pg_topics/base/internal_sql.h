/*-------------------------------------------------------------------------
 *
 * internal_sql.h
 *	  Running pg_topics' own SQL and DDL, safely.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_INTERNAL_SQL_H
#define TOPIC_INTERNAL_SQL_H

typedef struct TopicInternalSql
{
	Oid			save_userid;
	int			save_sec_context;
	int			save_nestlevel;
} TopicInternalSql;

extern int	topic_internal_settings_pin(void);
extern void topic_internal_settings_restore(int nestlevel);
extern void topic_internal_sql_begin(TopicInternalSql *state);
extern void topic_internal_sql_end(TopicInternalSql *state);
extern bool topic_internal_relation_exists(const char *relname);
extern int	topic_internal_sql_exec(const char *sql, int nargs, Oid *argtypes,
									Datum *values, const char *nulls,
									bool read_only, long tcount);
extern void topic_internal_sql_ddl(const char *sql, bool as_owner);
extern void topic_ddl_run_internal(void (*fn) (void *), void *arg);
extern bool topic_ddl_is_internal(void);

#endif							/* TOPIC_INTERNAL_SQL_H */

/*-------------------------------------------------------------------------
 *
 * guc.c
 *	  Every pg_topics.* setting, defined in one place.
 *
 * A setting pg_topics.x is the C variable pg_topics_x.  The prefix is
 * reserved, so a misspelt pg_topics setting is an error, not a silent
 * placeholder.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"
#include "utils/memutils.h"

#include "pg_topics.h"

int			pg_topics_max_message_bytes = 1024 * 1024;
int			pg_topics_max_partitions_per_transaction = 128;

void
topic_guc_init(void)
{
	/*
	 * Superuser-only: a limit that every user may raise protects nothing.
	 */
	DefineCustomIntVariable("pg_topics.max_message_bytes",
							"Largest key, value or headers a record may have.",
							"Larger ones are refused with SQLSTATE 54000.",
							&pg_topics_max_message_bytes,
							1024 * 1024,
							1,
							MaxAllocSize - VARHDRSZ,
							PGC_SUSET,
							GUC_UNIT_BYTE,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_topics.max_partitions_per_transaction",
							"Most topic partitions one transaction may produce to.",
							"Sizes the shared registry of in-flight producers.",
							&pg_topics_max_partitions_per_transaction,
							128,
							1,
							100000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("pg_topics");
}

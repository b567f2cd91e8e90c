/*-------------------------------------------------------------------------
 *
 * catalog.h
 *	  What a topic is, found from PostgreSQL's own catalogs.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_CATALOG_H
#define TOPIC_CATALOG_H

#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "storage/lockdefs.h"
#include "utils/relcache.h"

/*
 * The columns of every topic and partition, in this order
 * (docs/architecture.md section 1)
 */
#define Anum_topic_partition	1
#define Anum_topic_offset		2
#define Anum_topic_timestamp	3
#define Anum_topic_key			4
#define Anum_topic_value		5
#define Anum_topic_headers		6
#define Natts_topic				6

/* Name of pg_topics' table access method, the storage of every log */
#define TOPIC_AM_NAME			"topic_log"

/* privilege argument meaning "the caller checks something else" */
#define TOPIC_NO_ACL_CHECK ((AclMode) 0)

extern bool topic_is_topic_parent(Relation rel);
extern bool topic_is_topic_parent_oid(Oid relid);
extern Relation topic_open_by_name(text *name, LOCKMODE lockmode,
								   AclMode privilege);
extern Relation topic_open(Oid relid, LOCKMODE lockmode, AclMode privilege);
extern Relation topic_try_open(Oid relid, LOCKMODE lockmode, AclMode privilege);
extern bool topic_may_describe(Oid relid);
extern void topic_check_describe(Relation topic);
extern int32 topic_partition_count(Relation topic);
extern Oid	topic_partition_relid(Relation topic, int32 partition);
extern void topic_check_partition(Relation topic, int32 partition);
extern Oid	topic_column_type(Relation topic, int attnum);
extern void topic_invalidate_read_plans(void);
extern Oid	topic_log_am_oid(void);
extern bool topic_is_topic_relation(Oid relid);
extern bool topic_is_log_relation(Oid relid);
extern void topic_check_columns(Relation rel);
extern void topic_record_extension_dependency(Oid topic);
extern Oid	topic_offsets_log_relid(void);
extern List *topic_list_topics(void);
extern Oid	topic_lookup_in_schema(const char *nspname, const char *relname);

#endif							/* TOPIC_CATALOG_H */

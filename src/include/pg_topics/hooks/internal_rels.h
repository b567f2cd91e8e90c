/*-------------------------------------------------------------------------
 *
 * internal_rels.h
 *	  The extension's internal relations, kept off users' DDL and objects.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_INTERNAL_RELS_H
#define TOPIC_INTERNAL_RELS_H

#include "nodes/pg_list.h"
#include "nodes/primnodes.h"

extern void topic_internal_rels_init(void);
extern bool topic_internal_ddl_exempt(void);
extern Oid	topic_extension_schema(void);
extern void topic_refuse_internal_relation(Oid relid, const char *what);
extern void topic_refuse_internal_rangevar(RangeVar *rv, const char *what);
extern void topic_internal_deps_begin(List **saved);
extern void topic_internal_deps_end(List **saved);
extern void topic_internal_deps_abort(List **saved);

#endif							/* TOPIC_INTERNAL_RELS_H */

/*-------------------------------------------------------------------------
 *
 * retention.h
 *	  Retention: old records leave a whole segment at a time.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_RETENTION_H
#define TOPIC_RETENTION_H

#include "utils/rel.h"

extern int64 topic_retention_apply(Relation router, bool wait);
extern void topic_log_start_record(Relation router);

#endif							/* TOPIC_RETENTION_H */

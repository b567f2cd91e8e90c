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

#endif							/* TOPIC_RETENTION_H */

/*-------------------------------------------------------------------------
 *
 * decode.h
 *	  Logical decoding of the log's WAL records.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_DECODE_H
#define TOPIC_DECODE_H

#include "replication/decode.h"

extern void topic_decode(LogicalDecodingContext *ctx, XLogRecordBuffer *buf);

#endif							/* TOPIC_DECODE_H */

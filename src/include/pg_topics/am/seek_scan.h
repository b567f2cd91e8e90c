/*-------------------------------------------------------------------------
 *
 * seek.h
 *	  TopicSeek: the custom scan that reads only the pages a query needs.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_SEEK_H
#define TOPIC_SEEK_H

extern void topic_seek_init(void);

#endif							/* TOPIC_SEEK_H */

/*-------------------------------------------------------------------------
 *
 * produce_group.c
 *	  Which Produce requests a connection sent back to back share one
 *	  transaction.
 *
 * A producer that pipelines (librdkafka's several requests in flight) sends
 * Produce requests faster than each can wait for its own WAL flush: served
 * in one transaction, they wait for one (request.c, kafka_serve_frames).
 * The requests of a group must have the same acks, which decides how the
 * transaction commits, and none may be transactional (refused on its own).
 * Each is read through the schema codec (the request header, its tagged
 * fields in flexible versions, and the body), which reads a partition's
 * records as a slice of the request without decoding them, so looking
 * costs little beside serving.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "port/pg_bswap.h"
#include "utils/memutils.h"

#include "pg_topics/base/settings.h"
#include "pg_topics/kafka/budget.h"
#include "pg_topics/kafka/produce_group.h"
#include "pg_topics/kafka/sasl.h"
#include "pg_topics/wire/msg_produce.h"
#include "pg_topics/wire/protocol.h"

/* what one group holds at most, besides KAFKA_MAX_GROUPED frames */
#define GROUP_BYTES				(1024 * 1024)
#define GROUP_PARTITIONS		32

/*
 * If frame is a Produce request that may share a transaction with the
 * Produce requests next to it, its acks, and in *npartitions how many
 * partitions it writes; otherwise KAFKA_NOT_GROUPED.  One whose body does
 * not decode after a good head is grouped all the same (with 0
 * partitions): it fails the group, so that none of the requests the client
 * sent with it is stored.
 */
static int
frame_produce_acks(KafkaConn *conn, const char *frame, int len,
				   int *npartitions)
{
	static MemoryContext peek_context = NULL;
	MemoryContext oldcontext;
	KafkaReader r;
	KafkaRequestHeader h;
	KafkaProduceRequest pr;
	int			acks = KAFKA_NOT_GROUPED;

	if (conn->raw_sasl || !kafka_sasl_authenticated(conn))
		return KAFKA_NOT_GROUPED;
	if (peek_context == NULL)
		peek_context = AllocSetContextCreate(TopMemoryContext,
											 "Kafka request peek",
											 ALLOCSET_SMALL_SIZES);
	oldcontext = MemoryContextSwitchTo(peek_context);
	kafka_reader_init(&r, frame, len);
	r.alloc_left = kafka_budget_room();
	r.elements_left = KAFKA_MAX_REQUEST_ELEMENTS;
	if (kafka_read_request_header(&r, &h) &&
		h.api_key == KAFKA_API_PRODUCE &&
		h.api_version >= kafka_produce_request.min_version &&
		h.api_version <= kafka_produce_request.max_version)
	{
		if (kafka_message_flexible(&kafka_produce_request, h.api_version))
			kafka_skip_tagged_fields(&r);
		/* a body that does not decode still tells its acks if its head does */
		if (!r.error &&
			!kafka_decode(&r, &kafka_produce_request, h.api_version, &pr))
		{
			*npartitions = 0;
			if (pr.transactional_id.len < 0 && pr.ntopic_data > 0 &&
				pr.acks >= -1 && pr.acks <= 1)
				acks = pr.acks;
		}
		else if (!r.error && pr.transactional_id.len < 0 &&
				 pr.acks >= -1 && pr.acks <= 1)
		{
			acks = pr.acks;
			*npartitions = 0;
			for (int t = 0; t < pr.ntopic_data; t++)
				*npartitions += pr.topic_data[t].npartition_data;
		}
	}
	MemoryContextSwitchTo(oldcontext);
	MemoryContextReset(peek_context);
	return acks;
}

/*
 * The complete Produce requests after the first frame (at conn->in.data +
 * 4, of first_len bytes) that may share its transaction: with the same
 * acks, up to KAFKA_MAX_GROUPED frames, GROUP_BYTES bytes and
 * GROUP_PARTITIONS partitions in all (each partition's write is a
 * subtransaction, and a transaction with more than 64 subtransactions
 * makes every snapshot of the server slower while it runs).  Returns how
 * many frames there are in frames, and *used their bytes.
 */
int
kafka_group_frames(KafkaConn *conn, int32 first_len, KafkaFrame *frames,
				   int *used)
{
	int			n = 1;
	int			pos = 4 + first_len;
	int			acks;
	int			partitions;

	frames[0].data = conn->in.data + 4;
	frames[0].len = first_len;
	*used = pos;
	/* alone (the usual case for requests of any size): nothing to look at */
	if (conn->parked || pos + 4 > conn->in.len)
		return 1;
	acks = frame_produce_acks(conn, frames[0].data, frames[0].len,
							  &partitions);
	if (acks == KAFKA_NOT_GROUPED)
		return 1;
	while (n < KAFKA_MAX_GROUPED && pos + 4 <= conn->in.len)
	{
		uint32		len;
		int			more;

		memcpy(&len, conn->in.data + pos, 4);
		len = pg_ntoh32(len);
		if (len > (uint32) pg_topics_kafka_max_request_bytes ||
			pos + 4 + (int64) len > conn->in.len ||
			pos + 4 + (int64) len > GROUP_BYTES ||
			frame_produce_acks(conn, conn->in.data + pos + 4,
							   (int) len, &more) != acks ||
			partitions + more > GROUP_PARTITIONS)
			break;
		frames[n].data = conn->in.data + pos + 4;
		frames[n].len = (int) len;
		partitions += more;
		n++;
		pos += 4 + (int) len;
	}
	*used = pos;
	return n;
}

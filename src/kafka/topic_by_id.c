/*-------------------------------------------------------------------------
 *
 * topic_by_id.c
 *	  Finding a Kafka topic by its topic id (Fetch v13+ names topics by id).
 *
 * A topic's id is derived from its relation (topic_id.c), so finding one
 * means deriving the ids of the topics of pg_topics.kafka_schema: once per
 * request that needs it, which then looks each id up in that list.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "utils/lsyscache.h"

#include "pg_topics/base/catalog.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/base/topic_names.h"
#include "pg_topics/kafka/topic_by_id.h"
#include "pg_topics/kafka/topic_id.h"

struct KafkaTopicIds
{
	int			n;
	Oid		   *relids;
	KafkaUuid  *ids;
};

KafkaTopicIds *
kafka_topic_ids(void)
{
	KafkaTopicIds *ids = palloc0(sizeof(KafkaTopicIds));
	Oid			nspid = get_namespace_oid(pg_topics_kafka_schema, true);
	List	   *list = OidIsValid(nspid) ? topic_list_topics() : NIL;
	ListCell   *lc;

	ids->relids = palloc(sizeof(Oid) * Max(list_length(list), 1));
	ids->ids = palloc(sizeof(KafkaUuid) * Max(list_length(list), 1));
	foreach(lc, list)
	{
		Oid			relid = lfirst_oid(lc);

		if (get_rel_namespace(relid) != nspid)
			continue;
		ids->relids[ids->n] = relid;
		ids->ids[ids->n] = kafka_topic_id(relid);
		ids->n++;
	}
	return ids;
}

/*
 * The Kafka name of the topic whose id is id, or a null KafkaBytes.  The
 * caller goes on by that name as if the client had sent it, so it must be
 * the Kafka name: a topic with a name over 63 bytes has a shortened table
 * name, which is no Kafka name of it (topic_names.c).
 */
KafkaBytes
kafka_topic_name_of_id(KafkaTopicIds *ids, const KafkaUuid *id)
{
	for (int i = 0; i < ids->n; i++)
		if (memcmp(&ids->ids[i], id, sizeof(KafkaUuid)) == 0)
			return kafka_bytes_of(topic_kafka_name(ids->relids[i]));
	return kafka_bytes_of(NULL);
}

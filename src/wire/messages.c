/*-------------------------------------------------------------------------
 *
 * messages.c
 *	  The Kafka messages described for the schema codec, by API key (see
 *	  messages.h).  An API moved onto the codec is added here.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/messages.h"
#include "pg_topics/wire/msg_api_versions.h"
#include "pg_topics/wire/msg_find_coordinator.h"
#include "pg_topics/wire/msg_metadata.h"

/* each API's request and response */
static const KafkaMessage *const messages[][2] = {
	{&kafka_metadata_request, &kafka_metadata_response},
	{&kafka_find_coordinator_request, &kafka_find_coordinator_response},
	{&kafka_api_versions_request, &kafka_api_versions_response},
};

static const KafkaMessage *
find(int16 api_key, int which)
{
	for (int i = 0; i < lengthof(messages); i++)
		if (messages[i][0]->api_key == api_key)
			return messages[i][which];
	return NULL;
}

const KafkaMessage *
kafka_request_message(int16 api_key)
{
	return find(api_key, 0);
}

const KafkaMessage *
kafka_response_message(int16 api_key)
{
	return find(api_key, 1);
}

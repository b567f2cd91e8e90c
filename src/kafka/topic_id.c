/*-------------------------------------------------------------------------
 *
 * topic_id.c
 *	  The topic id (a UUID) Kafka clients see for a topic (Metadata v10+).
 *
 * A topic's id is derived, not stored: the first 16 bytes of the SHA-256
 * of the cluster's system identifier, the database's OID and the topic
 * relation's OID, with the version bits of a UUID of version 8 (RFC 9562:
 * custom) and its variant bits, so that it is never Kafka's zero or
 * metadata topic ids.  Those three survive a restart and are the same on a
 * physical standby, so clients that follow a failover see the same ids;
 * a topic dropped and created again under its name gets a new OID, hence
 * a new id, as in Kafka.  The system identifier is also the cluster id's
 * (metadata.c), so ids are unique within the cluster a client sees.  A
 * logical copy (another system identifier) and a pg_upgrade (a new one)
 * give other ids: clients that keep topic ids (Kafka's Java clients)
 * treat that as another cluster's topics, which it is to them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "common/cryptohash.h"
#include "common/sha2.h"
#include "miscadmin.h"
#include "port/pg_bswap.h"

#include "pg_topics/kafka/topic_id.h"

KafkaUuid
kafka_topic_id(Oid relid)
{
	/* big-endian, so that every platform derives the same id */
	struct
	{
		char		tag[16];
		uint64		system_identifier;
		uint32		database;
		uint32		relation;
	}			input;
	uint8		digest[PG_SHA256_DIGEST_LENGTH];
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(PG_SHA256);
	KafkaUuid	id;

	memset(&input, 0, sizeof(input));
	memcpy(input.tag, "pg_topics topic", 15);
	input.system_identifier = pg_hton64(GetSystemIdentifier());
	input.database = pg_hton32(MyDatabaseId);
	input.relation = pg_hton32(relid);
	if (ctx == NULL ||
		pg_cryptohash_init(ctx) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) &input, sizeof(input)) < 0 ||
		pg_cryptohash_final(ctx, digest, sizeof(digest)) < 0)
		elog(ERROR, "could not compute the topic id of relation %u", relid);
	pg_cryptohash_free(ctx);
	memcpy(id.data, digest, sizeof(id.data));
	id.data[6] = (id.data[6] & 0x0f) | 0x80;	/* version 8 */
	id.data[8] = (id.data[8] & 0x3f) | 0x80;	/* variant 10 */
	return id;
}

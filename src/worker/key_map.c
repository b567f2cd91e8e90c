/*-------------------------------------------------------------------------
 *
 * key_map.c
 *	  The log cleaner's map of keys to the newest offset of each, in
 *	  bounded memory.
 *
 * As Kafka's cleaner does, the map holds a digest of each key, not the
 * key: an entry has a fixed size whatever the keys are, so the memory a
 * pass may use (pg_topics.compaction_buffer_size) says how many keys it
 * takes.  The digest is the first 16 bytes of the key's SHA-256, where
 * Kafka takes MD5: OpenSSL in FIPS mode refuses MD5 (the pass would fail
 * at its first key) and allows SHA-256.  Two keys with the same digest
 * count as one, so the older record of one would go for the newer of the
 * other: with 128 bits, a pass over m keys holding n in its map meets one
 * with a chance below n * m / 2^128, and making a key whose digest is that
 * of another key already written takes a second preimage of SHA-256 (2^128
 * tries).  A key is hashed as the bytes of its value, detoasted and
 * decompressed, whatever path produced it: two keys are one when their
 * bytes are, as in Kafka, not when the type's equality says so.  That only
 * keeps more: jsonb keys equal as values but written differently
 * ({"id": 1} and {"id": 1.0}, whose numerics keep their scale) count as
 * two keys, each keeping its newest record.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "common/cryptohash.h"
#include "common/sha2.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "pg_topics/worker/key_map.h"

#define KEY_DIGEST_LENGTH	16

typedef struct KeyEntry
{
	uint8		digest[KEY_DIGEST_LENGTH];	/* hash key */
	int64		offset;
} KeyEntry;

struct TopicKeyMap
{
	MemoryContext context;
	HTAB	   *entries;
	int64		capacity;
	int64		count;
};

/*
 * What one entry costs in a dynahash table: the entry, its element header
 * and bucket pointer, rounded up as the allocator rounds
 */
#define KEY_ENTRY_COST	64

TopicKeyMap *
topic_key_map_create(Size bytes)
{
	MemoryContext context = AllocSetContextCreate(CurrentMemoryContext,
												  "pg_topics key map",
												  ALLOCSET_DEFAULT_SIZES);
	TopicKeyMap *map = MemoryContextAllocZero(context, sizeof(TopicKeyMap));
	HASHCTL		ctl;

	map->context = context;
	map->capacity = Max(bytes / KEY_ENTRY_COST, 16);
	ctl.keysize = KEY_DIGEST_LENGTH;
	ctl.entrysize = sizeof(KeyEntry);
	ctl.hcxt = context;
	map->entries = hash_create("pg_topics key map",
							   Min(map->capacity, 1024 * 1024), &ctl,
							   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	return map;
}

static void
digest_key(const struct varlena *key, uint8 *digest)
{
	struct varlena *plain = detoast_attr((struct varlena *) key);
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(PG_SHA256);
	uint8		sha256[PG_SHA256_DIGEST_LENGTH];

	if (ctx == NULL)
		elog(ERROR, "out of memory");
	if (pg_cryptohash_init(ctx) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) VARDATA_ANY(plain),
							 VARSIZE_ANY_EXHDR(plain)) < 0 ||
		pg_cryptohash_final(ctx, sha256, sizeof(sha256)) < 0)
		elog(ERROR, "could not hash a key: %s", pg_cryptohash_error(ctx));
	pg_cryptohash_free(ctx);
	memcpy(digest, sha256, KEY_DIGEST_LENGTH);
	if (plain != key)
		pfree(plain);
}

/*
 * Note that key is at offset (offsets come in increasing order); false,
 * with nothing noted, when the map is full and key is not in it yet
 */
bool
topic_key_map_put(TopicKeyMap *map, const struct varlena *key, int64 offset)
{
	uint8		digest[KEY_DIGEST_LENGTH];
	KeyEntry   *entry;
	bool		found;

	digest_key(key, digest);
	entry = hash_search(map->entries, digest,
						map->count < map->capacity ? HASH_ENTER : HASH_FIND,
						&found);
	if (entry == NULL)
		return false;
	if (!found)
		map->count++;
	entry->offset = offset;
	return true;
}

/* The newest offset of key, or -1 if the map does not hold it */
int64
topic_key_map_get(TopicKeyMap *map, const struct varlena *key)
{
	uint8		digest[KEY_DIGEST_LENGTH];
	KeyEntry   *entry;

	digest_key(key, digest);
	entry = hash_search(map->entries, digest, HASH_FIND, NULL);
	return entry != NULL ? entry->offset : -1;
}

int64
topic_key_map_count(TopicKeyMap *map)
{
	return map->count;
}

void
topic_key_map_destroy(TopicKeyMap *map)
{
	MemoryContextDelete(map->context);
}

/*-------------------------------------------------------------------------
 *
 * subscription.c
 *	  Is a partition fed by logical replication?
 *
 * A partition is a replica while a subscription of this database lists it,
 * or its topic, in pg_subscription_rel (the topic itself when the
 * publication publishes via the partition root).  A replica takes records
 * only from the subscription's workers (preserve mode); its readers are
 * bounded by the markers the publisher sends (read/unordered_read.c).  Dropping the
 * subscription, or refreshing it after the publisher stopped publishing
 * the topic, detaches the partition: it becomes an ordinary one.
 *
 * The answer is cached per backend and forgotten whenever
 * pg_subscription_rel changes anywhere (its catalog cache invalidations).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_subscription_rel.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/syscache.h"

#include "pg_topics/base/subscription.h"

typedef struct SubscribedEntry
{
	Oid			relid;
	bool		subscribed;
} SubscribedEntry;

static HTAB *subscribed_cache = NULL;

static void
forget_subscribed(Datum arg, int cacheid, uint32 hashvalue)
{
	if (subscribed_cache != NULL)
	{
		hash_destroy(subscribed_cache);
		subscribed_cache = NULL;
	}
}

/* Does a subscription of this database list relid? */
static bool
listed_in_subscription(Oid relid)
{
	Relation	catalog;
	ScanKeyData key;
	SysScanDesc scan;
	bool		found;

	catalog = table_open(SubscriptionRelRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_subscription_rel_srrelid,
				BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(catalog, SubscriptionRelSrrelidSrsubidIndexId,
							  true, NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(catalog, AccessShareLock);
	return found;
}

static bool
relation_is_subscribed(Oid relid)
{
	static bool callback_registered = false;
	SubscribedEntry *entry;
	bool		found;

	if (!OidIsValid(relid))
		return false;
	if (!callback_registered)
	{
		CacheRegisterSyscacheCallback(SUBSCRIPTIONRELMAP, forget_subscribed,
									  (Datum) 0);
		callback_registered = true;
	}
	if (subscribed_cache == NULL)
	{
		HASHCTL		info;

		info.keysize = sizeof(Oid);
		info.entrysize = sizeof(SubscribedEntry);
		subscribed_cache = hash_create("pg_topics subscribed relations", 64,
									   &info, HASH_ELEM | HASH_BLOBS);
	}
	entry = hash_search(subscribed_cache, &relid, HASH_FIND, NULL);
	if (entry != NULL)
		return entry->subscribed;

	found = listed_in_subscription(relid);
	/* the lookup may have processed invalidations that dropped the cache */
	if (subscribed_cache != NULL)
	{
		entry = hash_search(subscribed_cache, &relid, HASH_ENTER, NULL);
		entry->subscribed = found;
	}
	return found;
}

/* Is the partition router (of topic, InvalidOid if none) a replica? */
bool
topic_partition_is_replica(Oid router, Oid topic)
{
	return relation_is_subscribed(router) || relation_is_subscribed(topic);
}

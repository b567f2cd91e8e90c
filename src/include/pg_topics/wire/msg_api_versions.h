/*-------------------------------------------------------------------------
 *
 * msg_api_versions.h
 *	  ApiVersions (API key 18), versions 0-4, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_api_versions.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_API_VERSIONS_H
#define TOPIC_WIRE_MSG_API_VERSIONS_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaApiVersionsRequest
{
	KafkaBytes	client_software_name;	/* v3+ */
	KafkaBytes	client_software_version;	/* v3+ */
} KafkaApiVersionsRequest;

/* One API the broker serves and its versions */
typedef struct KafkaApiVersion
{
	int16		api_key;
	int16		min_version;
	int16		max_version;
} KafkaApiVersion;

/* A feature the broker supports (v3+, tagged) */
typedef struct KafkaSupportedFeature
{
	KafkaBytes	name;
	int16		min_version;
	int16		max_version;
} KafkaSupportedFeature;

/* A feature finalized in the cluster (v3+, tagged) */
typedef struct KafkaFinalizedFeature
{
	KafkaBytes	name;
	int16		max_version_level;
	int16		min_version_level;
} KafkaFinalizedFeature;

typedef struct KafkaApiVersionsResponse
{
	int16		error_code;
	int32		napi_keys;
	KafkaApiVersion *api_keys;
	int32		throttle_time_ms;	/* v1+ */
	int32		nsupported_features;	/* v3+, tag 0 */
	KafkaSupportedFeature *supported_features;
	int64		finalized_features_epoch;	/* v3+, tag 1, default -1 */
	int32		nfinalized_features;	/* v3+, tag 2 */
	KafkaFinalizedFeature *finalized_features;
	bool		zk_migration_ready; /* v3+, tag 3 */
} KafkaApiVersionsResponse;

extern const KafkaMessage kafka_api_versions_request;
extern const KafkaMessage kafka_api_versions_response;

#endif							/* TOPIC_WIRE_MSG_API_VERSIONS_H */

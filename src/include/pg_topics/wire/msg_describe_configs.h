/*-------------------------------------------------------------------------
 *
 * msg_describe_configs.h
 *	  DescribeConfigs (API key 32), versions 0-4, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_describe_configs.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_DESCRIBE_CONFIGS_H
#define TOPIC_WIRE_MSG_DESCRIBE_CONFIGS_H

#include "pg_topics/wire/schema.h"

/* Kafka's ConfigResource.Type: the resource types a request names */
#define KAFKA_CONFIG_RESOURCE_TOPIC		2
#define KAFKA_CONFIG_RESOURCE_BROKER	4

/* Kafka's DescribeConfigsResponse.ConfigSource */
#define KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC			1
#define KAFKA_CONFIG_SOURCE_DYNAMIC_BROKER			2
#define KAFKA_CONFIG_SOURCE_DYNAMIC_DEFAULT_BROKER	3
#define KAFKA_CONFIG_SOURCE_STATIC_BROKER			4
#define KAFKA_CONFIG_SOURCE_DEFAULT					5

typedef struct KafkaDescribeConfigsResource
{
	int8		resource_type;
	KafkaBytes	resource_name;
	int32		nconfiguration_keys;	/* -1: null, every key */
	KafkaBytes *configuration_keys;
} KafkaDescribeConfigsResource;

typedef struct KafkaDescribeConfigsRequest
{
	int32		nresources;
	KafkaDescribeConfigsResource *resources;
	bool		include_synonyms;	/* v1+ */
	bool		include_documentation;	/* v3+ */
} KafkaDescribeConfigsRequest;

typedef struct KafkaDescribeConfigsSynonym
{
	KafkaBytes	name;
	KafkaBytes	value;			/* null allowed */
	int8		source;
} KafkaDescribeConfigsSynonym;

typedef struct KafkaDescribeConfigsResourceResult
{
	KafkaBytes	name;
	KafkaBytes	value;			/* null allowed */
	bool		read_only;
	bool		is_default;		/* v0 only */
	int8		config_source;	/* v1+, default -1 */
	bool		is_sensitive;
	int32		nsynonyms;		/* v1+ */
	KafkaDescribeConfigsSynonym *synonyms;
	int8		config_type;	/* v3+ */
	KafkaBytes	documentation;	/* v3+, null allowed */
} KafkaDescribeConfigsResourceResult;

typedef struct KafkaDescribeConfigsResult
{
	int16		error_code;
	KafkaBytes	error_message;	/* null allowed */
	int8		resource_type;
	KafkaBytes	resource_name;
	int32		nconfigs;
	KafkaDescribeConfigsResourceResult *configs;
} KafkaDescribeConfigsResult;

typedef struct KafkaDescribeConfigsResponse
{
	int32		throttle_time_ms;
	int32		nresults;
	KafkaDescribeConfigsResult *results;
} KafkaDescribeConfigsResponse;

extern const KafkaMessage kafka_describe_configs_request;
extern const KafkaMessage kafka_describe_configs_response;

#endif							/* TOPIC_WIRE_MSG_DESCRIBE_CONFIGS_H */

/*-------------------------------------------------------------------------
 *
 * msg_alter_configs.h
 *	  AlterConfigs (API key 33), versions 0-2, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_alter_configs.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_ALTER_CONFIGS_H
#define TOPIC_WIRE_MSG_ALTER_CONFIGS_H

#include "pg_topics/wire/schema.h"

typedef struct KafkaAlterableConfig
{
	KafkaBytes	name;
	KafkaBytes	value;			/* null allowed */
} KafkaAlterableConfig;

typedef struct KafkaAlterConfigsResource
{
	int8		resource_type;
	KafkaBytes	resource_name;
	int32		nconfigs;
	KafkaAlterableConfig *configs;
} KafkaAlterConfigsResource;

typedef struct KafkaAlterConfigsRequest
{
	int32		nresources;
	KafkaAlterConfigsResource *resources;
	bool		validate_only;
} KafkaAlterConfigsRequest;

/* a resource's answer, AlterConfigs' and IncrementalAlterConfigs' alike */
typedef struct KafkaAlterConfigsResourceResponse
{
	int16		error_code;
	KafkaBytes	error_message;	/* null allowed */
	int8		resource_type;
	KafkaBytes	resource_name;
} KafkaAlterConfigsResourceResponse;

typedef struct KafkaAlterConfigsResponse
{
	int32		throttle_time_ms;
	int32		nresponses;
	KafkaAlterConfigsResourceResponse *responses;
} KafkaAlterConfigsResponse;

extern const KafkaMessage kafka_alter_configs_request;
extern const KafkaMessage kafka_alter_configs_response;

#endif							/* TOPIC_WIRE_MSG_ALTER_CONFIGS_H */

/*-------------------------------------------------------------------------
 *
 * msg_incremental_alter_configs.h
 *	  IncrementalAlterConfigs (API key 44), versions 0-1, as structs for the
 *	  schema codec (schema.h; the field tables are in
 *	  wire/msg_incremental_alter_configs.c).  Its response is AlterConfigs'
 *	  in all but name (msg_alter_configs.h's structs).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_INCREMENTAL_ALTER_CONFIGS_H
#define TOPIC_WIRE_MSG_INCREMENTAL_ALTER_CONFIGS_H

#include "pg_topics/wire/msg_alter_configs.h"

/* Kafka's AlterConfigOp.OpType */
#define KAFKA_CONFIG_OP_SET			0
#define KAFKA_CONFIG_OP_DELETE		1
#define KAFKA_CONFIG_OP_APPEND		2
#define KAFKA_CONFIG_OP_SUBTRACT	3

typedef struct KafkaIncrementalAlterableConfig
{
	KafkaBytes	name;
	int8		config_operation;
	KafkaBytes	value;			/* null allowed */
} KafkaIncrementalAlterableConfig;

typedef struct KafkaIncrementalAlterConfigsResource
{
	int8		resource_type;
	KafkaBytes	resource_name;
	int32		nconfigs;
	KafkaIncrementalAlterableConfig *configs;
} KafkaIncrementalAlterConfigsResource;

typedef struct KafkaIncrementalAlterConfigsRequest
{
	int32		nresources;
	KafkaIncrementalAlterConfigsResource *resources;
	bool		validate_only;
} KafkaIncrementalAlterConfigsRequest;

extern const KafkaMessage kafka_incremental_alter_configs_request;
extern const KafkaMessage kafka_incremental_alter_configs_response;

#endif							/* TOPIC_WIRE_MSG_INCREMENTAL_ALTER_CONFIGS_H */

/*-------------------------------------------------------------------------
 *
 * msg_sync_group.c
 *	  SyncGroup's request and response (Kafka 3.9: versions 0-5, flexible
 *	  from 4), for the schema codec (schema.h).
 *
 * v1 adds the throttle time, v3 the group instance id, v5 the protocol
 * type and name both ways (KIP-559).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_sync_group.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField assignment_fields[] = {
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSyncGroupRequestAssignment, member_id)},
	{"Assignment", KAFKA_TYPE_BYTES, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSyncGroupRequestAssignment, assignment)},
};

static const KafkaSchema assignment_schema =
KAFKA_SCHEMA("SyncGroupRequestAssignment", KafkaSyncGroupRequestAssignment,
			 assignment_fields);

static const KafkaField request_fields[] = {
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSyncGroupRequest, group_id)},
	{"GenerationId", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSyncGroupRequest, generation_id)},
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSyncGroupRequest, member_id)},
	{"GroupInstanceId", KAFKA_TYPE_STRING, KAFKA_V_FROM(3), KAFKA_NULLABLE_FROM(3),
	KAFKA_AT(KafkaSyncGroupRequest, group_instance_id), .def_null = true},
	{"ProtocolType", KAFKA_TYPE_STRING, KAFKA_V_FROM(5), KAFKA_NULLABLE_FROM(5),
	KAFKA_AT(KafkaSyncGroupRequest, protocol_type), .def_null = true},
	{"ProtocolName", KAFKA_TYPE_STRING, KAFKA_V_FROM(5), KAFKA_NULLABLE_FROM(5),
	KAFKA_AT(KafkaSyncGroupRequest, protocol_name), .def_null = true},
	{"Assignments", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaSyncGroupRequest, assignments, nassignments),
	.schema = &assignment_schema},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("SyncGroupRequest", KafkaSyncGroupRequest, request_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaSyncGroupResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSyncGroupResponse, error_code)},
	{"ProtocolType", KAFKA_TYPE_STRING, KAFKA_V_FROM(5), KAFKA_NULLABLE_FROM(5),
	KAFKA_AT(KafkaSyncGroupResponse, protocol_type), .def_null = true},
	{"ProtocolName", KAFKA_TYPE_STRING, KAFKA_V_FROM(5), KAFKA_NULLABLE_FROM(5),
	KAFKA_AT(KafkaSyncGroupResponse, protocol_name), .def_null = true},
	{"Assignment", KAFKA_TYPE_BYTES, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaSyncGroupResponse, assignment)},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("SyncGroupResponse", KafkaSyncGroupResponse, response_fields);

const KafkaMessage kafka_sync_group_request = {
	"SyncGroupRequest", KAFKA_API_SYNC_GROUP, 0, 5, 4, &request_schema
};

const KafkaMessage kafka_sync_group_response = {
	"SyncGroupResponse", KAFKA_API_SYNC_GROUP, 0, 5, 4, &response_schema
};

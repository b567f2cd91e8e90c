/*-------------------------------------------------------------------------
 *
 * msg_join_group.c
 *	  JoinGroup's request and response (Kafka 3.9: versions 0-9, flexible
 *	  from 6), for the schema codec (schema.h).
 *
 * v1 adds the rebalance timeout, v2 the throttle time, v4 asks a new
 * member to join again with the id it is given (MEMBER_ID_REQUIRED), v5
 * adds group instance ids (static membership, KIP-345), v7 the protocol
 * type in the response, v8 a reason, v9 skip_assignment (KIP-814, for a
 * static leader's rejoin).
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_join_group.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField protocol_fields[] = {
	{"Name", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaJoinGroupRequestProtocol, name)},
	{"Metadata", KAFKA_TYPE_BYTES, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaJoinGroupRequestProtocol, metadata)},
};

static const KafkaSchema protocol_schema =
KAFKA_SCHEMA("JoinGroupRequestProtocol", KafkaJoinGroupRequestProtocol,
			 protocol_fields);

static const KafkaField request_fields[] = {
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaJoinGroupRequest, group_id)},
	{"SessionTimeoutMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaJoinGroupRequest, session_timeout_ms)},
	{"RebalanceTimeoutMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaJoinGroupRequest, rebalance_timeout_ms), .def = -1},
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaJoinGroupRequest, member_id)},
	{"GroupInstanceId", KAFKA_TYPE_STRING, KAFKA_V_FROM(5), KAFKA_NULLABLE_FROM(5),
	KAFKA_AT(KafkaJoinGroupRequest, group_instance_id), .def_null = true},
	{"ProtocolType", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaJoinGroupRequest, protocol_type)},
	{"Protocols", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaJoinGroupRequest, protocols, nprotocols),
	.schema = &protocol_schema},
	{"Reason", KAFKA_TYPE_STRING, KAFKA_V_FROM(8), KAFKA_NULLABLE_FROM(8),
	KAFKA_AT(KafkaJoinGroupRequest, reason), .def_null = true},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("JoinGroupRequest", KafkaJoinGroupRequest, request_fields);

static const KafkaField member_fields[] = {
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaJoinGroupResponseMember, member_id)},
	{"GroupInstanceId", KAFKA_TYPE_STRING, KAFKA_V_FROM(5), KAFKA_NULLABLE_FROM(5),
	KAFKA_AT(KafkaJoinGroupResponseMember, group_instance_id), .def_null = true},
	{"Metadata", KAFKA_TYPE_BYTES, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaJoinGroupResponseMember, metadata)},
};

static const KafkaSchema member_schema =
KAFKA_SCHEMA("JoinGroupResponseMember", KafkaJoinGroupResponseMember,
			 member_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(2),
	KAFKA_AT(KafkaJoinGroupResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaJoinGroupResponse, error_code)},
	{"GenerationId", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaJoinGroupResponse, generation_id), .def = -1},
	{"ProtocolType", KAFKA_TYPE_STRING, KAFKA_V_FROM(7), KAFKA_NULLABLE_FROM(7),
	KAFKA_AT(KafkaJoinGroupResponse, protocol_type), .def_null = true},
	{"ProtocolName", KAFKA_TYPE_STRING, KAFKA_V_FROM(0), KAFKA_NULLABLE_FROM(7),
	KAFKA_AT(KafkaJoinGroupResponse, protocol_name)},
	{"Leader", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaJoinGroupResponse, leader)},
	{"SkipAssignment", KAFKA_TYPE_BOOL, KAFKA_V_FROM(9),
	KAFKA_AT(KafkaJoinGroupResponse, skip_assignment)},
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaJoinGroupResponse, member_id)},
	{"Members", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(0),
		KAFKA_ARRAY_AT(KafkaJoinGroupResponse, members, nmembers),
	.schema = &member_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("JoinGroupResponse", KafkaJoinGroupResponse, response_fields);

const KafkaMessage kafka_join_group_request = {
	"JoinGroupRequest", KAFKA_API_JOIN_GROUP, 0, 9, 6, &request_schema
};

const KafkaMessage kafka_join_group_response = {
	"JoinGroupResponse", KAFKA_API_JOIN_GROUP, 0, 9, 6, &response_schema
};

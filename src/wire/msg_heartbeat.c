/*-------------------------------------------------------------------------
 *
 * msg_heartbeat.c
 *	  Heartbeat's request and response (Kafka 3.9: versions 0-4, flexible
 *	  from 4), for the schema codec (schema.h).
 *
 * v1 adds the throttle time, v3 the group instance id.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_heartbeat.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaHeartbeatRequest, group_id)},
	{"GenerationId", KAFKA_TYPE_INT32, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaHeartbeatRequest, generation_id)},
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaHeartbeatRequest, member_id)},
	{"GroupInstanceId", KAFKA_TYPE_STRING, KAFKA_V_FROM(3), KAFKA_NULLABLE_FROM(3),
	KAFKA_AT(KafkaHeartbeatRequest, group_instance_id), .def_null = true},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("HeartbeatRequest", KafkaHeartbeatRequest, request_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaHeartbeatResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaHeartbeatResponse, error_code)},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("HeartbeatResponse", KafkaHeartbeatResponse, response_fields);

const KafkaMessage kafka_heartbeat_request = {
	"HeartbeatRequest", KAFKA_API_HEARTBEAT, 0, 4, 4, &request_schema
};

const KafkaMessage kafka_heartbeat_response = {
	"HeartbeatResponse", KAFKA_API_HEARTBEAT, 0, 4, 4, &response_schema
};

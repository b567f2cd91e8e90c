/*-------------------------------------------------------------------------
 *
 * msg_leave_group.c
 *	  LeaveGroup's request and response (Kafka 3.9: versions 0-5, flexible
 *	  from 4), for the schema codec (schema.h).
 *
 * v1 adds the throttle time, v3 a batch of members (each by member id or
 * group instance id) answered one by one, v5 a reason per member.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_leave_group.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField identity_fields[] = {
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaLeaveGroupMemberIdentity, member_id)},
	{"GroupInstanceId", KAFKA_TYPE_STRING, KAFKA_V_FROM(3), KAFKA_NULLABLE_FROM(3),
	KAFKA_AT(KafkaLeaveGroupMemberIdentity, group_instance_id), .def_null = true},
	{"Reason", KAFKA_TYPE_STRING, KAFKA_V_FROM(5), KAFKA_NULLABLE_FROM(5),
	KAFKA_AT(KafkaLeaveGroupMemberIdentity, reason), .def_null = true},
};

static const KafkaSchema identity_schema =
KAFKA_SCHEMA("MemberIdentity", KafkaLeaveGroupMemberIdentity, identity_fields);

static const KafkaField request_fields[] = {
	{"GroupId", KAFKA_TYPE_STRING, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaLeaveGroupRequest, group_id)},
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V(0, 2),
	KAFKA_AT(KafkaLeaveGroupRequest, member_id)},
	{"Members", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(3),
		KAFKA_ARRAY_AT(KafkaLeaveGroupRequest, members, nmembers),
	.flags = KAFKA_FIELD_COUNTED, .schema = &identity_schema},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("LeaveGroupRequest", KafkaLeaveGroupRequest, request_fields);

static const KafkaField member_response_fields[] = {
	{"MemberId", KAFKA_TYPE_STRING, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaLeaveGroupMemberResponse, member_id)},
	{"GroupInstanceId", KAFKA_TYPE_STRING, KAFKA_V_FROM(3), KAFKA_NULLABLE_FROM(3),
	KAFKA_AT(KafkaLeaveGroupMemberResponse, group_instance_id)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(3),
	KAFKA_AT(KafkaLeaveGroupMemberResponse, error_code)},
};

static const KafkaSchema member_response_schema =
KAFKA_SCHEMA("MemberResponse", KafkaLeaveGroupMemberResponse,
			 member_response_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaLeaveGroupResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(0),
	KAFKA_AT(KafkaLeaveGroupResponse, error_code)},
	{"Members", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(3),
		KAFKA_ARRAY_AT(KafkaLeaveGroupResponse, members, nmembers),
	.schema = &member_response_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("LeaveGroupResponse", KafkaLeaveGroupResponse, response_fields);

const KafkaMessage kafka_leave_group_request = {
	"LeaveGroupRequest", KAFKA_API_LEAVE_GROUP, 0, 5, 4, &request_schema
};

const KafkaMessage kafka_leave_group_response = {
	"LeaveGroupResponse", KAFKA_API_LEAVE_GROUP, 0, 5, 4, &response_schema
};

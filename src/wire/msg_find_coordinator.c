/*-------------------------------------------------------------------------
 *
 * msg_find_coordinator.c
 *	  FindCoordinator's request and response (Kafka 3.9 serves versions
 *	  0-5, flexible from 3), for the schema codec (schema.h).
 *
 * v1 adds the key type, v4 asks for many keys at once (KIP-699), v5 only
 * allows the error TRANSACTION_ABORTABLE.  Kafka 3.9 defines a v6 for
 * share groups (KIP-932, not released): not described here.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/msg_find_coordinator.h"
#include "pg_topics/wire/protocol.h"

static const KafkaField request_fields[] = {
	{"Key", KAFKA_TYPE_STRING, KAFKA_V(0, 3),
	KAFKA_AT(KafkaFindCoordinatorRequest, key)},
	{"KeyType", KAFKA_TYPE_INT8, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaFindCoordinatorRequest, key_type)},
	{"CoordinatorKeys", KAFKA_TYPE_STRING, KAFKA_V_FROM(4),
		KAFKA_ARRAY_AT(KafkaFindCoordinatorRequest, coordinator_keys,
					   ncoordinator_keys),
	.flags = KAFKA_FIELD_COUNTED},
};

static const KafkaSchema request_schema =
KAFKA_SCHEMA("FindCoordinatorRequest", KafkaFindCoordinatorRequest,
			 request_fields);

static const KafkaField coordinator_fields[] = {
	{"Key", KAFKA_TYPE_STRING, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaCoordinator, key)},
	{"NodeId", KAFKA_TYPE_INT32, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaCoordinator, node_id)},
	{"Host", KAFKA_TYPE_STRING, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaCoordinator, host)},
	{"Port", KAFKA_TYPE_INT32, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaCoordinator, port)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V_FROM(4),
	KAFKA_AT(KafkaCoordinator, error_code)},
	{"ErrorMessage", KAFKA_TYPE_STRING, KAFKA_V_FROM(4), KAFKA_NULLABLE_FROM(4),
	KAFKA_AT(KafkaCoordinator, error_message)},
};

static const KafkaSchema coordinator_schema =
KAFKA_SCHEMA("Coordinator", KafkaCoordinator, coordinator_fields);

static const KafkaField response_fields[] = {
	{"ThrottleTimeMs", KAFKA_TYPE_INT32, KAFKA_V_FROM(1),
	KAFKA_AT(KafkaFindCoordinatorResponse, throttle_time_ms)},
	{"ErrorCode", KAFKA_TYPE_INT16, KAFKA_V(0, 3),
	KAFKA_AT(KafkaFindCoordinatorResponse, error_code)},
	{"ErrorMessage", KAFKA_TYPE_STRING, KAFKA_V(1, 3), KAFKA_NULLABLE_FROM(1),
	KAFKA_AT(KafkaFindCoordinatorResponse, error_message)},
	{"NodeId", KAFKA_TYPE_INT32, KAFKA_V(0, 3),
	KAFKA_AT(KafkaFindCoordinatorResponse, node_id)},
	{"Host", KAFKA_TYPE_STRING, KAFKA_V(0, 3),
	KAFKA_AT(KafkaFindCoordinatorResponse, host)},
	{"Port", KAFKA_TYPE_INT32, KAFKA_V(0, 3),
	KAFKA_AT(KafkaFindCoordinatorResponse, port)},
	{"Coordinators", KAFKA_TYPE_STRUCT, KAFKA_V_FROM(4),
		KAFKA_ARRAY_AT(KafkaFindCoordinatorResponse, coordinators,
					   ncoordinators),
	.schema = &coordinator_schema},
};

static const KafkaSchema response_schema =
KAFKA_SCHEMA("FindCoordinatorResponse", KafkaFindCoordinatorResponse,
			 response_fields);

const KafkaMessage kafka_find_coordinator_request = {
	"FindCoordinatorRequest", KAFKA_API_FIND_COORDINATOR, 0, 5, 3,
	&request_schema
};

const KafkaMessage kafka_find_coordinator_response = {
	"FindCoordinatorResponse", KAFKA_API_FIND_COORDINATOR, 0, 5, 3,
	&response_schema
};

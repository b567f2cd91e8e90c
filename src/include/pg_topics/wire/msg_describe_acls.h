/*-------------------------------------------------------------------------
 *
 * msg_describe_acls.h
 *	  DescribeAcls (API key 29), versions 0-3, as structs for the schema
 *	  codec (schema.h; the field tables are in wire/msg_describe_acls.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_MSG_DESCRIBE_ACLS_H
#define TOPIC_WIRE_MSG_DESCRIBE_ACLS_H

#include "pg_topics/wire/schema.h"

/* the versions offered (kafka/request.c) and the first flexible one */
#define KAFKA_DESCRIBE_ACLS_VERSIONS		0, 3
#define KAFKA_DESCRIBE_ACLS_FIRST_FLEXIBLE	2

/* Kafka's resource types, pattern types and permission types */
#define KAFKA_RESOURCE_UNKNOWN		0
#define KAFKA_RESOURCE_ANY			1
#define KAFKA_RESOURCE_TOPIC		2
#define KAFKA_RESOURCE_CLUSTER		4
#define KAFKA_PATTERN_UNKNOWN		0
#define KAFKA_PATTERN_ANY			1
#define KAFKA_PATTERN_MATCH			2
#define KAFKA_PATTERN_LITERAL		3
#define KAFKA_PERMISSION_UNKNOWN	0
#define KAFKA_PERMISSION_ANY		1
#define KAFKA_PERMISSION_ALLOW		3

typedef struct KafkaDescribeAclsRequest
{
	int8		resource_type_filter;
	KafkaBytes	resource_name_filter;	/* null: any */
	int8		pattern_type_filter;	/* v1+, default 3 (literal) */
	KafkaBytes	principal_filter;	/* null: any */
	KafkaBytes	host_filter;	/* null: any */
	int8		operation;
	int8		permission_type;
} KafkaDescribeAclsRequest;

typedef struct KafkaAclDescription
{
	KafkaBytes	principal;
	KafkaBytes	host;
	int8		operation;
	int8		permission_type;
} KafkaAclDescription;

typedef struct KafkaDescribeAclsResource
{
	int8		resource_type;
	KafkaBytes	resource_name;
	int8		pattern_type;	/* v1+, default 3 */
	int32		nacls;
	KafkaAclDescription *acls;
} KafkaDescribeAclsResource;

typedef struct KafkaDescribeAclsResponse
{
	int32		throttle_time_ms;
	int16		error_code;
	KafkaBytes	error_message;	/* null */
	int32		nresources;
	KafkaDescribeAclsResource *resources;
} KafkaDescribeAclsResponse;

extern const KafkaMessage kafka_describe_acls_request;
extern const KafkaMessage kafka_describe_acls_response;

#endif							/* TOPIC_WIRE_MSG_DESCRIBE_ACLS_H */

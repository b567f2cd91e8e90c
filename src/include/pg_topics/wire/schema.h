/*-------------------------------------------------------------------------
 *
 * schema.h
 *	  Kafka messages described by tables of fields: one decoder of request
 *	  bodies and one encoder of response bodies for every API and version
 *	  described (src/wire/schema.c).
 *
 * Kafka defines each request and response in a message definition (its
 * clients/src/main/resources/common/message/NameRequest.json and
 * NameResponse.json): the versions the message has, the first flexible
 * one, and its fields in wire order, each with a type, the versions it is
 * in, the versions it may be null in, and for a tagged field its tag and
 * tagged versions.  A KafkaSchema is that list of fields for a C struct;
 * a KafkaMessage names the schema of a request or response body, with its
 * API key, versions and first flexible version.  The values are the
 * struct's members, reached by offsetof, so that a handler reads its
 * request as a struct and fills its response as one:
 *
 *		KafkaMetadataRequest	in;
 *		KafkaMetadataResponse	out = {0};
 *
 *		if (!kafka_decode(&req->body, &kafka_metadata_request, req->api_version, &in))
 *			return KAFKA_CLOSE;
 *		... fill out ...
 *		kafka_encode(req->response, &kafka_metadata_response, req->api_version, &out);
 *
 * Values in the C structs, by type:
 *	int8/16/32/64, uint16	int8, int16, int32, int64, uint16
 *	float64					double
 *	bool					bool (any byte but 0 reads as true, as in Kafka)
 *	uuid					KafkaUuid (16 bytes, as on the wire)
 *	string, bytes			KafkaBytes (len -1: null); a decoded one points
 *							into the request, never copied
 *	records					KafkaRecords: decoded, a slice of the request
 *							(zero-copy: Produce hands it to the batch reader);
 *							encoded, either bytes or a callback that appends
 *							record batches to the response itself (Fetch),
 *							the length written before it patched afterwards
 *	array of any of those	a pointer to the elements and an int32 count
 *							(count_offset); count -1 and NULL is a null array
 *	struct					the struct embedded (schema)
 *	array of structs		a pointer to the structs and an int32 count
 *
 * Decoding (kafka_decode) zeroes the struct, sets every field absent from
 * the version to its default, reads the fields of the version in order
 * (compact strings, bytes and arrays with unsigned-varint lengths in
 * flexible versions) and, in a flexible version, each struct's tagged
 * fields: known tags decoded, others skipped.  It fails (false, the
 * reader's error set) on a truncated body, a negative length, a null where
 * the version allows none, an array count that cannot fit in what is left
 * of the body, an array beyond the reader's alloc_left (over_budget) and a
 * KAFKA_FIELD_COUNTED array beyond its elements_left (too_many): the
 * caller then closes the connection.  What it allocates (arrays) is
 * palloc'd in the current memory context, which the server resets after
 * each request; even after a failure every array is of its count's
 * elements.  Bytes after the body's last field are not an error.
 *
 * Encoding (kafka_encode) writes the fields of the version asked for, in
 * order, the compact forms in flexible versions, and in flexible versions
 * each struct's tagged fields whose values differ from their defaults
 * (non-empty arrays, non-null strings), in tag order, else an empty tagged
 * section.  Every byte goes through codec.h's writers, so the server's
 * kafka_write_hook sees the response grow (its memory budget, interrupts).
 *
 * The request header (v1, or v2 with tagged fields in a flexible version)
 * and the response header (v0, or v1 with tagged fields in a flexible
 * version; ApiVersions' response header is v0 always) are the server's
 * (kafka/request.c), from each message's first_flexible.
 *
 * Adding an API (or moving one onto this codec):
 *	1. Read its NameRequest.json and NameResponse.json at the Kafka release
 *	   whose versions are served (3.9 today).
 *	2. Declare a header src/include/pg_topics/wire/msg_NAME.h with one C
 *	   struct per Kafka struct (the message, and each nested or array
 *	   element struct), members named as Kafka's fields in snake_case, an
 *	   int32 nNAME before each array's pointer, and extern KafkaMessages
 *	   kafka_NAME_request and kafka_NAME_response.
 *	3. Write src/wire/msg_NAME.c: a KafkaField table per struct, fields in
 *	   Kafka's order, with KAFKA_V(from, to) / KAFKA_V_FROM(from) as the
 *	   versions, KAFKA_NULLABLE_FROM(v) where nullableVersions says so,
 *	   KAFKA_TAGGED(tag, from) for tagged fields, .def (a number) or
 *	   .def_null (a string) where Kafka's "default" is not 0, false or "",
 *	   and KAFKA_FIELD_COUNTED on arrays whose elements each cost the server
 *	   a lookup or a read (topics, partitions, topic or group names).
 *	4. In kafka/request.c, give the API SCHEMA_VERSIONS in kafka_apis: its
 *	   versions and first flexible version are then the request message's,
 *	   which ApiVersions lists.  Its handler decodes and encodes as above.
 *	5. List the two messages in wire/messages.c (the server, the unit tests
 *	   and the fuzz target find them there) and in schema_test.c's
 *	   messages[], which round-trips each at every version; add a byte
 *	   sequence of a flexible and a non-flexible version derived by hand
 *	   from the definition, and a seed per version to
 *	   test/fuzz/requests_corpus.py.
 *
 * Conventions every message follows:
 *	- Describe every version Kafka serves, even those not yet offered:
 *	  the offered range is the message's min_version..max_version.
 *	- A field's "versions" is what it is in; a field that exists only in
 *	  old versions (KAFKA_V(0, 3)) is described all the same, and the
 *	  handler reads or fills it only where the version has it.
 *	- Lists whose null means something (Metadata's topics: every topic)
 *	  are NULLABLE in the versions Kafka says; the handler tests count < 0.
 *	- Counts are int32 members named nNAME right before the pointer NAME.
 *	- A response's records are KAFKA_TYPE_RECORDS with a KafkaRecordsWriter
 *	  when they are written as they are read (Fetch), bytes otherwise;
 *	  a request's records stay a slice of the request (Produce): the batch
 *	  reader takes them from there.
 *	- Tagged fields come in the table in their tag order, after the
 *	  untagged ones of their struct, as in Kafka's definitions.
 *	- Not described yet: nullable struct fields (Kafka writes an int8
 *	  marker before them; DescribeTopicPartitions' NextCursor) and
 *	  arrays of arrays; add them to the codec when an API needs them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_SCHEMA_H
#define TOPIC_WIRE_SCHEMA_H

#include "pg_topics/wire/codec.h"

/* A field's type (an array of it if its KafkaField says so) */
typedef enum KafkaType
{
	KAFKA_TYPE_INT8,
	KAFKA_TYPE_INT16,
	KAFKA_TYPE_INT32,
	KAFKA_TYPE_INT64,
	KAFKA_TYPE_UINT16,
	KAFKA_TYPE_FLOAT64,
	KAFKA_TYPE_BOOL,
	KAFKA_TYPE_UUID,
	KAFKA_TYPE_STRING,
	KAFKA_TYPE_BYTES,
	KAFKA_TYPE_RECORDS,
	KAFKA_TYPE_STRUCT
} KafkaType;

/* Kafka's UUID (topic ids): 16 bytes, most significant first */
typedef struct KafkaUuid
{
	uint8		data[16];
} KafkaUuid;

/*
 * Appends record batches to buf (the response being encoded) and returns
 * whether it did (false: the records field is written null).  It must
 * write with codec.h's writers, or appendBinaryStringInfo (the hook sees
 * those at the next write).
 */
typedef bool (*KafkaRecordsWriter) (StringInfo buf, void *arg);

/*
 * A records field.  Decoded: bytes (a slice of the request, len -1 null).
 * To encode: bytes, or, if write is set, what write appends; its length is
 * patched in afterwards (int32, or in flexible versions a five-byte
 * unsigned varint, which Kafka's readers and librdkafka read as any other)
 * so that a response of many megabytes is never moved.
 */
typedef struct KafkaRecords
{
	KafkaBytes	bytes;
	KafkaRecordsWriter write;
	void	   *arg;
} KafkaRecords;

/* "versions": "3+" and the like */
#define KAFKA_VERSION_MAX	PG_INT16_MAX

struct KafkaSchema;

/* One field of a struct, as a message definition has it */
typedef struct KafkaField
{
	const char *name;			/* Kafka's name, for tests and logs */
	KafkaType	type;
	bool		array;			/* an array of type */
	int16		from;			/* the versions it is in */
	int16		to;
	bool		nullable;		/* null allowed from nullable_from on */
	int16		nullable_from;
	bool		tagged;			/* a tagged field from tagged_from on */
	int16		tagged_from;
	uint32		tag;
	int			flags;			/* KAFKA_FIELD_* */
	Size		offset;			/* of the value (the elements' pointer) */
	Size		count_offset;	/* arrays: of the int32 count */
	int64		def;			/* default of a number or bool */
	bool		def_null;		/* default of a string, bytes: null */
	const struct KafkaSchema *schema;	/* structs: their fields */
} KafkaField;

/* each element is a lookup or a read: counts against elements_left */
#define KAFKA_FIELD_COUNTED		0x01

/* A struct: a message's body, or an element of one of its arrays */
typedef struct KafkaSchema
{
	const char *name;
	Size		size;			/* sizeof the C struct */
	int			nfields;
	const KafkaField *fields;
} KafkaSchema;

/* A request or response body */
typedef struct KafkaMessage
{
	const char *name;			/* "MetadataRequest" */
	int16		api_key;
	int16		min_version;	/* the versions described */
	int16		max_version;
	int16		first_flexible; /* -1: none */
	const KafkaSchema *body;
} KafkaMessage;

/* shorthands for the field tables */
#define KAFKA_V(f, t)			.from = (f), .to = (t)
#define KAFKA_V_FROM(f)			.from = (f), .to = KAFKA_VERSION_MAX
#define KAFKA_NULLABLE_FROM(v)	.nullable = true, .nullable_from = (v)
#define KAFKA_TAGGED(t, v)		.tagged = true, .tag = (t), .tagged_from = (v)
#define KAFKA_AT(type, member)	.offset = offsetof(type, member)
#define KAFKA_ARRAY_AT(type, member, count) \
	.array = true, .offset = offsetof(type, member), \
	.count_offset = offsetof(type, count)
#define KAFKA_SCHEMA(name, type, fields) \
	{(name), sizeof(type), lengthof(fields), (fields)}

static inline bool
kafka_message_flexible(const KafkaMessage *m, int16 version)
{
	return m->first_flexible >= 0 && version >= m->first_flexible;
}

/*
 * Decode a body of message m at version into out (a struct of m's body
 * schema); false if it does not decode (r->error set).  A version outside
 * m's fails too.
 */
extern bool kafka_decode(KafkaReader *r, const KafkaMessage *m, int16 version,
						 void *out);

/* Encode in (a struct of m's body schema) at version onto buf */
extern void kafka_encode(StringInfo buf, const KafkaMessage *m, int16 version,
						 const void *in);

/* A C string as a KafkaBytes (NULL: null), pointing at s */
extern KafkaBytes kafka_bytes_of(const char *s);

#endif							/* TOPIC_WIRE_SCHEMA_H */

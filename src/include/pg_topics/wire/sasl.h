/*-------------------------------------------------------------------------
 *
 * sasl.h
 *	  The server side of Kafka's SASL mechanisms SCRAM-SHA-256 (RFC 5802,
 *	  RFC 7677) and PLAIN (RFC 4616), against PostgreSQL's own stored
 *	  passwords.
 *
 * The wire layer knows only the messages: finding a role's stored secret
 * and checking a PLAIN password are the caller's (they need the catalog).
 * A SCRAM exchange runs in three steps:
 *
 *	kafka_scram_client_first(client-first-message) -> the user name
 *	caller: look the role's secret up ("SCRAM-SHA-256$..." or NULL when the
 *	        role is unknown, cannot log in or has no SCRAM secret)
 *	kafka_scram_server_first(secret or NULL) -> server-first-message
 *	kafka_scram_client_final(client-final-message) -> server-final-message
 *	        and success, or failure
 *
 * With no secret the exchange goes on with a salt and iteration count made
 * up from the user name and the server's mock nonce (as PostgreSQL does),
 * and always fails at the end, so that a client cannot tell an unknown role
 * from a wrong password.  Only "n,," without channel binding is accepted;
 * the client's nonce must begin the final nonce; the proof is compared in
 * constant time.  A failed exchange stays failed: nothing after it
 * authenticates.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_WIRE_SASL_H
#define TOPIC_WIRE_SASL_H

#include "lib/stringinfo.h"

typedef enum KafkaSaslResult
{
	KAFKA_SASL_CONTINUE,		/* send the output, wait for the next message */
	KAFKA_SASL_SUCCESS,			/* send the output; authenticated */
	KAFKA_SASL_FAILURE			/* not authenticated; error_message says why */
} KafkaSaslResult;

typedef struct KafkaScram KafkaScram;	/* one exchange, palloc'd */

/*
 * Parse the client-first-message; on success *user is the (unescaped)
 * user name, palloc'd.  mock_nonce (mock_len bytes) is the server's secret
 * for unknown roles.
 */
extern KafkaSaslResult kafka_scram_client_first(KafkaScram **state,
												const char *in, int inlen,
												const char *mock_nonce,
												int mock_len, char **user,
												const char **error_message);
/* secret: the role's stored SCRAM secret, or NULL for a mock exchange */
extern KafkaSaslResult kafka_scram_server_first(KafkaScram *state,
												const char *secret,
												StringInfo out,
												const char **error_message);
extern KafkaSaslResult kafka_scram_client_final(KafkaScram *state,
												const char *in, int inlen,
												StringInfo out,
												const char **error_message);

/*
 * Split a PLAIN message "authzid NUL authcid NUL passwd" into palloc'd
 * strings; false if malformed (or authzid names another user than authcid:
 * acting as another role is not offered).
 */
extern bool kafka_plain_parse(const char *in, int inlen, char **user,
							  char **password);

#endif							/* TOPIC_WIRE_SASL_H */

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
 * and always fails at the end, with the same message as a wrong password,
 * so that a client cannot tell an unknown role from a wrong password.
 * Only "n,," without channel binding or authorization identity is
 * accepted, and no extensions; the final nonce must be the client's and
 * ours exactly; the proof is compared in constant time.  A failed exchange
 * stays failed: every later call fails with the first error again.
 *
 * Error messages are static ASCII strings that repeat nothing the client
 * sent.  In the backend the hashes register with CurrentResourceOwner,
 * which must be set; running out of memory raises an ERROR there, as
 * palloc does.
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

/* The longest SCRAM or PLAIN message taken, in bytes */
#define KAFKA_SASL_MAX_MESSAGE	4096

/* error_message of a client-final-message whose proof does not hold */
#define KAFKA_SCRAM_PROOF_FAILED	"authentication failed"

/*
 * Start an exchange with the client-first-message: *state must be NULL and
 * is set to the new exchange whatever the message (else that exchange
 * fails).  On success *user is the unescaped user name, palloc'd, shorter
 * than NAMEDATALEN.  mock_nonce (mock_len > 0 bytes) is the server's secret
 * for unknown roles, e.g. GetMockAuthenticationNonce().
 */
extern KafkaSaslResult kafka_scram_client_first(KafkaScram **state,
												const char *in, int inlen,
												const char *mock_nonce,
												int mock_len, char **user,
												const char **error_message);
/*
 * Append the server-first-message to out.  secret: the role's stored SCRAM
 * secret, or NULL for a mock exchange (as is anything but a well-formed
 * SCRAM-SHA-256 secret).
 */
extern KafkaSaslResult kafka_scram_server_first(KafkaScram *state,
												const char *secret,
												StringInfo out,
												const char **error_message);
/* Check the client-final-message; on success append the server-final to out */
extern KafkaSaslResult kafka_scram_client_final(KafkaScram *state,
												const char *in, int inlen,
												StringInfo out,
												const char **error_message);

/*
 * Free an exchange, ended or not, and what it allocated (NULL is none);
 * the user name that kafka_scram_client_first returned is the caller's.
 */
extern void kafka_scram_free(KafkaScram *state);

/*
 * Split a PLAIN message "authzid NUL authcid NUL passwd" into palloc'd
 * strings; false if malformed, longer than KAFKA_SASL_MAX_MESSAGE, the user
 * name is empty or not shorter than NAMEDATALEN, the password is empty, or
 * authzid names another user than authcid (acting as another role is not
 * offered).
 */
extern bool kafka_plain_parse(const char *in, int inlen, char **user,
							  char **password);

#endif							/* TOPIC_WIRE_SASL_H */

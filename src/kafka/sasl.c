/*-------------------------------------------------------------------------
 *
 * sasl.c
 *	  Authenticating Kafka clients as PostgreSQL roles, with their
 *	  PostgreSQL passwords: SaslHandshake (v0-1), SaslAuthenticate (v0-1),
 *	  and the unframed tokens kafka-python sends after a version-0
 *	  handshake.
 *
 * pg_topics.kafka_auth decides the mechanisms: scram-sha-256 offers
 * SCRAM-SHA-256 only (as pg_hba.conf's scram-sha-256 does), plain offers
 * PLAIN only (checked against the stored SCRAM or md5 secret, as
 * password does); trust offers both, so a client may still authenticate
 * as a role of its own instead of acting as pg_topics.kafka_trust_role.
 * Nothing new is stored: SCRAM runs against the role's SCRAM secret in
 * pg_authid (src/wire/sasl.c does the arithmetic).  A role that is
 * unknown, has no password, has expired (VALID UNTIL) or has no SCRAM
 * secret gets a mock exchange that fails at the end, so that a client
 * cannot probe which roles exist; PLAIN likewise checks the password
 * against a mock secret as costly as a real one, so that its answer takes
 * as long for a role that does not exist as for a wrong password.  As
 * after PostgreSQL's own authentication, the role must then be allowed to
 * log in (LOGIN) and to connect to the database (CONNECT).  A failed
 * exchange is answered SASL_AUTHENTICATION_FAILED, the same whatever the
 * reason, and the connection closed; the server log gives the reason in
 * the words of PostgreSQL's own failed logins.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "catalog/pg_control.h"
#include "catalog/pg_authid.h"
#include "commands/dbcommands.h"
#include "common/scram-common.h"
#include "libpq/crypt.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/base/settings.h"
#include "pg_topics/kafka/log_limit.h"
#include "pg_topics/kafka/role_slots.h"
#include "pg_topics/kafka/sasl.h"
#include "pg_topics/wire/codec.h"
#include "pg_topics/wire/msg_sasl_authenticate.h"
#include "pg_topics/wire/msg_sasl_handshake.h"
#include "pg_topics/wire/protocol.h"
#include "pg_topics/wire/sasl.h"

#define SCRAM_MECHANISM		"SCRAM-SHA-256"
#define PLAIN_MECHANISM		"PLAIN"

/* Kafka's message for every failed exchange: it tells the client nothing */
#define AUTH_FAILED_MESSAGE	"Authentication failed: invalid credentials"

/* May conn's requests run (authenticated, or trust)? */
bool
kafka_sasl_authenticated(KafkaConn *conn)
{
	return conn->auth == KAFKA_AUTH_DONE ||
		pg_topics_kafka_auth == TOPIC_KAFKA_AUTH_TRUST;
}

/* Is mechanism offered under the current pg_topics.kafka_auth? */
static bool
mechanism_offered(int mechanism)
{
	switch (pg_topics_kafka_auth)
	{
		case TOPIC_KAFKA_AUTH_SCRAM:
			return mechanism == KAFKA_SASL_SCRAM;
		case TOPIC_KAFKA_AUTH_PLAIN:
			return mechanism == KAFKA_SASL_PLAIN;
		default:
			return true;
	}
}

/*
 * The role named user if it may log in, or InvalidOid and *why (as
 * PostgreSQL's login says it, after the password was checked)
 */
static Oid
login_role(const char *user, const char **why)
{
	HeapTuple	tuple = SearchSysCache1(AUTHNAME, CStringGetDatum(user));
	Oid			role = InvalidOid;

	if (!HeapTupleIsValid(tuple))
	{
		*why = psprintf("Role \"%s\" does not exist.", user);
		return InvalidOid;
	}
	if (((Form_pg_authid) GETSTRUCT(tuple))->rolcanlogin)
		role = ((Form_pg_authid) GETSTRUCT(tuple))->oid;
	else
		*why = psprintf("Role \"%s\" is not permitted to log in.", user);
	ReleaseSysCache(tuple);
	return role;
}

/*
 * A SCRAM secret of a random password, with the default salt length and
 * iterations, made once per process: PLAIN checks a password against it
 * when the role has no secret of its own, which takes as long as checking
 * a role's (the secrets PostgreSQL makes have the same iterations)
 */
static const char *
mock_secret(void)
{
	static char *secret = NULL;

	if (secret == NULL)
	{
		char		salt[SCRAM_DEFAULT_SALT_LEN];
		uint8		bytes[16];
		char		password[2 * sizeof(bytes) + 1];
		const char *errstr = NULL;
		char	   *made;

		if (!pg_strong_random(salt, sizeof(salt)) ||
			!pg_strong_random(bytes, sizeof(bytes)))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not generate random bytes for a mock SCRAM secret")));
		for (int i = 0; i < sizeof(bytes); i++)
			sprintf(password + 2 * i, "%02x", bytes[i]);
		made = SCRAM_BUILD_SECRET_SHA256(salt, sizeof(salt), SCRAM_SHA256_ITERATIONS,
								  password, &errstr);
		if (made == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not make a mock SCRAM secret: %s", errstr)));
		secret = MemoryContextStrdup(TopMemoryContext, made);
		pfree(made);
	}
	return secret;
}

/*
 * PLAIN's check of user's password: on success conn's role; otherwise why
 * not.  Whatever is wrong with the role (none, no password, an expired
 * one), a password is checked, against the mock secret if need be, so that
 * the answer comes as late as for a wrong password.
 */
static KafkaSaslResult
plain_verify(KafkaConn *conn, char *user, const char *password,
			 const char **why)
{
	const char *shadow = get_role_password(user, why);

	if (shadow == NULL)
	{
		const char *ignored;

		(void) plain_crypt_verify(user, mock_secret(), password, &ignored);
		return KAFKA_SASL_FAILURE;
	}
	if (plain_crypt_verify(user, shadow, password, why) != STATUS_OK)
		return KAFKA_SASL_FAILURE;
	if (!OidIsValid(conn->role = login_role(user, why)))
		return KAFKA_SASL_FAILURE;
	conn->role_name = user;
	return KAFKA_SASL_SUCCESS;
}

/*
 * Log a failed authentication, as PostgreSQL does for a failed login: at
 * most one line per client address, mechanism and user name in a while
 * (kafka/log_limit.c), so that a client retrying the same login in a loop
 * does not flood the log, and each different failure is told
 */
static void
log_failure(KafkaConn *conn, const char *user, const char *why)
{
	char		host[sizeof(conn->peer)];
	char		key[sizeof(conn->peer) + NAMEDATALEN + 16];

	kafka_log_peer_host(conn->peer, host, sizeof(host));
	snprintf(key, sizeof(key), "%s %s %s", host,
			 conn->mechanism == KAFKA_SASL_PLAIN ? "PLAIN" : "SCRAM",
			 user ? user : "");
	if (!kafka_log_allowed(KAFKA_LOG_LOGIN, key, ERRCODE_INVALID_PASSWORD))
		return;
	ereport(LOG,
			(errcode(ERRCODE_INVALID_PASSWORD),
			 errmsg("Kafka client authentication failed for user \"%s\" from %s",
					user ? user : "", conn->peer),
			 why ? errdetail_log("%s", why) : 0));
}

/*
 * One SASL step of conn with message in (inlen bytes): the reply goes to
 * out.  Needs a transaction (it reads pg_authid).
 */
static KafkaSaslResult
sasl_step(KafkaConn *conn, const char *in, int inlen, StringInfo out)
{
	const char *why = NULL;
	MemoryContext oldcontext;
	KafkaSaslResult result;

	/* the exchange's state lives as long as the connection */
	oldcontext = MemoryContextSwitchTo(conn->context);
	if (conn->mechanism == KAFKA_SASL_PLAIN)
	{
		char	   *user;
		char	   *password;

		result = KAFKA_SASL_FAILURE;
		if (!kafka_plain_parse(in, inlen, &user, &password))
			why = "The PLAIN message is malformed.";
		else
			result = plain_verify(conn, user, password, &why);
		if (result != KAFKA_SASL_SUCCESS)
			log_failure(conn, user, why);
		/* the connection's memory outlives it: no password kept there */
		if (password != NULL)
		{
			explicit_bzero(password, strlen(password));
			pfree(password);
		}
	}
	else if (conn->auth == KAFKA_AUTH_HANDSHAKE)
	{
		char	   *user = NULL;
		const char *secret = NULL;

		result = kafka_scram_client_first(&conn->scram, in, inlen,
										  GetMockAuthenticationNonce(),
										  MOCK_AUTH_NONCE_LEN, &user, &why);
		if (result == KAFKA_SASL_CONTINUE)
		{
			const char *shadow = NULL;

			conn->scram_user = user;
			/*
			 * No secret: the exchange goes on, and fails at its end, for the
			 * reason kept here for the log.  A role that cannot log in gets
			 * its real exchange, as from PostgreSQL's own port, and fails
			 * after it, so the two ports tell nothing apart.
			 */
			conn->auth_failure = NULL;
			if ((shadow = get_role_password(user, &conn->auth_failure)) != NULL)
			{
				if (get_password_type(shadow) == PASSWORD_TYPE_SCRAM_SHA_256)
					secret = shadow;
				else
					conn->auth_failure =
						psprintf("User \"%s\" does not have a valid SCRAM secret.",
								 user);
			}
			result = kafka_scram_server_first(conn->scram, secret, out, &why);
			conn->auth = KAFKA_AUTH_EXCHANGE;
		}
		if (result == KAFKA_SASL_FAILURE)
			log_failure(conn, user, why);
	}
	else
	{
		result = kafka_scram_client_final(conn->scram, in, inlen, out, &why);
		/* a mock exchange fails for the reason found when it began */
		if (result == KAFKA_SASL_FAILURE && conn->auth_failure != NULL)
			why = conn->auth_failure;
		else if (result == KAFKA_SASL_FAILURE &&
				 (why == NULL || strcmp(why, KAFKA_SCRAM_PROOF_FAILED) == 0))
			why = psprintf("Password does not match for user \"%s\".",
						   conn->scram_user);
		else if (result == KAFKA_SASL_SUCCESS)
		{
			/* the password holds: may the role log in (it may be gone)? */
			conn->role = login_role(conn->scram_user, &why);
			if (!OidIsValid(conn->role))
				result = KAFKA_SASL_FAILURE;
			conn->role_name = conn->scram_user;
		}
		if (result != KAFKA_SASL_SUCCESS)
			log_failure(conn, conn->scram_user, why);
	}
	MemoryContextSwitchTo(oldcontext);

	/* an ended exchange has nothing more to keep */
	if (result != KAFKA_SASL_CONTINUE)
	{
		kafka_scram_free(conn->scram);
		conn->scram = NULL;
	}
	/* as PostgreSQL's own login: the role must be allowed to connect */
	if (result == KAFKA_SASL_SUCCESS &&
		pg_database_aclcheck(MyDatabaseId, conn->role, ACL_CONNECT) != ACLCHECK_OK)
	{
		log_failure(conn, conn->role_name,
					psprintf("Role \"%s\" has no CONNECT privilege on database \"%s\".",
							 conn->role_name, get_database_name(MyDatabaseId)));
		result = KAFKA_SASL_FAILURE;
	}
	/* within the role's share of connections and its CONNECTION LIMIT */
	if (result == KAFKA_SASL_SUCCESS && !kafka_role_slot_claim(conn))
		result = KAFKA_SASL_FAILURE;
	if (result == KAFKA_SASL_SUCCESS)
		conn->auth = KAFKA_AUTH_DONE;
	else if (result == KAFKA_SASL_FAILURE)
	{
		conn->role = InvalidOid;
		conn->closing = true;
	}
	return result;
}

/* SaslHandshake v0-1: choose a mechanism */
KafkaOutcome
kafka_sasl_handshake(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaConn  *conn = req->conn;
	KafkaSaslHandshakeRequest hr;
	KafkaSaslHandshakeResponse resp = {0};
	KafkaBytes	offered[2];
	int			mechanism = 0;
	int16		error = KAFKA_NONE;

	if (!kafka_decode(&req->body, &kafka_sasl_handshake_request,
					  req->api_version, &hr))
		return KAFKA_CLOSE;
	if (kafka_bytes_equal(hr.mechanism, SCRAM_MECHANISM))
		mechanism = KAFKA_SASL_SCRAM;
	else if (kafka_bytes_equal(hr.mechanism, PLAIN_MECHANISM))
		mechanism = KAFKA_SASL_PLAIN;

	if (conn->auth != KAFKA_AUTH_NONE)
		error = KAFKA_ILLEGAL_SASL_STATE;
	else if (mechanism == 0 || !mechanism_offered(mechanism))
		error = KAFKA_UNSUPPORTED_SASL_MECHANISM;
	else
	{
		conn->mechanism = mechanism;
		conn->auth = KAFKA_AUTH_HANDSHAKE;
		/* version 0: the tokens that follow come without request headers */
		conn->raw_sasl = req->api_version == 0;
	}

	resp.error_code = error;
	resp.mechanisms = offered;
	if (mechanism_offered(KAFKA_SASL_SCRAM))
		offered[resp.nmechanisms++] = kafka_bytes_of(SCRAM_MECHANISM);
	if (mechanism_offered(KAFKA_SASL_PLAIN))
		offered[resp.nmechanisms++] = kafka_bytes_of(PLAIN_MECHANISM);
	kafka_encode(req->response, &kafka_sasl_handshake_response,
				 req->api_version, &resp);
	if (error == KAFKA_ILLEGAL_SASL_STATE)
		conn->closing = true;
	return KAFKA_ANSWER;
}

/* SaslAuthenticate v0-2: one message of the exchange */
KafkaOutcome
kafka_sasl_authenticate(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaConn  *conn = req->conn;
	KafkaSaslAuthenticateRequest ar;
	KafkaSaslAuthenticateResponse resp = {0};
	StringInfoData reply;
	KafkaSaslResult result;

	if (!kafka_decode(&req->body, &kafka_sasl_authenticate_request,
					  req->api_version, &ar))
		return KAFKA_CLOSE;
	/* session_lifetime_ms (v1+) 0: the session does not expire */
	resp.error_message = kafka_bytes_of(NULL);
	resp.auth_bytes.data = "";
	resp.auth_bytes.len = 0;
	if (conn->auth != KAFKA_AUTH_HANDSHAKE && conn->auth != KAFKA_AUTH_EXCHANGE)
	{
		resp.error_code = KAFKA_ILLEGAL_SASL_STATE;
		resp.error_message = kafka_bytes_of("SaslAuthenticate without a SaslHandshake, or after authentication");
		kafka_encode(req->response, &kafka_sasl_authenticate_response,
					 req->api_version, &resp);
		conn->closing = true;
		return KAFKA_ANSWER;
	}
	initStringInfo(&reply);
	result = sasl_step(conn, ar.auth_bytes.data, Max(ar.auth_bytes.len, 0),
					   &reply);
	if (result == KAFKA_SASL_FAILURE)
	{
		resp.error_code = KAFKA_SASL_AUTHENTICATION_FAILED;
		resp.error_message = kafka_bytes_of(AUTH_FAILED_MESSAGE);
	}
	else
	{
		resp.auth_bytes.data = reply.data;
		resp.auth_bytes.len = reply.len;
	}
	kafka_encode(req->response, &kafka_sasl_authenticate_response,
				 req->api_version, &resp);
	return KAFKA_ANSWER;
}

/*
 * A token of kafka-python's unframed exchange (after SaslHandshake v0):
 * the whole frame is the token, and the reply is a bare length and
 * token.  A failure closes the connection without a reply, which is how
 * that client learns of it.
 */
KafkaOutcome
kafka_sasl_raw_token(KafkaRequest *req, TimestampTz *deadline)
{
	KafkaConn  *conn = req->conn;
	StringInfoData reply;
	KafkaSaslResult result;

	initStringInfo(&reply);
	result = sasl_step(conn, req->body.data, req->body.len, &reply);
	if (result == KAFKA_SASL_FAILURE)
		return KAFKA_CLOSE;
	if (result == KAFKA_SASL_SUCCESS)
		conn->raw_sasl = false;
	appendBinaryStringInfo(req->response, reply.data, reply.len);
	return KAFKA_ANSWER;
}

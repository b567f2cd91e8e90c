/*-------------------------------------------------------------------------
 *
 * sasl.c
 *	  The server side of SCRAM-SHA-256 and PLAIN for Kafka clients (see
 *	  sasl.h), checked against the secrets PostgreSQL stores in pg_authid.
 *
 * A SCRAM exchange is a KafkaScram that moves through three steps and ends
 * authenticated or failed; a failure is final, so nothing a client sends
 * after one, in any order, can authenticate.  Every message is copied and
 * checked before it is parsed: at most KAFKA_SASL_MAX_MESSAGE bytes, no
 * NUL.  The parser is strict, since both clients we serve (librdkafka and
 * kafka-python) send exactly "n,,n=<user>,r=<nonce>" and
 * "c=biws,r=<nonce>,p=<proof>": no channel binding, no authorization
 * identity, and no extensions, not even Kafka's own "tokenauth=true" (a
 * delegation token's id is not a role name).  Error messages never repeat
 * what the client sent.
 *
 * The server never sees a password: it keeps StoredKey = H(ClientKey) and
 * ServerKey.  The client proves it knows ClientKey by sending it XORed
 * with ClientSignature = HMAC(StoredKey, AuthMessage); we recover ClientKey
 * and compare its hash with StoredKey.  For a role without a usable secret
 * the exchange runs with a salt derived from the user name and the
 * caller's mock nonce (PostgreSQL's scram_mock_salt does the same with the
 * cluster's nonce, so a caller that passes that nonce shows the same salt
 * on both ports), zero keys and a doomed flag; it does the same hashing as
 * a real one and fails with the same message as a wrong password.
 *
 * Hashes and HMACs come from PostgreSQL's common library, whose contexts
 * are freed on every path: in the backend they live in TopMemoryContext
 * and are tracked by CurrentResourceOwner.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "common/base64.h"
#include "common/cryptohash.h"
#include "common/hmac.h"
#include "common/scram-common.h"
#include "common/sha2.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/wire/sasl.h"

/* iterations of a mock exchange: what PostgreSQL 15 stores for every role */
#define MOCK_ITERATIONS		SCRAM_SHA256_ITERATIONS

/* the only GS2 header taken, and its base64, which the client repeats in c= */
#define GS2_HEADER			"n,,"
#define GS2_HEADER_BASE64	"biws"

/* what a client is told when its proof does not hold, or the role is unknown */
#define AUTH_FAILED			KAFKA_SCRAM_PROOF_FAILED

typedef enum ScramStep
{
	SCRAM_WANT_SECRET,			/* client-first read: server_first is next */
	SCRAM_WANT_CLIENT_FINAL,	/* server-first sent: client_final is next */
	SCRAM_AUTHENTICATED,
	SCRAM_FAILED
} ScramStep;

struct KafkaScram
{
	ScramStep	step;
	const char *error;			/* why it failed, when SCRAM_FAILED */
	bool		doomed;			/* a mock exchange: it fails at the end */
	char	   *client_first;	/* a copy of the client-first-message */
	char	   *client_first_bare;	/* in it, after "n,," */
	char	   *client_nonce;
	char	   *nonce;			/* client's nonce and ours: r= of the final */
	char	   *server_first;
	uint8		mock_salt[SCRAM_DEFAULT_SALT_LEN];
	uint8		stored_key[SCRAM_SHA256_KEY_LEN];
	uint8		server_key[SCRAM_SHA256_KEY_LEN];
};

/* Fail the exchange for good */
static KafkaSaslResult
fail(KafkaScram *st, const char *why, const char **error_message)
{
	if (st != NULL)
	{
		if (st->step != SCRAM_FAILED)
		{
			st->step = SCRAM_FAILED;
			st->error = why;
		}
		why = st->error;
		explicit_bzero(st->stored_key, SCRAM_SHA256_KEY_LEN);
		explicit_bzero(st->server_key, SCRAM_SHA256_KEY_LEN);
	}
	*error_message = why;
	return KAFKA_SASL_FAILURE;
}

/* A NUL-terminated copy of a message; NULL if empty, too long or holding NUL */
static char *
copy_message(const char *in, int inlen)
{
	char	   *copy;

	if (in == NULL || inlen <= 0 || inlen > KAFKA_SASL_MAX_MESSAGE ||
		memchr(in, '\0', inlen) != NULL)
		return NULL;
	copy = palloc(inlen + 1);
	memcpy(copy, in, inlen);
	copy[inlen] = '\0';
	return copy;
}

/*
 * Read the attribute "x=value" at *p: false unless it is one.  *p is left
 * on the comma or NUL that ends the value.
 */
static bool
read_attr(const char **p, char *attr, const char **value, int *len)
{
	const char *s = *p;
	const char *end;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')) ||
		s[1] != '=')
		return false;
	*attr = s[0];
	*value = s + 2;
	end = *value + strcspn(*value, ",");
	*len = end - *value;
	*p = end;
	return true;
}

/* Printable ASCII but ',' (RFC 5802 "printable"), at least one character */
static bool
is_printable(const char *s, int len)
{
	if (len <= 0)
		return false;
	for (int i = 0; i < len; i++)
	{
		if (s[i] < 0x21 || s[i] > 0x7e || s[i] == ',')
			return false;
	}
	return true;
}

/*
 * The user name of a saslname: "=2C" is ',' and "=3D" is '=', any other
 * '=' is malformed.  NULL if malformed, empty, or too long for a role name.
 */
static char *
unescape_user(const char *s, int len)
{
	char	   *user = palloc(len + 1);
	int			n = 0;

	for (int i = 0; i < len; i++)
	{
		if (s[i] != '=')
		{
			user[n++] = s[i];
			continue;
		}
		if (len - i < 3 || !(strncmp(s + i, "=2C", 3) == 0 ||
							 strncmp(s + i, "=3D", 3) == 0))
		{
			pfree(user);
			return NULL;
		}
		user[n++] = s[i + 1] == '2' ? ',' : '=';
		i += 2;
	}
	user[n] = '\0';
	if (n == 0 || n >= NAMEDATALEN)
	{
		pfree(user);
		return NULL;
	}
	return user;
}

/* base64 of len bytes, palloc'd and NUL-terminated */
static char *
base64(const uint8 *data, int len)
{
	int			enclen = pg_b64_enc_len(len);
	char	   *s = palloc(enclen + 1);

	enclen = pg_b64_encode((const void *) data, len, s, enclen);
	s[Max(enclen, 0)] = '\0';
	return s;
}

/*
 * Decode the padded base64 of exactly want bytes into dst; false if it is
 * anything else.  (pg_b64_enc_len is only an upper bound of the length.)
 */
static bool
decode_exact(const char *s, int len, uint8 *dst, int want)
{
	int			declen = pg_b64_dec_len(len);
	char	   *buf = palloc(declen);
	bool		ok;

	ok = len == (want + 2) / 3 * 4 &&
		pg_b64_decode(s, len, (void *) buf, declen) == want;
	if (ok)
		memcpy(dst, buf, want);
	pfree(buf);
	return ok;
}

/*
 * Parse a stored secret "SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:
 * <ServerKey>" (all three base64); the salt is returned decoded, palloc'd.
 * False for anything else: an MD5 or plain password, or a damaged secret;
 * then nothing is left allocated.
 */
static bool
parse_secret(const char *secret, int *iterations, uint8 **salt,
			 int *saltlen, uint8 *stored_key, uint8 *server_key)
{
	const char *prefix = SCRAM_SHA_256_NAME "$";
	const char *p;
	const char *colon;
	const char *dollar;
	int64		iter = 0;
	int			declen;

	if (secret == NULL || strncmp(secret, prefix, strlen(prefix)) != 0)
		return false;
	p = secret + strlen(prefix);

	/* iterations: decimal digits, 1 to INT_MAX */
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
	{
		iter = iter * 10 + (*p - '0');
		if (iter > PG_INT32_MAX)
			return false;
	}
	if (*p++ != ':' || iter < 1)
		return false;

	/* salt, up to '$' */
	dollar = strchr(p, '$');
	if (dollar == NULL || dollar == p)
		return false;
	declen = pg_b64_dec_len(dollar - p);
	*salt = palloc(declen);
	*saltlen = pg_b64_decode(p, dollar - p, (void *) *salt, declen);

	/* StoredKey:ServerKey, to the end */
	p = dollar + 1;
	colon = strchr(p, ':');
	if (*saltlen <= 0 || colon == NULL ||
		!decode_exact(p, colon - p, stored_key, SCRAM_SHA256_KEY_LEN) ||
		!decode_exact(colon + 1, strlen(colon + 1), server_key, SCRAM_SHA256_KEY_LEN))
	{
		pfree(*salt);
		*salt = NULL;
		return false;
	}

	*iterations = (int) iter;
	return true;
}

/* The mock salt: the first bytes of SHA-256(user || mock nonce) */
static bool
compute_mock_salt(const char *user, const char *mock_nonce, int mock_len,
				  uint8 *salt)
{
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(PG_SHA256);
	uint8		digest[PG_SHA256_DIGEST_LENGTH];
	bool		ok;

	StaticAssertStmt(PG_SHA256_DIGEST_LENGTH >= SCRAM_DEFAULT_SALT_LEN,
					 "the mock salt is cut from one SHA-256 digest");
	ok = ctx != NULL &&
		pg_cryptohash_init(ctx) == 0 &&
		pg_cryptohash_update(ctx, (const uint8 *) user, strlen(user)) == 0 &&
		pg_cryptohash_update(ctx, (const uint8 *) mock_nonce, mock_len) == 0 &&
		pg_cryptohash_final(ctx, digest, sizeof(digest)) == 0;
	pg_cryptohash_free(ctx);
	if (ok)
		memcpy(salt, digest, SCRAM_DEFAULT_SALT_LEN);
	return ok;
}

/*
 * HMAC(key, AuthMessage), where AuthMessage is client-first-message-bare,
 * server-first-message and client-final-message-without-proof joined by
 * commas.
 */
static bool
auth_message_hmac(KafkaScram *st, const uint8 *key, const char *final,
				  int final_len, uint8 *result)
{
	pg_hmac_ctx *ctx = pg_hmac_create(PG_SHA256);
	bool		ok;

	ok = ctx != NULL &&
		pg_hmac_init(ctx, key, SCRAM_SHA256_KEY_LEN) == 0 &&
		pg_hmac_update(ctx, (const uint8 *) st->client_first_bare,
					   strlen(st->client_first_bare)) == 0 &&
		pg_hmac_update(ctx, (const uint8 *) ",", 1) == 0 &&
		pg_hmac_update(ctx, (const uint8 *) st->server_first,
					   strlen(st->server_first)) == 0 &&
		pg_hmac_update(ctx, (const uint8 *) ",", 1) == 0 &&
		pg_hmac_update(ctx, (const uint8 *) final, final_len) == 0 &&
		pg_hmac_final(ctx, result, SCRAM_SHA256_KEY_LEN) == 0;
	pg_hmac_free(ctx);
	return ok;
}

/* a == b over len bytes, in a time that does not depend on where they differ */
static bool
equal_in_constant_time(const uint8 *a, const uint8 *b, int len)
{
	uint8		diff = 0;

	for (int i = 0; i < len; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

/* Step one: read the client-first-message, and make the mock salt */
KafkaSaslResult
kafka_scram_client_first(KafkaScram **state, const char *in, int inlen,
						 const char *mock_nonce, int mock_len, char **user,
						 const char **error_message)
{
	KafkaScram *st;
	char	   *msg;
	char	   *name;
	const char *why = NULL;
	const char *p;
	const char *value;
	int			len;
	char		attr;

	Assert(mock_nonce != NULL && mock_len > 0);
	*error_message = NULL;
	*user = NULL;
	if (*state != NULL)
		return fail(*state, "unexpected SCRAM message", error_message);
	st = *state = palloc0(sizeof(KafkaScram));

	if ((msg = copy_message(in, inlen)) == NULL)
		return fail(st, "malformed SCRAM message", error_message);
	st->client_first = msg;

	/* the GS2 header: no channel binding, no authorization identity */
	if (msg[0] == 'y' || msg[0] == 'p')
		return fail(st, "SCRAM channel binding is not supported",
					error_message);
	if (strncmp(msg, "n,a=", 4) == 0)
		return fail(st, "SCRAM authorization identity is not supported",
					error_message);
	if (strncmp(msg, GS2_HEADER, strlen(GS2_HEADER)) != 0)
		return fail(st, "malformed SCRAM message", error_message);
	st->client_first_bare = msg + strlen(GS2_HEADER);
	p = st->client_first_bare;

	/* n=<user>, after no mandatory extension "m=" */
	if (!read_attr(&p, &attr, &value, &len))
		return fail(st, "malformed SCRAM message", error_message);
	if (attr == 'm')
		return fail(st, "SCRAM extensions are not supported", error_message);
	if (attr != 'n' || *p != ',')
		return fail(st, "malformed SCRAM message", error_message);
	if ((name = unescape_user(value, len)) == NULL)
		return fail(st, "invalid SCRAM user name", error_message);
	p++;

	/* r=<client nonce>, and nothing after it */
	if (!read_attr(&p, &attr, &value, &len) || attr != 'r')
		why = "malformed SCRAM message";
	else if (!is_printable(value, len))
		why = "invalid SCRAM nonce";
	else if (*p == ',')
		why = "SCRAM extensions are not supported";
	else if (!compute_mock_salt(name, mock_nonce, mock_len, st->mock_salt))
		why = "could not compute the SCRAM mock salt";
	if (why != NULL)
	{
		pfree(name);
		return fail(st, why, error_message);
	}
	Assert(*p == '\0');
	st->client_nonce = pnstrdup(value, len);

	*user = name;
	st->step = SCRAM_WANT_SECRET;
	return KAFKA_SASL_CONTINUE;
}

/* Step two: answer with the role's salt and iterations, or mock ones */
KafkaSaslResult
kafka_scram_server_first(KafkaScram *st, const char *secret, StringInfo out,
						 const char **error_message)
{
	uint8		raw_nonce[SCRAM_RAW_NONCE_LEN];
	uint8	   *salt = NULL;
	int			saltlen = 0;
	int			iterations = 0;
	char	   *nonce64;
	char	   *salt64;

	*error_message = NULL;
	if (st == NULL || st->step != SCRAM_WANT_SECRET)
		return fail(st, "unexpected SCRAM message", error_message);

	if (!parse_secret(secret, &iterations, &salt, &saltlen,
					  st->stored_key, st->server_key))
	{
		/* no usable secret: carry on with made-up values, to fail at the end */
		st->doomed = true;
		salt = st->mock_salt;
		saltlen = SCRAM_DEFAULT_SALT_LEN;
		iterations = MOCK_ITERATIONS;
		memset(st->stored_key, 0, SCRAM_SHA256_KEY_LEN);
		memset(st->server_key, 0, SCRAM_SHA256_KEY_LEN);
	}

	salt64 = base64(salt, saltlen);
	if (!st->doomed)
		pfree(salt);
	if (!pg_strong_random(raw_nonce, sizeof(raw_nonce)))
	{
		pfree(salt64);
		return fail(st, "could not generate a SCRAM nonce", error_message);
	}
	nonce64 = base64(raw_nonce, sizeof(raw_nonce));
	st->nonce = psprintf("%s%s", st->client_nonce, nonce64);
	st->server_first = psprintf("r=%s,s=%s,i=%d", st->nonce, salt64,
								iterations);
	appendStringInfoString(out, st->server_first);
	pfree(nonce64);
	pfree(salt64);
	st->step = SCRAM_WANT_CLIENT_FINAL;
	return KAFKA_SASL_CONTINUE;
}

/*
 * Is the final message's nonce (len bytes at value) this exchange's:
 * exactly, or preceded by the client's nonce once more (librdkafka)?
 */
static bool
nonce_matches(const KafkaScram *st, const char *value, int len)
{
	int			nlen = (int) strlen(st->nonce);
	int			clen = (int) strlen(st->client_nonce);

	if (len == nlen)
		return memcmp(value, st->nonce, nlen) == 0;
	return len == clen + nlen &&
		memcmp(value, st->client_nonce, clen) == 0 &&
		memcmp(value + clen, st->nonce, nlen) == 0;
}

/* Check the client-final-message msg (a NUL-terminated copy) of st */
static KafkaSaslResult
check_client_final(KafkaScram *st, const char *msg, StringInfo out,
				   const char **error_message)
{
	const char *p;
	const char *value;
	int			len;
	char		attr;
	int			without_proof_len;
	uint8		proof[SCRAM_SHA256_KEY_LEN];
	uint8		signature[SCRAM_SHA256_KEY_LEN];
	uint8		client_key[SCRAM_SHA256_KEY_LEN];
	uint8		client_stored_key[SCRAM_SHA256_KEY_LEN];
	const char *errstr = NULL;
	bool		proof_holds;
	char	   *signature64;

	p = msg;

	/* c=biws: the GS2 header "n,," of the client-first again */
	if (!read_attr(&p, &attr, &value, &len) || attr != 'c' || *p != ',')
		return fail(st, "malformed SCRAM message", error_message);
	if (len != (int) strlen(GS2_HEADER_BASE64) ||
		memcmp(value, GS2_HEADER_BASE64, len) != 0)
		return fail(st, "SCRAM channel binding data does not match",
					error_message);
	p++;

	/*
	 * r=<client nonce><server nonce>, exactly; or, as librdkafka (up to
	 * 2.x) writes it, with the client nonce once more in front, which
	 * Kafka's broker takes too (it checks that r= ends with its nonce).
	 * The proof covers the message as sent, so either form proves the
	 * same.
	 */
	if (!read_attr(&p, &attr, &value, &len) || attr != 'r' || *p != ',')
		return fail(st, "malformed SCRAM message", error_message);
	if (!nonce_matches(st, value, len))
		return fail(st, "SCRAM nonce does not match", error_message);
	without_proof_len = p - msg;
	p++;

	/* p=<proof>, last */
	if (!read_attr(&p, &attr, &value, &len))
		return fail(st, "malformed SCRAM message", error_message);
	if (attr != 'p')
		return fail(st, "SCRAM extensions are not supported", error_message);
	if (*p != '\0' || !decode_exact(value, len, proof, SCRAM_SHA256_KEY_LEN))
		return fail(st, "malformed SCRAM proof", error_message);

	/*
	 * ClientKey = proof XOR HMAC(StoredKey, AuthMessage), and H(ClientKey)
	 * must be StoredKey.  A mock exchange computes the same, to take the same
	 * time, before its doom decides.
	 */
	if (!auth_message_hmac(st, st->stored_key, msg, without_proof_len,
						   signature))
		return fail(st, "could not compute the SCRAM client signature",
					error_message);
	for (int i = 0; i < SCRAM_SHA256_KEY_LEN; i++)
		client_key[i] = proof[i] ^ signature[i];
	if (SCRAM_H_SHA256(client_key, client_stored_key, &errstr) < 0)
		return fail(st, "could not compute the SCRAM client signature",
					error_message);
	proof_holds = equal_in_constant_time(client_stored_key, st->stored_key,
										 SCRAM_SHA256_KEY_LEN);
	explicit_bzero(client_key, sizeof(client_key));
	if (!proof_holds || st->doomed)
		return fail(st, AUTH_FAILED, error_message);

	/* v=<HMAC(ServerKey, AuthMessage)>: we knew the secret too */
	if (!auth_message_hmac(st, st->server_key, msg, without_proof_len,
						   signature))
		return fail(st, "could not compute the SCRAM server signature",
					error_message);
	signature64 = base64(signature, SCRAM_SHA256_KEY_LEN);
	appendStringInfo(out, "v=%s", signature64);
	pfree(signature64);
	explicit_bzero(st->stored_key, SCRAM_SHA256_KEY_LEN);
	explicit_bzero(st->server_key, SCRAM_SHA256_KEY_LEN);
	st->step = SCRAM_AUTHENTICATED;
	return KAFKA_SASL_SUCCESS;
}

/* Step three: check the client's proof, and prove we know the secret too */
KafkaSaslResult
kafka_scram_client_final(KafkaScram *st, const char *in, int inlen,
						 StringInfo out, const char **error_message)
{
	char	   *msg;
	KafkaSaslResult result;

	*error_message = NULL;
	if (st == NULL || st->step != SCRAM_WANT_CLIENT_FINAL)
		return fail(st, "unexpected SCRAM message", error_message);
	if ((msg = copy_message(in, inlen)) == NULL)
		return fail(st, "malformed SCRAM message", error_message);
	result = check_client_final(st, msg, out, error_message);
	pfree(msg);
	return result;
}

/* Free an exchange (NULL is none) and everything it holds */
void
kafka_scram_free(KafkaScram *st)
{
	if (st == NULL)
		return;
	if (st->client_first != NULL)
		pfree(st->client_first);
	if (st->client_nonce != NULL)
		pfree(st->client_nonce);
	if (st->nonce != NULL)
		pfree(st->nonce);
	if (st->server_first != NULL)
		pfree(st->server_first);
	explicit_bzero(st, sizeof(KafkaScram));
	pfree(st);
}

/* Split a PLAIN message into user name and password */
bool
kafka_plain_parse(const char *in, int inlen, char **user, char **password)
{
	const char *end;
	const char *authzid = in;
	const char *authcid;
	const char *passwd;
	int			authzid_len;
	int			authcid_len;

	*user = NULL;
	*password = NULL;
	if (in == NULL || inlen <= 0 || inlen > KAFKA_SASL_MAX_MESSAGE)
		return false;
	end = in + inlen;

	/* three fields split by two NULs, the password holding none */
	authzid_len = strnlen(authzid, inlen);
	if (authzid_len == inlen)
		return false;
	authcid = authzid + authzid_len + 1;
	authcid_len = strnlen(authcid, end - authcid);
	if (authcid + authcid_len == end)
		return false;
	passwd = authcid + authcid_len + 1;
	if (passwd == end || memchr(passwd, '\0', end - passwd) != NULL)
		return false;

	/* a user name that can be a role's, and no other identity than it */
	if (authcid_len == 0 || authcid_len >= NAMEDATALEN)
		return false;
	if (authzid_len != 0 &&
		(authzid_len != authcid_len ||
		 memcmp(authzid, authcid, authcid_len) != 0))
		return false;

	*user = pnstrdup(authcid, authcid_len);
	*password = pnstrdup(passwd, end - passwd);
	return true;
}

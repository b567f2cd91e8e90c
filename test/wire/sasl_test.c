/*-------------------------------------------------------------------------
 *
 * sasl_test.c
 *	  Unit test of src/wire/sasl.c, the server side of SCRAM-SHA-256 and
 *	  PLAIN, built as frontend code:
 *
 * gcc -DFRONTEND -I src/include -I$(pg_config --includedir-server) \
 *	   -I$(pg_config --includedir) test/wire/sasl_test.c src/wire/sasl.c \
 *	   $(pg_config --pkglibdir)/libpgcommon.a \
 *	   $(pg_config --pkglibdir)/libpgport.a -lcrypto -o /tmp/sasl_test
 * /tmp/sasl_test
 *
 * (-lcrypto because Debian's libpgcommon hashes with OpenSSL, and
 * libpgport's pg_strong_random draws from it.)
 *
 * The test plays the client with PostgreSQL's own SCRAM primitives,
 * against secrets a PostgreSQL 15 server stored (CREATE ROLE ... PASSWORD
 * with password_encryption = scram-sha-256) and one scram_build_secret
 * makes, and checks the server signature it gets back.  If kafka-python is
 * installed, its ScramClient, which the Kafka clients' tests use, also
 * runs one exchange in a child process, over pipes.  Then come the mock
 * exchange, every malformed message we could think of, messages out of
 * order, and PLAIN.  It exits non-zero if any check fails.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/base64.h"
#include "common/hmac.h"
#include "common/scram-common.h"
#include "lib/stringinfo.h"

#include "pg_topics/base/compat.h"

#include "pg_topics/wire/sasl.h"
#include "unit_check.h"

/*
 * Secrets a PostgreSQL 15 server stored (SELECT rolpassword FROM pg_authid)
 * for these roles and passwords
 */
#define ALICE_SALT "zZaZW3l85QsjL/khzkynJw=="
#define ALICE_STORED_KEY "kGz2IV4pVgxvQ9nIUTYth2XwHA9vFRgIY+6eDhSmF7k="
#define ALICE_SERVER_KEY "/IBFFo1+gH6nFuBRN92xDmZRyCc1cP6ocRxVcigRimg="
#define ALICE_KEYS ALICE_STORED_KEY ":" ALICE_SERVER_KEY
#define ALICE_SECRET "SCRAM-SHA-256$4096:" ALICE_SALT "$" ALICE_KEYS
#define ALICE_PASSWORD "Tr0ub4dor&3 correct horse"
#define COMMA_SECRET "SCRAM-SHA-256$4096:o6nVRRuCIKwACKv8ezypwA==$" \
	"V0z11RRV+i/8bbiwWnVka3ZrKpmn/O6OpeT2v8aJL8Y=:" \
	"sFKYRaDRYbMFDD5xSRx51VGD0BG4132C+Z1Xy/UhhfI="
#define COMMA_USER "kafka,user=1"
#define COMMA_PASSWORD "pencil"

#define CNONCE "fyko+d2lbbFgONRv9qkxdawL"
#define AUTH_FAILED "authentication failed"

static const char mock_nonce[] = "0123456789abcdef0123456789abcdef";
static const char other_mock_nonce[] = "fedcba9876543210fedcba9876543210";

/* build client-final messages as librdkafka 2.0.2 does (see client_final) */
static bool librdkafka_nonce = false;

/* Is error the message expected? */
static bool
error_is(const char *error, const char *expected)
{
	return error != NULL && strcmp(error, expected) == 0;
}

/* base64 of len bytes, palloc'd */
static char *
b64(const uint8 *data, int len)
{
	int			n = pg_b64_enc_len(len);
	char	   *s = palloc(n + 1);

	n = pg_b64_encode((const void *) data, len, s, n);

	s[n] = '\0';
	return s;
}

/* HMAC-SHA-256(key, msg) */
static void
hmac(const uint8 *key, const char *msg, uint8 *result)
{
	pg_hmac_ctx *ctx = pg_hmac_create(PG_SHA256);

	if (pg_hmac_init(ctx, key, SCRAM_SHA256_KEY_LEN) < 0 ||
		pg_hmac_update(ctx, (const uint8 *) msg, strlen(msg)) < 0 ||
		pg_hmac_final(ctx, result, SCRAM_SHA256_KEY_LEN) < 0)
	{
		fprintf(stderr, "HMAC failed\n");
		exit(2);
	}
	pg_hmac_free(ctx);
}

/* The value of attribute attr ("s", "i", "r") of a server-first, palloc'd */
static char *
attr_of(const char *msg, char attr)
{
	for (const char *p = msg; *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
	{
		if (p[0] == attr && p[1] == '=')
			return pnstrdup(p + 2, strcspn(p + 2, ","));
	}
	return NULL;
}

/*
 * The client side: the client-final-message answering server_first for the
 * client-first-message-bare first_bare, with this password; the server
 * signature to expect goes to *server_sig.  The proof can be given instead
 * of computed (proof != NULL).
 */
static char *
client_final(const char *first_bare, const char *password,
			 const char *server_first, uint8 *server_sig)
{
	char	   *nonce = attr_of(server_first, 'r');
	char	   *salt_b64 = attr_of(server_first, 's');
	char	   *iter = attr_of(server_first, 'i');
	char		salt[64];
	int			saltlen;
	uint8		salted[SCRAM_SHA256_KEY_LEN];
	uint8		client_key[SCRAM_SHA256_KEY_LEN];
	uint8		stored_key[SCRAM_SHA256_KEY_LEN];
	uint8		server_key[SCRAM_SHA256_KEY_LEN];
	uint8		signature[SCRAM_SHA256_KEY_LEN];
	uint8		proof[SCRAM_SHA256_KEY_LEN];
	const char *errstr;
	char	   *without_proof;
	char	   *auth_message;

	if (!nonce || !salt_b64 || !iter)
		return NULL;
	saltlen = pg_b64_decode(salt_b64, strlen(salt_b64), (void *) salt, sizeof(salt));
	if (saltlen <= 0 ||
		SCRAM_SALTED_PASSWORD_SHA256(password, salt, saltlen, atoi(iter), salted,
							 &errstr) < 0 ||
		SCRAM_CLIENT_KEY_SHA256(salted, client_key, &errstr) < 0 ||
		SCRAM_H_SHA256(client_key, stored_key, &errstr) < 0 ||
		SCRAM_SERVER_KEY_SHA256(salted, server_key, &errstr) < 0)
		return NULL;

	/* librdkafka sends its own nonce once more in front of the server's */
	without_proof = librdkafka_nonce ?
		psprintf("c=biws,r=%s%s", attr_of(first_bare, 'r'), nonce) :
		psprintf("c=biws,r=%s", nonce);
	auth_message = psprintf("%s,%s,%s", first_bare, server_first,
							without_proof);
	hmac(stored_key, auth_message, signature);
	for (int i = 0; i < SCRAM_SHA256_KEY_LEN; i++)
		proof[i] = client_key[i] ^ signature[i];
	hmac(server_key, auth_message, server_sig);
	return psprintf("%s,p=%s", without_proof, b64(proof, SCRAM_SHA256_KEY_LEN));
}

/* One exchange's messages and results */
typedef struct Exchange
{
	KafkaScram *state;
	KafkaSaslResult first_result;
	KafkaSaslResult server_result;
	KafkaSaslResult final_result;
	char	   *user;
	const char *error;
	StringInfoData server_first;
	StringInfoData server_final;
	uint8		expected_sig[SCRAM_SHA256_KEY_LEN];
} Exchange;

/*
 * Run the first two steps for client_first, with secret (NULL: mock), and
 * stop before the client-final.
 */
static void
start(Exchange *ex, const char *client_first, int len, const char *secret,
	  const char *mock)
{
	memset(ex, 0, sizeof(*ex));
	initStringInfo(&ex->server_first);
	initStringInfo(&ex->server_final);
	ex->first_result = kafka_scram_client_first(&ex->state, client_first, len,
												mock, strlen(mock), &ex->user,
												&ex->error);
	ex->server_result = kafka_scram_server_first(ex->state, secret,
												 &ex->server_first, &ex->error);
}

/* Send a client-final-message */
static KafkaSaslResult
finish(Exchange *ex, const char *msg, int len)
{
	ex->final_result = kafka_scram_client_final(ex->state, msg, len,
												&ex->server_final, &ex->error);
	return ex->final_result;
}

/*
 * A whole exchange: "n,," + first_bare, the secret, and the final computed
 * from password.  Returns the final result.
 */
static KafkaSaslResult
run(Exchange *ex, const char *first_bare, const char *secret,
	const char *password)
{
	char	   *first = psprintf("n,,%s", first_bare);
	char	   *final;

	start(ex, first, strlen(first), secret, mock_nonce);
	if (ex->first_result != KAFKA_SASL_CONTINUE ||
		ex->server_result != KAFKA_SASL_CONTINUE)
		return KAFKA_SASL_FAILURE;
	final = client_final(first_bare, password, ex->server_first.data,
						 ex->expected_sig);
	if (final == NULL)
		return KAFKA_SASL_FAILURE;
	return finish(ex, final, strlen(final));
}

/* Does server_first look like ours: "r=<cnonce><24>,s=<24>,i=4096"? */
static bool
server_first_shape(const char *sf, const char *cnonce)
{
	char	   *r = attr_of(sf, 'r');
	char	   *s = attr_of(sf, 's');
	char	   *i = attr_of(sf, 'i');

	return r && s && i &&
		strncmp(r, cnonce, strlen(cnonce)) == 0 &&
		strlen(r) == strlen(cnonce) + 24 &&
		strlen(s) == 24 && strcmp(i, "4096") == 0 &&
		strlen(sf) == strlen(r) + strlen(s) + strlen(i) + 8;
}

/* Did the exchange send this salt? */
static bool
same_salt(const char *salt, Exchange *ex)
{
	char	   *s = attr_of(ex->server_first.data, 's');

	return salt != NULL && s != NULL && strcmp(salt, s) == 0;
}

/* Real secrets: the right password and the wrong one, escaped names */
static void
test_real_secrets(void)
{
	Exchange	ex;
	char	   *built;
	const char *errstr;
	char		salt[SCRAM_DEFAULT_SALT_LEN] = "0123456789abcdef";

	CHECK(run(&ex, "n=alice,r=" CNONCE, ALICE_SECRET, ALICE_PASSWORD)
		  == KAFKA_SASL_SUCCESS, "right password authenticates");
	CHECK(strcmp(ex.user, "alice") == 0, "user name returned");
	CHECK(ex.error == NULL, "no error on success");
	CHECK(server_first_shape(ex.server_first.data, CNONCE),
		  "server-first shape");
	CHECK(strncmp(ex.server_first.data + 2 + strlen(CNONCE) + 24,
				  ",s=" ALICE_SALT ",i=4096", 34) == 0,
		  "server-first carries the stored salt and iterations");
	CHECK(strncmp(ex.server_final.data, "v=", 2) == 0 &&
		  strcmp(ex.server_final.data + 2,
				 b64(ex.expected_sig, SCRAM_SHA256_KEY_LEN)) == 0,
		  "server signature verifies");
	CHECK(finish(&ex, "c=biws", 6) == KAFKA_SASL_FAILURE,
		  "no message after success");

	CHECK(run(&ex, "n=alice,r=" CNONCE, ALICE_SECRET, "Tr0ub4dor&3")
		  == KAFKA_SASL_FAILURE, "wrong password fails");
	CHECK(error_is(ex.error, AUTH_FAILED),
		  "wrong password message");
	CHECK(ex.server_final.len == 0, "no server-final on failure");

	CHECK(run(&ex, "n=kafka=2Cuser=3D1,r=" CNONCE, COMMA_SECRET, COMMA_PASSWORD)
		  == KAFKA_SASL_SUCCESS, "escaped user name authenticates");
	CHECK(ex.user && strcmp(ex.user, COMMA_USER) == 0,
		  "=2C and =3D unescaped");

	librdkafka_nonce = true;
	CHECK(run(&ex, "n=alice,r=" CNONCE, ALICE_SECRET, ALICE_PASSWORD)
		  == KAFKA_SASL_SUCCESS,
		  "librdkafka's final nonce (its own nonce twice) authenticates");
	CHECK(strncmp(ex.server_final.data, "v=", 2) == 0 &&
		  strcmp(ex.server_final.data + 2,
				 b64(ex.expected_sig, SCRAM_SHA256_KEY_LEN)) == 0,
		  "and the server signature verifies for it");
	CHECK(run(&ex, "n=alice,r=" CNONCE, ALICE_SECRET, "Tr0ub4dor&3")
		  == KAFKA_SASL_FAILURE, "librdkafka's form with a wrong password fails");
	librdkafka_nonce = false;

	built = SCRAM_BUILD_SECRET_SHA256(salt, sizeof(salt), 4096, "secret", &errstr);
	CHECK(built != NULL, "scram_build_secret");
	CHECK(run(&ex, "n=bob,r=x", built, "secret") == KAFKA_SASL_SUCCESS,
		  "built secret, one-character nonce");
	CHECK(run(&ex, "n=bob,r=x", built, "Secret") == KAFKA_SASL_FAILURE,
		  "built secret, wrong password");
}

/* The mock exchange: looks the same, fails the same, salt deterministic */
static void
test_mock(void)
{
	Exchange	ex;
	char	   *salt;
	const char *not_scram[] = {
		"md5a3556571e93b0d20722ba62be61e8c2d",
		"plain password",
		"SCRAM-SHA-256$4096:" ALICE_SALT,
		"SCRAM-SHA-256$4096:" ALICE_SALT "$" ALICE_STORED_KEY,
		"SCRAM-SHA-256$0:" ALICE_SALT "$" ALICE_KEYS,
		"SCRAM-SHA-256$-1:" ALICE_SALT "$" ALICE_KEYS,
		"SCRAM-SHA-256$99999999999:" ALICE_SALT "$" ALICE_KEYS,
		"SCRAM-SHA-256$4096:$" ALICE_KEYS,
		"SCRAM-SHA-256$4096:" ALICE_SALT "$" ALICE_KEYS "x",
		"SCRAM-SHA-256$4096:" ALICE_SALT "$" ALICE_KEYS ":" ALICE_SERVER_KEY,
		"SCRAM-SHA-256$4096:" ALICE_SALT "$" ALICE_SERVER_KEY "x:" ALICE_KEYS,
		"SCRAM-SHA-256$4096:" ALICE_SALT "$" ALICE_STORED_KEY ":",
		"SCRAM-SHA-256$4096:zZaZW3l85 sjL/khzkynJw==$" ALICE_KEYS,
		"SCRAM-SHA-512$4096:" ALICE_SALT "$" ALICE_KEYS,
		"scram-sha-256$4096:" ALICE_SALT "$" ALICE_KEYS,
		"",
	};

	CHECK(run(&ex, "n=alice,r=" CNONCE, NULL, ALICE_PASSWORD)
		  == KAFKA_SASL_FAILURE, "mock exchange fails");
	CHECK(ex.server_result == KAFKA_SASL_CONTINUE,
		  "mock exchange sends a server-first");
	CHECK(error_is(ex.error, AUTH_FAILED),
		  "mock fails like a wrong password");
	CHECK(server_first_shape(ex.server_first.data, CNONCE),
		  "mock server-first shape");
	salt = attr_of(ex.server_first.data, 's');

	run(&ex, "n=alice,r=other", NULL, "anything");
	CHECK(same_salt(salt, &ex),
		  "mock salt is the same for the same user");
	CHECK(ex.final_result == KAFKA_SASL_FAILURE, "any proof fails");
	run(&ex, "n=alicf,r=other", NULL, "anything");
	CHECK(!same_salt(salt, &ex),
		  "mock salt differs for another user");
	start(&ex, "n,,n=alice,r=x", 14, NULL, other_mock_nonce);
	CHECK(!same_salt(salt, &ex),
		  "mock salt differs for another mock nonce");

	for (int i = 0; i < lengthof(not_scram); i++)
	{
		run(&ex, "n=alice,r=" CNONCE, not_scram[i], ALICE_PASSWORD);
		CHECK(ex.final_result == KAFKA_SASL_FAILURE &&
			  error_is(ex.error, AUTH_FAILED) &&
			  same_salt(salt, &ex),
			  "not a SCRAM secret, mocks: \"%s\"", not_scram[i]);
	}
}

/* Client-first-messages to refuse */
static void
test_bad_client_first(void)
{
	Exchange	ex;
	char	   *longname = psprintf("n,,n=%0*d,r=x", NAMEDATALEN, 0);
	char	   *name63 = psprintf("n,,n=%0*d,r=x", NAMEDATALEN - 1, 0);
	char	   *huge = palloc(KAFKA_SASL_MAX_MESSAGE + 1);
	const char *bad[] = {
		"y,,n=alice,r=x",
		"p=tls-server-end-point,,n=alice,r=x",
		"n,a=other,n=alice,r=x",
		"n,a=alice,n=alice,r=x",
		"n,,m=ext,n=alice,r=x",
		"n,,n=alice,r=x,tokenauth=true",
		"n,,n=alice,r=x,e=1",
		"n,,n=alice,r=x,",
		"n,,n=alice,r=",
		"n,,n=alice,r=a b",
		"n,,n=alice,r=\x01",
		"n,,n=alice,r=\xc3\xa9",
		"n,,n=alice",
		"n,,n=alice,",
		"n,,n=,r=x",
		"n,,n=a=2,r=x",
		"n,,n=a=2c,r=x",
		"n,,n=a=,r=x",
		"n,,n=a=4F,r=x",
		"n,,r=x,n=alice",
		"n,,n=alice,x=y,r=x",
		"n,,N=alice,r=x",
		"n,,nn=alice,r=x",
		"n,,",
		"n,",
		"n",
		"",
		",,n=alice,r=x",
		"n,,,n=alice,r=x",
		"x,,n=alice,r=x",
	};

	for (int i = 0; i < lengthof(bad); i++)
	{
		start(&ex, bad[i], strlen(bad[i]), ALICE_SECRET, mock_nonce);
		CHECK(ex.first_result == KAFKA_SASL_FAILURE && ex.error != NULL &&
			  ex.user == NULL && ex.state != NULL &&
			  ex.server_result == KAFKA_SASL_FAILURE &&
			  ex.server_first.len == 0,
			  "client-first refused: \"%s\"", bad[i]);
	}

	start(&ex, "y,,n=alice,r=x", 14, ALICE_SECRET, mock_nonce);
	CHECK(error_is(ex.error, "SCRAM channel binding is not supported"),
		  "y: channel binding message");
	start(&ex, "n,a=alice,n=alice,r=x", 21, ALICE_SECRET, mock_nonce);
	CHECK(error_is(ex.error,
				 "SCRAM authorization identity is not supported"),
		  "a=: authorization identity message");
	start(&ex, "n,,n=alice,r=x,tokenauth=true", 29, ALICE_SECRET, mock_nonce);
	CHECK(error_is(ex.error, "SCRAM extensions are not supported"),
		  "Kafka's tokenauth extension refused");
	start(&ex, "n,,n=a=2c,r=x", 13, ALICE_SECRET, mock_nonce);
	CHECK(error_is(ex.error, "invalid SCRAM user name"),
		  "bad escape: user name message");

	start(&ex, longname, strlen(longname), ALICE_SECRET, mock_nonce);
	CHECK(ex.first_result == KAFKA_SASL_FAILURE, "user name too long");
	start(&ex, name63, strlen(name63), ALICE_SECRET, mock_nonce);
	CHECK(ex.first_result == KAFKA_SASL_CONTINUE, "longest user name");

	start(&ex, "n,,n=al\0ce,r=x", 14, ALICE_SECRET, mock_nonce);
	CHECK(ex.first_result == KAFKA_SASL_FAILURE, "NUL in client-first");
	start(&ex, "n,,n=alice,r=xy", 14, ALICE_SECRET, mock_nonce);
	CHECK(ex.first_result == KAFKA_SASL_CONTINUE &&
		  strncmp(ex.server_first.data, "r=x", 3) == 0 &&
		  strlen(attr_of(ex.server_first.data, 'r')) == 1 + 24,
		  "the message is inlen bytes, not up to a NUL");
	start(&ex, "n,,n=alice,r=x", 12, ALICE_SECRET, mock_nonce);
	CHECK(ex.first_result == KAFKA_SASL_FAILURE, "truncated before the nonce");
	start(&ex, NULL, 0, ALICE_SECRET, mock_nonce);
	CHECK(ex.first_result == KAFKA_SASL_FAILURE, "no message");
	start(&ex, "n,,n=alice,r=x", -1, ALICE_SECRET, mock_nonce);
	CHECK(ex.first_result == KAFKA_SASL_FAILURE, "negative length");

	memcpy(huge, "n,,n=alice,r=", 13);
	memset(huge + 13, 'x', KAFKA_SASL_MAX_MESSAGE + 1 - 13);
	start(&ex, huge, KAFKA_SASL_MAX_MESSAGE + 1, ALICE_SECRET, mock_nonce);
	CHECK(ex.first_result == KAFKA_SASL_FAILURE, "overlong client-first");
	start(&ex, huge, KAFKA_SASL_MAX_MESSAGE, ALICE_SECRET, mock_nonce);
	CHECK(ex.first_result == KAFKA_SASL_CONTINUE, "longest client-first");
}

/*
 * A client-final made from a template: {N} is the exchange's nonce, {n} it
 * without its last character, {C} the client's nonce alone, {P} the right
 * proof, {p} it without its last character, {Q} it with its first character
 * changed, {S} its first 40 characters, {Z} 42 'A's (31 zero bytes).
 */
static char *
from_template(const char *tmpl, const char *nonce, const char *proof)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (const char *t = tmpl; *t; t++)
	{
		if (t[0] != '{' || t[1] == '\0' || t[2] != '}')
		{
			appendStringInfoChar(&buf, *t);
			continue;
		}
		switch (t[1])
		{
			case 'N':
				appendStringInfoString(&buf, nonce);
				break;
			case 'n':
				appendBinaryStringInfo(&buf, nonce, strlen(nonce) - 1);
				break;
			case 'C':
				appendStringInfoString(&buf, CNONCE);
				break;
			case 'P':
				appendStringInfoString(&buf, proof);
				break;
			case 'p':
				appendBinaryStringInfo(&buf, proof, strlen(proof) - 1);
				break;
			case 'Q':
				appendStringInfoChar(&buf, proof[0] == 'A' ? 'B' : 'A');
				appendStringInfoString(&buf, proof + 1);
				break;
			case 'S':
				appendBinaryStringInfo(&buf, proof, 40);
				break;
			case 'Z':
				for (int i = 0; i < 42; i++)
					appendStringInfoChar(&buf, 'A');
				break;
		}
		t += 2;
	}
	return buf.data;
}

/* Client-final-messages to refuse, each after a good start */
static void
test_bad_client_final(void)
{
	Exchange	ex;
	const char *first = "n,,n=alice,r=" CNONCE;
	char	   *good;
	char	   *nonce;
	char	   *proof;
	char	   *msg;
	uint8		sig[SCRAM_SHA256_KEY_LEN];
	char	   *huge = palloc(KAFKA_SASL_MAX_MESSAGE + 1);
	const char *malformed = "malformed SCRAM message";
	const char *bad_cbind = "SCRAM channel binding data does not match";
	const char *bad_nonce = "SCRAM nonce does not match";
	const char *bad_ext = "SCRAM extensions are not supported";
	const char *bad_proof = "malformed SCRAM proof";
	struct
	{
		const char *tmpl;
		const char *error;
	}			bad[] = {
		{"c=biws,r={N},p={Q}", AUTH_FAILED},
		{"c=biws,r={N},p={Z}A=", AUTH_FAILED},
		{"c=eSws,r={N},p={P}", bad_cbind},
		{"c=biwsx,r={N},p={P}", bad_cbind},
		{"c=,r={N},p={P}", bad_cbind},
		{"c=biws,r={C},p={P}", bad_nonce},
		{"c=biws,r={n},p={P}", bad_nonce},
		{"c=biws,r={N}x,p={P}", bad_nonce},
		{"c=biws,r=x{N},p={P}", bad_nonce},
		{"c=biws,r=,p={P}", bad_nonce},
		{"c=biws,r={N},e=x,p={P}", bad_ext},
		{"c=biws,r={N},P={P}", bad_ext},
		{"c=biws,r={N},p=", bad_proof},
		{"c=biws,r={N},p={P},e=x", bad_proof},
		{"c=biws,r={N},p={P},", bad_proof},
		{"c=biws,r={N},p={p}", bad_proof},
		{"c=biws,r={N},p={P}AAAA", bad_proof},
		{"c=biws,r={N},p={S}    ", bad_proof},
		{"c=biws,r={N},p={S}!!!=", bad_proof},
		{"c=biws,r={N},p={S}AA==AAAA", bad_proof},
		{"c=biws,r={N},p={Z}==", bad_proof},
		{"r={N},p={P}", malformed},
		{"C=biws,r={N},p={P}", malformed},
		{"c=biws,p={P},r={N}", malformed},
		{"c=biws,p={P}", malformed},
		{"n,,c=biws,r={N},p={P}", malformed},
		{"c=biws,r={N}", malformed},
		{"c=biws,r={N},", malformed},
		{"c=biws,r={N},,p={P}", malformed},
		{"", malformed},
		{"c", malformed},
		{"c=", malformed},
		{"c=biws", malformed},
		{"c=biws,", malformed},
		{"c=biws,r", malformed},
	};

	for (int i = 0; i < lengthof(bad); i++)
	{
		start(&ex, first, strlen(first), ALICE_SECRET, mock_nonce);
		good = client_final("n=alice,r=" CNONCE, ALICE_PASSWORD,
							ex.server_first.data, sig);
		if (good == NULL)
		{
			CHECK(false, "server-first for a client-final");
			continue;
		}
		nonce = attr_of(ex.server_first.data, 'r');
		proof = strstr(good, ",p=") + 3;
		msg = from_template(bad[i].tmpl, nonce, proof);
		CHECK(finish(&ex, msg, strlen(msg)) == KAFKA_SASL_FAILURE &&
			  error_is(ex.error, bad[i].error) &&
			  ex.server_final.len == 0,
			  "client-final \"%s\" fails with \"%s\" (got \"%s\")",
			  bad[i].tmpl, bad[i].error, ex.error ? ex.error : "(none)");
		/* failure is sticky: the right final does not authenticate now */
		CHECK(finish(&ex, good, strlen(good)) == KAFKA_SASL_FAILURE &&
			  error_is(ex.error, bad[i].error),
			  "sticky after \"%s\"", bad[i].tmpl);
	}

	/* the good final with a NUL, truncated, or overlong */
	start(&ex, first, strlen(first), ALICE_SECRET, mock_nonce);
	good = client_final("n=alice,r=" CNONCE, ALICE_PASSWORD,
						ex.server_first.data, sig);
	msg = pstrdup(good);
	msg[10] = '\0';
	CHECK(finish(&ex, msg, strlen(good)) == KAFKA_SASL_FAILURE &&
		  error_is(ex.error, malformed), "NUL in client-final");

	start(&ex, first, strlen(first), ALICE_SECRET, mock_nonce);
	good = client_final("n=alice,r=" CNONCE, ALICE_PASSWORD,
						ex.server_first.data, sig);
	CHECK(finish(&ex, good, strlen(good) - 1) == KAFKA_SASL_FAILURE &&
		  error_is(ex.error, bad_proof), "truncated client-final");

	start(&ex, first, strlen(first), ALICE_SECRET, mock_nonce);
	good = client_final("n=alice,r=" CNONCE, ALICE_PASSWORD,
						ex.server_first.data, sig);
	memset(huge, 'x', KAFKA_SASL_MAX_MESSAGE + 1);
	memcpy(huge, good, strlen(good));
	CHECK(finish(&ex, huge, KAFKA_SASL_MAX_MESSAGE + 1) == KAFKA_SASL_FAILURE,
		  "overlong client-final");

	/* a proof made for another exchange (another server nonce) */
	proof = strstr(good, ",p=") + 3;
	start(&ex, first, strlen(first), ALICE_SECRET, mock_nonce);
	msg = psprintf("c=biws,r=%s,p=%s", attr_of(ex.server_first.data, 'r'),
				   proof);
	CHECK(finish(&ex, msg, strlen(msg)) == KAFKA_SASL_FAILURE &&
		  error_is(ex.error, AUTH_FAILED), "replayed proof fails");
}

/* Calls out of order, and a failure staying a failure */
static void
test_order(void)
{
	Exchange	ex;
	KafkaScram *st = NULL;
	char	   *user;
	const char *err;
	StringInfoData out;
	char	   *final;
	uint8		sig[SCRAM_SHA256_KEY_LEN];

	initStringInfo(&out);
	CHECK(kafka_scram_client_final(NULL, "c=biws", 6, &out, &err)
		  == KAFKA_SASL_FAILURE, "client-final without an exchange");
	CHECK(kafka_scram_server_first(NULL, ALICE_SECRET, &out, &err)
		  == KAFKA_SASL_FAILURE, "server-first without an exchange");

	/* client-final before server-first: fails, and so does all after it */
	CHECK(kafka_scram_client_first(&st, "n,,n=alice,r=x", 14, mock_nonce, 8,
								   &user, &err) == KAFKA_SASL_CONTINUE,
		  "client-first");
	CHECK(kafka_scram_client_final(st, "c=biws,r=x,p=x", 14, &out, &err)
		  == KAFKA_SASL_FAILURE, "client-final before server-first");
	CHECK(kafka_scram_server_first(st, ALICE_SECRET, &out, &err)
		  == KAFKA_SASL_FAILURE && out.len == 0,
		  "server-first after a failure");
	CHECK(error_is(err, "unexpected SCRAM message"),
		  "the first error is repeated");

	/* a second client-first on the same exchange */
	CHECK(kafka_scram_client_first(&st, "n,,n=alice,r=x", 14, mock_nonce, 8,
								   &user, &err) == KAFKA_SASL_FAILURE,
		  "client-first on a started exchange");

	/* server-first twice */
	start(&ex, "n,,n=alice,r=" CNONCE, strlen("n,,n=alice,r=" CNONCE),
		  ALICE_SECRET, mock_nonce);
	final = client_final("n=alice,r=" CNONCE, ALICE_PASSWORD,
						 ex.server_first.data, sig);
	CHECK(kafka_scram_server_first(ex.state, ALICE_SECRET, &out, &err)
		  == KAFKA_SASL_FAILURE, "server-first twice");
	CHECK(finish(&ex, final, strlen(final)) == KAFKA_SASL_FAILURE,
		  "the right final after server-first twice");

	/* a second client-first in the middle */
	start(&ex, "n,,n=alice,r=" CNONCE, strlen("n,,n=alice,r=" CNONCE),
		  ALICE_SECRET, mock_nonce);
	final = client_final("n=alice,r=" CNONCE, ALICE_PASSWORD,
						 ex.server_first.data, sig);
	CHECK(kafka_scram_client_first(&ex.state, "n,,n=alice,r=x", 14,
								   mock_nonce, 8, &user, &err)
		  == KAFKA_SASL_FAILURE, "client-first again");
	CHECK(finish(&ex, final, strlen(final)) == KAFKA_SASL_FAILURE,
		  "the right final after a second client-first");
}

/* PLAIN messages */
static void
test_plain(void)
{
	char	   *user;
	char	   *password;
	char	   *huge = palloc0(KAFKA_SASL_MAX_MESSAGE + 1);
	char	   *name63 = psprintf("%c%0*d%cpw", '\0', NAMEDATALEN - 1, 0, '\0');
	char	   *name64 = psprintf("%c%0*d%cpw", '\0', NAMEDATALEN, 0, '\0');
	struct
	{
		const char *msg;
		int			len;
	}			bad[] = {
		{"", 0},
		{"alice", 5},
		{"\0alice", 6},
		{"\0alice\0", 7},
		{"\0\0pw", 4},
		{"bob\0alice\0pw", 12},
		{"alic\0alice\0pw", 13},
		{"alice\0alic\0pw", 13},
		{"\0alice\0p\0w", 10},
		{"\0alice\0pw\0", 10},
		{"\0\0\0", 3},
	};

	CHECK(kafka_plain_parse("\0alice\0pencil", 13, &user, &password) &&
		  strcmp(user, "alice") == 0 && strcmp(password, "pencil") == 0,
		  "PLAIN without authzid");
	CHECK(kafka_plain_parse("alice\0alice\0pen cil,=", 21, &user, &password) &&
		  strcmp(user, "alice") == 0 && strcmp(password, "pen cil,=") == 0,
		  "PLAIN with authzid = authcid");
	CHECK(kafka_plain_parse("\0a,b=c\0\xc3\xa9t\xc3\xa9", 12, &user,
							&password) &&
		  strcmp(user, "a,b=c") == 0 &&
		  strcmp(password, "\xc3\xa9t\xc3\xa9") == 0,
		  "PLAIN takes names and passwords as they are");
	CHECK(kafka_plain_parse(name63, NAMEDATALEN + 3, &user, &password),
		  "PLAIN longest user name");
	CHECK(!kafka_plain_parse(name64, NAMEDATALEN + 4, &user, &password) &&
		  user == NULL && password == NULL, "PLAIN user name too long");

	for (int i = 0; i < lengthof(bad); i++)
		CHECK(!kafka_plain_parse(bad[i].msg, bad[i].len, &user, &password) &&
			  user == NULL && password == NULL,
			  "PLAIN refused: case %d", i);
	CHECK(!kafka_plain_parse(NULL, 0, &user, &password), "PLAIN no message");

	huge[1] = 'a';
	memset(huge + 3, 'p', KAFKA_SASL_MAX_MESSAGE - 3);
	CHECK(kafka_plain_parse(huge, KAFKA_SASL_MAX_MESSAGE, &user, &password),
		  "PLAIN longest message");
	huge[KAFKA_SASL_MAX_MESSAGE] = 'p';
	CHECK(!kafka_plain_parse(huge, KAFKA_SASL_MAX_MESSAGE + 1, &user,
							 &password),
		  "PLAIN overlong message");
}

/* Read a line from a child's pipe, without its newline; NULL at EOF */
static char *
read_line(FILE *f)
{
	char		buf[1024];

	if (fgets(buf, sizeof(buf), f) == NULL)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return pstrdup(buf);
}

/*
 * One exchange with kafka-python's ScramClient in a child process, which
 * prints its messages and reads ours, one a line.  Skipped if kafka-python
 * is not installed.
 */
static void
test_kafka_python(const char *password, bool expect_success)
{
	static const char *script =
		"import sys\n"
		"try:\n"
		"    from kafka.scram import ScramClient\n"
		"except ImportError:\n"
		"    sys.exit(77)\n"
		"c = ScramClient(sys.argv[1], sys.argv[2], 'SCRAM-SHA-256')\n"
		"print(c.first_message(), flush=True)\n"
		"c.process_server_first_message(sys.stdin.readline().rstrip('\\n'))\n"
		"print(c.final_message(), flush=True)\n"
		"line = sys.stdin.readline().rstrip('\\n')\n"
		"if not line:\n"
		"    sys.exit(3)\n"
		"c.process_server_final_message(line)\n"
		"print('verified', flush=True)\n";
	int			to_child[2];
	int			from_child[2];
	pid_t		pid;
	FILE	   *in;
	FILE	   *out;
	char	   *line;
	int			status;
	Exchange	ex;

	signal(SIGPIPE, SIG_IGN);
	if (access("/usr/bin/python3", X_OK) != 0)
	{
		printf("sasl_test: kafka-python cross-check skipped (no python3)\n");
		return;
	}
	if (pipe(to_child) != 0 || pipe(from_child) != 0 || (pid = fork()) < 0)
	{
		CHECK(false, "pipe/fork for kafka-python");
		return;
	}
	if (pid == 0)
	{
		dup2(to_child[0], 0);
		dup2(from_child[1], 1);
		close(to_child[1]);
		close(from_child[0]);
		execl("/usr/bin/python3", "python3", "-c", script, "alice", password,
			  (char *) NULL);
		_exit(127);
	}
	close(to_child[0]);
	close(from_child[1]);
	out = fdopen(to_child[1], "w");
	in = fdopen(from_child[0], "r");

	if ((line = read_line(in)) != NULL)
	{
		start(&ex, line, strlen(line), ALICE_SECRET, mock_nonce);
		CHECK(ex.server_result == KAFKA_SASL_CONTINUE,
			  "kafka-python client-first accepted");
		fprintf(out, "%s\n", ex.server_first.data);
		fflush(out);
		if ((line = read_line(in)) != NULL)
		{
			finish(&ex, line, strlen(line));
			CHECK(ex.final_result == (expect_success ? KAFKA_SASL_SUCCESS :
									  KAFKA_SASL_FAILURE),
				  "kafka-python client-final result");
			fprintf(out, "%s\n", ex.server_final.data);
			fflush(out);
			line = read_line(in);
		}
	}
	fclose(out);
	fclose(in);
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
	{
		printf("sasl_test: kafka-python cross-check skipped (not installed)\n");
		return;
	}
	if (expect_success)
		CHECK(line && strcmp(line, "verified") == 0 &&
			  WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "kafka-python verifies our server signature");
	else
		CHECK(line == NULL && WIFEXITED(status) && WEXITSTATUS(status) == 3,
			  "kafka-python gets no server-final");
}

int
main(void)
{
	test_real_secrets();
	test_mock();
	test_bad_client_first();
	test_bad_client_final();
	test_order();
	test_plain();
	test_kafka_python(ALICE_PASSWORD, true);
	test_kafka_python("wrong", false);

	return unit_check_summary("sasl_test");
}

/*-------------------------------------------------------------------------
 *
 * tls.c
 *	  TLS for Kafka clients (security.protocol SSL and SASL_SSL), with the
 *	  server's own certificate and key.
 *
 * When PostgreSQL's ssl is on, the listener takes TLS connections on its
 * port with ssl_cert_file and ssl_key_file (and ssl_ca_file, to verify
 * client certificates that clients offer), and the server's own TLS
 * settings as PostgreSQL's port applies them (be-secure-openssl.c):
 * ssl_min_protocol_version and ssl_max_protocol_version, ssl_ciphers
 * (TLS 1.2 and older), ssl_prefer_server_ciphers and ssl_ecdh_curve; no
 * compression, renegotiation, session tickets or session cache.  TLS and
 * plaintext connections share the port: a connection whose first byte is
 * a TLS handshake record (0x16) is TLS, since a Kafka frame starting with
 * that byte would announce more than pg_topics.kafka_max_request_bytes can
 * allow.  Everything is read when a listener process starts and again at
 * each reload, as the postmaster does: settings that cannot be used keep
 * the listener at the ones it had (none at its start), and a log line
 * says why.
 *
 * Everything is non-blocking: the handshake advances as the socket allows,
 * and reads and writes report "would block" like the socket's own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "utils/guc.h"
#include "utils/memutils.h"

#include "pg_topics/kafka/tls.h"

/* the first byte of a TLS handshake record */
#define TLS_HANDSHAKE_RECORD	0x16

static SSL_CTX *context = NULL;

/* Is PostgreSQL's ssl on? */
static bool
server_ssl_on(void)
{
	const char *ssl = GetConfigOption("ssl", true, false);

	return ssl != NULL && strcmp(ssl, "on") == 0;
}

/* The last OpenSSL error as text */
static const char *
tls_error(void)
{
	unsigned long e = ERR_get_error();

	return e ? ERR_reason_error_string(e) : "no error reported";
}

/*
 * OpenSSL's protocol version for the value of ssl_min_protocol_version or
 * ssl_max_protocol_version: 0 for none (no bound), -1 if not known here
 */
static int
protocol_version(const char *setting)
{
	if (setting == NULL || setting[0] == '\0')
		return 0;
	if (strcmp(setting, "TLSv1") == 0)
		return TLS1_VERSION;
	if (strcmp(setting, "TLSv1.1") == 0)
		return TLS1_1_VERSION;
	if (strcmp(setting, "TLSv1.2") == 0)
		return TLS1_2_VERSION;
#ifdef TLS1_3_VERSION
	if (strcmp(setting, "TLSv1.3") == 0)
		return TLS1_3_VERSION;
#endif
	return -1;
}

/* A setting's value, "" if it has none */
static const char *
setting(const char *name)
{
	const char *value = GetConfigOption(name, true, false);

	return value ? value : "";
}

/*
 * A TLS context with the server's certificate, key and TLS settings, or
 * NULL and *problem (a sentence for the log)
 */
static SSL_CTX *
make_context(char **problem)
{
	SSL_CTX    *ctx;
	const char *cert = setting("ssl_cert_file");
	const char *key = setting("ssl_key_file");
	const char *ca = setting("ssl_ca_file");
	const char *ciphers = setting("ssl_ciphers");
	const char *curve = setting("ssl_ecdh_curve");
	const char *prefer = setting("ssl_prefer_server_ciphers");
	int			min_version = protocol_version(setting("ssl_min_protocol_version"));
	int			max_version = protocol_version(setting("ssl_max_protocol_version"));

	*problem = NULL;
	ctx = SSL_CTX_new(TLS_server_method());
	if (ctx == NULL)
	{
		*problem = psprintf("could not create a TLS context: %s", tls_error());
		return NULL;
	}
	if (min_version < 0 || max_version < 0)
		*problem = psprintf("\"%s\" setting \"%s\" is not supported by this build",
							min_version < 0 ? "ssl_min_protocol_version" :
							"ssl_max_protocol_version",
							setting(min_version < 0 ? "ssl_min_protocol_version" :
									"ssl_max_protocol_version"));
	else if (min_version > 0 && max_version > 0 && min_version > max_version)
		*problem = pstrdup("\"ssl_min_protocol_version\" is higher than \"ssl_max_protocol_version\"");
	else if ((min_version > 0 &&
			  SSL_CTX_set_min_proto_version(ctx, min_version) != 1) ||
			 (max_version > 0 &&
			  SSL_CTX_set_max_proto_version(ctx, max_version) != 1))
		*problem = psprintf("could not set the TLS protocol versions: %s",
							tls_error());
	else if (SSL_CTX_set_cipher_list(ctx, ciphers) != 1)
		*problem = psprintf("ssl_ciphers \"%s\" names no cipher available",
							ciphers);
	else if (curve[0] != '\0' && SSL_CTX_set1_groups_list(ctx, curve) != 1)
		*problem = psprintf("ssl_ecdh_curve \"%s\" is not a curve known here",
							curve);
	else if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
			 SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1 ||
			 SSL_CTX_check_private_key(ctx) != 1)
		*problem = psprintf("could not load ssl_cert_file \"%s\" or ssl_key_file \"%s\": %s",
							cert, key, tls_error());
	if (*problem != NULL)
	{
		SSL_CTX_free(ctx);
		return NULL;
	}

	SSL_CTX_set_mode(ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
					 SSL_MODE_ENABLE_PARTIAL_WRITE);
	/* as PostgreSQL's port: no tickets, cache, compression, renegotiation */
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET | SSL_OP_NO_COMPRESSION);
#ifdef SSL_OP_NO_RENEGOTIATION
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
#endif
#ifdef SSL_OP_NO_CLIENT_RENEGOTIATION
	SSL_CTX_set_options(ctx, SSL_OP_NO_CLIENT_RENEGOTIATION);
#endif
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	if (strcmp(prefer, "on") == 0)
		SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
	if (ca[0] != '\0' && SSL_CTX_load_verify_locations(ctx, ca, NULL) == 1)
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	return ctx;
}

/*
 * Set up TLS for this listener process as the server's settings say, when
 * it starts and at each reload: with ssl off, new connections get no TLS;
 * settings that cannot be used leave TLS as it was (a log line says why).
 * Connections keep the settings they started with.  Whether TLS is on.
 */
bool
kafka_tls_init(void)
{
	SSL_CTX    *ctx;
	char	   *problem;

	if (!server_ssl_on())
	{
		if (context != NULL)
			SSL_CTX_free(context);	/* connections hold their own reference */
		context = NULL;
		return false;
	}
	ctx = make_context(&problem);
	if (ctx == NULL)
	{
		ereport(LOG,
				(errmsg("Kafka listener cannot use these TLS settings: %s", problem),
				 context != NULL ?
				 errdetail("It keeps the TLS settings it had.") :
				 errdetail("It takes no TLS connections.")));
		return context != NULL;
	}
	if (context != NULL)
		SSL_CTX_free(context);
	context = ctx;
	return true;
}

/* Does a connection that sent first_byte first speak TLS? */
bool
kafka_tls_hello(char first_byte)
{
	return context != NULL && (uint8) first_byte == TLS_HANDSHAKE_RECORD;
}

/* Start TLS on socket fd; NULL if it cannot */
KafkaTls *
kafka_tls_start(int fd)
{
	SSL		   *ssl = SSL_new(context);

	if (ssl == NULL)
		return NULL;
	if (SSL_set_fd(ssl, fd) != 1)
	{
		SSL_free(ssl);
		return NULL;
	}
	SSL_set_accept_state(ssl);
	return (KafkaTls *) ssl;
}

/*
 * Turn an SSL call's result into a socket-like one: n >= 0, or -1 with
 * errno EAGAIN (*want_write if it waits for the socket to take output), or
 * -1 with another errno for a failed connection; 0 is the end
 */
static ssize_t
result(SSL *ssl, int n, bool *want_write)
{
	switch (SSL_get_error(ssl, n))
	{
		case SSL_ERROR_NONE:
			return n;
		case SSL_ERROR_WANT_READ:
			errno = EAGAIN;
			return -1;
		case SSL_ERROR_WANT_WRITE:
			*want_write = true;
			errno = EAGAIN;
			return -1;
		case SSL_ERROR_ZERO_RETURN:
			return 0;
		default:
			ERR_clear_error();
			errno = ECONNRESET;
			return -1;
	}
}

/* Read up to len bytes (see result()) */
ssize_t
kafka_tls_read(KafkaTls *tls, char *buf, size_t len, bool *want_write)
{
	SSL		   *ssl = (SSL *) tls;

	*want_write = false;
	ERR_clear_error();
	return result(ssl, SSL_read(ssl, buf, (int) Min(len, (size_t) PG_INT32_MAX)),
				  want_write);
}

/* Write up to len bytes (see result()) */
ssize_t
kafka_tls_write(KafkaTls *tls, const char *buf, size_t len, bool *want_write)
{
	SSL		   *ssl = (SSL *) tls;

	*want_write = false;
	ERR_clear_error();
	return result(ssl, SSL_write(ssl, buf, (int) Min(len, (size_t) PG_INT32_MAX)),
				  want_write);
}

/* Bytes TLS holds decrypted that the socket will not signal again */
bool
kafka_tls_pending(KafkaTls *tls)
{
	return SSL_pending((SSL *) tls) > 0;
}

/* End TLS on a connection (its socket is closed by the caller) */
void
kafka_tls_end(KafkaTls *tls)
{
	SSL_free((SSL *) tls);
}

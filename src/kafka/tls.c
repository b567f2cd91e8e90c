/*-------------------------------------------------------------------------
 *
 * tls.c
 *	  TLS for Kafka clients (security.protocol SSL and SASL_SSL), with the
 *	  server's own certificate and key.
 *
 * When PostgreSQL's ssl is on, the listener takes TLS connections on its
 * port with ssl_cert_file and ssl_key_file (and ssl_ca_file, to verify
 * client certificates that clients offer), TLS 1.2 or later.  TLS and
 * plaintext connections share the port: a connection whose first byte is
 * a TLS handshake record (0x16) is TLS, since a Kafka frame starting with
 * that byte would announce more than pg_topics.kafka_max_request_bytes can
 * allow.  The keys are read when a listener process starts, so a new
 * certificate takes a restart of the listener processes (or the server).
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
 * Set up TLS for this listener process if the server's ssl is on; false
 * (and a log message) if the certificate or key cannot be used
 */
bool
kafka_tls_init(void)
{
	SSL_CTX    *ctx;
	const char *cert = GetConfigOption("ssl_cert_file", true, false);
	const char *key = GetConfigOption("ssl_key_file", true, false);
	const char *ca = GetConfigOption("ssl_ca_file", true, false);

	if (!server_ssl_on() || cert == NULL || key == NULL)
		return false;
	ctx = SSL_CTX_new(TLS_server_method());
	if (ctx == NULL)
	{
		ereport(LOG,
				(errmsg("could not create TLS context for Kafka clients: %s", tls_error())));
		return false;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_mode(ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
					 SSL_MODE_ENABLE_PARTIAL_WRITE);
	if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
		SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1 ||
		SSL_CTX_check_private_key(ctx) != 1)
	{
		ereport(LOG,
				(errmsg("Kafka listener cannot use TLS: could not load ssl_cert_file \"%s\" or ssl_key_file \"%s\": %s",
						cert, key, tls_error())));
		SSL_CTX_free(ctx);
		return false;
	}
	if (ca != NULL && ca[0] != '\0' &&
		SSL_CTX_load_verify_locations(ctx, ca, NULL) == 1)
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
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

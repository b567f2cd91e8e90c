/*-------------------------------------------------------------------------
 *
 * tls.h
 *	  TLS for Kafka client connections.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_TLS_H
#define TOPIC_KAFKA_TLS_H

typedef struct KafkaTls KafkaTls;	/* OpenSSL's SSL, opaque here */

extern bool kafka_tls_init(void);
extern bool kafka_tls_hello(char first_byte);
extern KafkaTls *kafka_tls_start(int fd);
extern ssize_t kafka_tls_read(KafkaTls *tls, char *buf, size_t len,
							  bool *want_write);
extern ssize_t kafka_tls_write(KafkaTls *tls, const char *buf, size_t len,
							   bool *want_write);
extern bool kafka_tls_pending(KafkaTls *tls);
extern void kafka_tls_end(KafkaTls *tls);

#endif							/* TOPIC_KAFKA_TLS_H */

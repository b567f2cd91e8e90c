/*-------------------------------------------------------------------------
 *
 * handlers.h
 *	  The Kafka requests pg_topics serves, one handler each, and what
 *	  they share: the transaction a request runs in, as its role.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TOPIC_KAFKA_HANDLERS_H
#define TOPIC_KAFKA_HANDLERS_H

#include "utils/rel.h"

#include "pg_topics/base/compat.h"
#include "pg_topics/kafka/request.h"

/* metadata.c */
extern KafkaOutcome kafka_metadata(KafkaRequest *req, TimestampTz *deadline);
extern KafkaOutcome kafka_find_coordinator(KafkaRequest *req, TimestampTz *deadline);

/* produce.c */
extern KafkaOutcome kafka_produce(KafkaRequest *req, TimestampTz *deadline);
extern KafkaOutcome kafka_init_producer_id(KafkaRequest *req, TimestampTz *deadline);

/* txn_requests.c */
extern KafkaOutcome kafka_add_partitions_to_txn(KafkaRequest *req,
												TimestampTz *deadline);
extern KafkaOutcome kafka_add_offsets_to_txn(KafkaRequest *req,
											 TimestampTz *deadline);
extern KafkaOutcome kafka_txn_offset_commit(KafkaRequest *req,
											TimestampTz *deadline);
extern KafkaOutcome kafka_end_txn(KafkaRequest *req, TimestampTz *deadline);

/* admin.c */
extern KafkaOutcome kafka_create_topics(KafkaRequest *req, TimestampTz *deadline);
extern KafkaOutcome kafka_delete_topics(KafkaRequest *req, TimestampTz *deadline);

/* fetch.c */
extern KafkaOutcome kafka_fetch(KafkaRequest *req, TimestampTz *deadline);

/* groups.c */
extern KafkaOutcome kafka_join_group(KafkaRequest *req, TimestampTz *deadline);
extern KafkaOutcome kafka_sync_group(KafkaRequest *req, TimestampTz *deadline);
extern KafkaOutcome kafka_heartbeat(KafkaRequest *req, TimestampTz *deadline);
extern int16 kafka_group_member_rights(const char *group, const char *member_id,
										Oid role);
extern KafkaOutcome kafka_leave_group(KafkaRequest *req, TimestampTz *deadline);
extern KafkaOutcome kafka_describe_groups(KafkaRequest *req, TimestampTz *deadline);
extern KafkaOutcome kafka_list_groups(KafkaRequest *req, TimestampTz *deadline);

/* group_delete.c */
extern KafkaOutcome kafka_delete_groups(KafkaRequest *req, TimestampTz *deadline);
extern KafkaOutcome kafka_offset_delete(KafkaRequest *req, TimestampTz *deadline);

/* offsets.c */
extern KafkaOutcome kafka_offset_commit(KafkaRequest *req, TimestampTz *deadline);
extern KafkaOutcome kafka_offset_fetch(KafkaRequest *req, TimestampTz *deadline);

/* list_offsets.c */
extern KafkaOutcome kafka_list_offsets(KafkaRequest *req, TimestampTz *deadline);

/* partition_admin.c */
extern KafkaOutcome kafka_delete_records(KafkaRequest *req, TimestampTz *deadline);
extern KafkaOutcome kafka_create_partitions(KafkaRequest *req,
											TimestampTz *deadline);

/* cluster.c */
extern KafkaOutcome kafka_describe_cluster(KafkaRequest *req,
										   TimestampTz *deadline);
extern KafkaOutcome kafka_describe_log_dirs(KafkaRequest *req,
											TimestampTz *deadline);

/* acls.c */
extern KafkaOutcome kafka_describe_acls(KafkaRequest *req, TimestampTz *deadline);

/* transactions_admin.c */
extern KafkaOutcome kafka_describe_transactions(KafkaRequest *req,
												TimestampTz *deadline);
extern KafkaOutcome kafka_list_transactions(KafkaRequest *req,
											TimestampTz *deadline);

/* leader_epoch.c */
extern KafkaOutcome kafka_offset_for_leader_epoch(KafkaRequest *req,
												  TimestampTz *deadline);

/* session.c: the request's transaction, topics by Kafka name, errors */
extern void kafka_session_init(void);
extern void kafka_xact_begin(KafkaConn *conn);
extern Oid	kafka_conn_role(KafkaConn *conn);
extern bool kafka_conn_still_allowed(KafkaConn *conn);
pg_noreturn extern void kafka_conn_refuse(KafkaConn *conn) pg_attribute_noreturn();
extern bool kafka_topic_allowed(Oid relid, AclMode privilege);
extern void kafka_xact_commit(XLogRecPtr *hold_lsn, int *hold_mode);
extern void kafka_xact_abort(void);
extern void kafka_hold_for_standbys(KafkaRequest *req, int mode);
extern Relation kafka_open_topic(KafkaBytes name, LOCKMODE lockmode,
								 AclMode privilege, int16 *error);
extern Relation kafka_open_topic_nowait(KafkaBytes name, LOCKMODE lockmode,
										AclMode privilege, int16 *error);
extern int16 kafka_lock_topic(Oid relid, LOCKMODE lockmode);
extern Relation kafka_open_partition(Relation topic, int32 partition,
									 int16 *error);
extern bool kafka_topic_name_valid(KafkaBytes name);
extern int16 kafka_error_of(ErrorData *edata);

/*
 * Run fn(arg) in a subtransaction of the request's: an error rolls back
 * only what fn did and comes back as a Kafka error code (0: no error);
 * *message (if not NULL) gets the error's message.  Errors that are not a
 * client's doing are logged.
 */
typedef void (*KafkaGuardedFn) (void *arg);
extern int16 kafka_run_guarded(KafkaGuardedFn fn, void *arg, char **message);
extern int16 kafka_run_trial(KafkaGuardedFn fn, void *arg, char **message);

#endif							/* TOPIC_KAFKA_HANDLERS_H */

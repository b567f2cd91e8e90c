/*-------------------------------------------------------------------------
 *
 * messages.c
 *	  The Kafka messages described for the schema codec, by API key (see
 *	  messages.h).  An API moved onto the codec is added here.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "pg_topics/wire/messages.h"
#include "pg_topics/wire/msg_add_offsets_to_txn.h"
#include "pg_topics/wire/msg_add_partitions_to_txn.h"
#include "pg_topics/wire/msg_alter_configs.h"
#include "pg_topics/wire/msg_api_versions.h"
#include "pg_topics/wire/msg_create_partitions.h"
#include "pg_topics/wire/msg_create_topics.h"
#include "pg_topics/wire/msg_delete_groups.h"
#include "pg_topics/wire/msg_delete_records.h"
#include "pg_topics/wire/msg_delete_topics.h"
#include "pg_topics/wire/msg_describe_acls.h"
#include "pg_topics/wire/msg_describe_cluster.h"
#include "pg_topics/wire/msg_describe_configs.h"
#include "pg_topics/wire/msg_describe_groups.h"
#include "pg_topics/wire/msg_describe_log_dirs.h"
#include "pg_topics/wire/msg_describe_transactions.h"
#include "pg_topics/wire/msg_end_txn.h"
#include "pg_topics/wire/msg_fetch.h"
#include "pg_topics/wire/msg_find_coordinator.h"
#include "pg_topics/wire/msg_heartbeat.h"
#include "pg_topics/wire/msg_incremental_alter_configs.h"
#include "pg_topics/wire/msg_init_producer_id.h"
#include "pg_topics/wire/msg_join_group.h"
#include "pg_topics/wire/msg_leave_group.h"
#include "pg_topics/wire/msg_list_groups.h"
#include "pg_topics/wire/msg_list_offsets.h"
#include "pg_topics/wire/msg_list_transactions.h"
#include "pg_topics/wire/msg_metadata.h"
#include "pg_topics/wire/msg_offset_commit.h"
#include "pg_topics/wire/msg_offset_delete.h"
#include "pg_topics/wire/msg_offset_fetch.h"
#include "pg_topics/wire/msg_offset_for_leader_epoch.h"
#include "pg_topics/wire/msg_produce.h"
#include "pg_topics/wire/msg_sasl_authenticate.h"
#include "pg_topics/wire/msg_sasl_handshake.h"
#include "pg_topics/wire/msg_sync_group.h"
#include "pg_topics/wire/msg_txn_offset_commit.h"

/* each API's request and response */
static const KafkaMessage *const messages[][2] = {
	{&kafka_produce_request, &kafka_produce_response},
	{&kafka_fetch_request, &kafka_fetch_response},
	{&kafka_metadata_request, &kafka_metadata_response},
	{&kafka_find_coordinator_request, &kafka_find_coordinator_response},
	{&kafka_api_versions_request, &kafka_api_versions_response},
	{&kafka_list_offsets_request, &kafka_list_offsets_response},
	{&kafka_offset_for_leader_epoch_request, &kafka_offset_for_leader_epoch_response},
	{&kafka_delete_records_request, &kafka_delete_records_response},
	{&kafka_create_partitions_request, &kafka_create_partitions_response},
	{&kafka_describe_cluster_request, &kafka_describe_cluster_response},
	{&kafka_describe_log_dirs_request, &kafka_describe_log_dirs_response},
	{&kafka_describe_acls_request, &kafka_describe_acls_response},
	{&kafka_sasl_handshake_request, &kafka_sasl_handshake_response},
	{&kafka_sasl_authenticate_request, &kafka_sasl_authenticate_response},
	{&kafka_init_producer_id_request, &kafka_init_producer_id_response},
	{&kafka_offset_commit_request, &kafka_offset_commit_response},
	{&kafka_offset_fetch_request, &kafka_offset_fetch_response},
	{&kafka_join_group_request, &kafka_join_group_response},
	{&kafka_heartbeat_request, &kafka_heartbeat_response},
	{&kafka_leave_group_request, &kafka_leave_group_response},
	{&kafka_sync_group_request, &kafka_sync_group_response},
	{&kafka_describe_groups_request, &kafka_describe_groups_response},
	{&kafka_list_groups_request, &kafka_list_groups_response},
	{&kafka_delete_groups_request, &kafka_delete_groups_response},
	{&kafka_offset_delete_request, &kafka_offset_delete_response},
	{&kafka_create_topics_request, &kafka_create_topics_response},
	{&kafka_delete_topics_request, &kafka_delete_topics_response},
	{&kafka_describe_configs_request, &kafka_describe_configs_response},
	{&kafka_alter_configs_request, &kafka_alter_configs_response},
	{&kafka_incremental_alter_configs_request, &kafka_incremental_alter_configs_response},
	{&kafka_add_partitions_to_txn_request, &kafka_add_partitions_to_txn_response},
	{&kafka_add_offsets_to_txn_request, &kafka_add_offsets_to_txn_response},
	{&kafka_end_txn_request, &kafka_end_txn_response},
	{&kafka_txn_offset_commit_request, &kafka_txn_offset_commit_response},
	{&kafka_describe_transactions_request, &kafka_describe_transactions_response},
	{&kafka_list_transactions_request, &kafka_list_transactions_response},
};

static const KafkaMessage *
find(int16 api_key, int which)
{
	for (int i = 0; i < lengthof(messages); i++)
		if (messages[i][0]->api_key == api_key)
			return messages[i][which];
	return NULL;
}

const KafkaMessage *
kafka_request_message(int16 api_key)
{
	return find(api_key, 0);
}

const KafkaMessage *
kafka_response_message(int16 api_key)
{
	return find(api_key, 1);
}

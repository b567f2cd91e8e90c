// kafkajs (test/kafka/kafkajs/package-lock.json's version) against the
// Kafka listener, for test/t/058_kafka_kafkajs.pl:
//
//   node kafkajs.js BOOTSTRAP COMMAND [ARGS...]
//
// Each command asserts what kafkajs answers and exits non-zero, with the
// reason on stderr, when an answer is not what Kafka would give; otherwise
// it prints one JSON document for the TAP test, which checks in SQL that
// what kafkajs did is there.  The commands run in the TAP test's order:
// each assumes what the ones before it left.
'use strict'

const assert = require('node:assert/strict')
const { Kafka, CompressionTypes, ConfigResourceTypes, Partitioners, logLevel } = require('kafkajs')
// kafkajs's own request encoders and response decoders: its createTopics
// drops the error message of a refused topic, which the test wants to see
const Connection = require('kafkajs/src/network/connection')
const socketFactory = require('kafkajs/src/network/socketFactory')
const { createLogger, LEVELS } = require('kafkajs/src/loggers')
const { requests, lookup } = require('kafkajs/src/protocol/requests')
const apiKeys = require('kafkajs/src/protocol/requests/apiKeys')

const [bootstrap, command, ...args] = process.argv.slice(2)
const [host, port] = bootstrap.split(':')

// kafkajs's warnings and errors go to stderr, for the TAP test's log
const kafka = new Kafka({
  clientId: 'pg_topics-kafkajs-test',
  brokers: [bootstrap],
  logLevel: logLevel.WARN,
  retry: { retries: 3 },
})

// The values of n records, prefixed: they tell each send's records apart
const values = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`)

// Send each value as a record with key k<i mod 7> and a header, spread over
// the topic's partitions by kafkajs's default partitioner; the offsets
// each partition got, as kafkajs reports them
async function send(producer, topic, vals, compression) {
  const result = await producer.send({
    topic,
    compression,
    acks: -1,
    messages: vals.map((value, i) => ({
      key: `k${i % 7}`,
      value,
      headers: { sent_by: 'kafkajs' },
    })),
  })
  for (const r of result) {
    assert.equal(r.topicName, topic)
    assert.equal(r.errorCode, 0, `produce to ${topic}/${r.partition}: error ${r.errorCode}`)
  }
  return result.map(r => ({ partition: r.partition, base_offset: Number(r.baseOffset) }))
}

const commands = {
  // createTopics: name partitions [config=value...]; listTopics and
  // fetchTopicMetadata show it
  async create_topic(topic, partitions, ...configs) {
    const admin = kafka.admin()
    await admin.connect()
    try {
      const configEntries = configs.map(c => {
        const [name, value] = c.split('=')
        return { name, value }
      })
      const created = await admin.createTopics({
        topics: [{ topic, numPartitions: Number(partitions), configEntries }],
      })
      assert.equal(created, true, 'createTopics creates the topic')
      // again: TOPIC_ALREADY_EXISTS, which kafkajs answers false
      assert.equal(
        await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] }),
        false,
        'createTopics of a topic that exists'
      )
      assert.ok((await admin.listTopics()).includes(topic), 'listTopics lists the new topic')
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] })
      assert.equal(topics.length, 1)
      assert.equal(topics[0].name, topic)
      assert.equal(topics[0].partitions.length, Number(partitions))
      for (const p of topics[0].partitions) {
        assert.equal(p.partitionErrorCode, 0)
        assert.deepEqual(p.replicas, [p.leader], 'one broker: the leader is the one replica')
      }
      return { partitions: topics[0].partitions.length }
    } finally {
      await admin.disconnect()
    }
  },

  // createTopics of a topic with a config pg_topics refuses: kafkajs
  // fails with INVALID_CONFIG; the error message, which kafkajs drops,
  // read with kafkajs's own request and decoder
  async create_topic_refused(topic, config) {
    const [name, value] = config.split('=')
    const topics = [{ topic, numPartitions: 1, configEntries: [{ name, value }] }]
    const admin = kafka.admin()
    await admin.connect()
    try {
      await assert.rejects(admin.createTopics({ topics }), e => {
        assert.equal(e.name, 'KafkaJSAggregateError', e.stack)
        assert.equal(e.errors.length, 1)
        assert.equal(e.errors[0].topic, topic)
        assert.equal(e.errors[0].type, 'INVALID_CONFIG', e.errors[0].message)
        return true
      })
      assert.ok(!(await admin.listTopics()).includes(topic), 'the refused topic is not there')
    } finally {
      await admin.disconnect()
    }

    const logger = createLogger({ level: LEVELS.NOTHING, logCreator: () => () => {} })
    const connection = new Connection({
      host,
      port: Number(port),
      logger,
      socketFactory: socketFactory(),
      requestTimeout: 30000,
      connectionTimeout: 10000,
    })
    await connection.connect()
    try {
      const versions = await connection.send(requests.ApiVersions.protocol({ version: 0 })())
      const byKey = Object.fromEntries(versions.apiVersions.map(v => [v.apiKey, v]))
      const createTopics = lookup(byKey)(apiKeys.CreateTopics, requests.CreateTopics)
      const { request, response } = createTopics({ topics, timeout: 5000 })
      assert.ok(request.apiVersion >= 1, 'CreateTopics v1 or later, which has error messages')
      const answer = await connection.send({
        request,
        response: { decode: response.decode, parse: async data => data },
      })
      assert.equal(answer.topicErrors.length, 1)
      assert.equal(answer.topicErrors[0].errorCode, 40, 'INVALID_CONFIG')
      assert.ok(answer.topicErrors[0].errorMessage, 'a message says why')
      return {
        version: request.apiVersion,
        error: answer.topicErrors[0].errorCode,
        message: answer.topicErrors[0].errorMessage,
      }
    } finally {
      await connection.disconnect()
    }
  },

  // n records without compression, then n in gzip: the offsets kafkajs
  // was given
  async produce(topic, prefix, n) {
    const producer = kafka.producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    })
    await producer.connect()
    try {
      return {
        none: await send(producer, topic, values(`${prefix}-none`, Number(n)), CompressionTypes.None),
        gzip: await send(producer, topic, values(`${prefix}-gzip`, Number(n)), CompressionTypes.GZIP),
      }
    } finally {
      await producer.disconnect()
    }
  },

  // A consumer of group runs (eachMessage, committing after every message)
  // until it has the values of the sends of prefix (n none and n gzip),
  // then a while longer, to see that nothing else comes: neither records a
  // former member committed (redelivery) nor any twice.  Then it leaves the
  // group, and the commits are what fetchOffsets answers.
  async consume(topic, group, prefix, n) {
    const want = [...values(`${prefix}-none`, Number(n)), ...values(`${prefix}-gzip`, Number(n))]
    const got = []
    const consumer = kafka.consumer({
      groupId: group,
      allowAutoTopicCreation: false,
      sessionTimeout: 10000,
      heartbeatInterval: 1000,
      maxWaitTimeInMs: 200,
    })
    await consumer.connect()
    let done
    const all = new Promise(resolve => (done = resolve))
    await consumer.subscribe({ topic, fromBeginning: true })
    await consumer.run({
      autoCommitThreshold: 1,
      eachMessage: async ({ topic: t, partition, message }) => {
        assert.equal(t, topic)
        got.push({
          partition,
          offset: Number(message.offset),
          key: message.key.toString(),
          value: message.value.toString(),
          header: message.headers.sent_by.toString(),
        })
        if (got.length >= want.length) done()
      },
    })
    const timer = setTimeout(done, 60000)
    await all
    clearTimeout(timer)
    // what would come after them: redelivered or duplicated records
    await new Promise(resolve => setTimeout(resolve, 2000))
    await consumer.disconnect()

    const seen = got.map(m => m.value)
    assert.deepEqual([...seen].sort(), [...want].sort(), 'every record sent, each once, no other')
    for (const m of got) assert.equal(m.header, 'kafkajs')

    // the group's commits: each partition's next offset after what it read
    const admin = kafka.admin()
    await admin.connect()
    try {
      const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] })
      const high = await admin.fetchTopicOffsets(topic)
      for (const { partition, offset } of offsets.partitions) {
        const end = high.find(h => h.partition === partition).high
        // -1: nothing committed, for a partition that has no record
        assert.equal(offset, end === '0' ? '-1' : end, `the group's commit in partition ${partition}`)
      }
      return { received: got.length, per_partition: count(got) }
    } finally {
      await admin.disconnect()
    }
  },

  // fetchTopicOffsets and fetchOffsets; resetOffsets to the earliest
  // (kafkajs commits -2), fetchOffsets with resolveOffsets (kafkajs turns
  // the -2 answered back into the log start, and commits that), then
  // setOffsets of partition 0 to to0: what fetchOffsets answers at each
  // step (the group has no member: kafkajs refuses otherwise)
  async offsets(topic, group, to0) {
    const admin = kafka.admin()
    await admin.connect()
    try {
      const watermarks = await admin.fetchTopicOffsets(topic)
      const committed = async resolveOffsets => {
        const [offsets] = await admin.fetchOffsets({
          groupId: group,
          topics: [topic],
          resolveOffsets,
        })
        assert.equal(offsets.topic, topic)
        return Object.fromEntries(offsets.partitions.map(p => [p.partition, Number(p.offset)]))
      }
      const before = await committed(false)
      await admin.resetOffsets({ groupId: group, topic, earliest: true })
      const reset = await committed(false)
      const resolved = await committed(true)
      const after_resolve = await committed(false)
      await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: to0 }] })
      const set = await committed(false)
      return {
        watermarks: Object.fromEntries(
          watermarks.map(w => [w.partition, { low: Number(w.low), high: Number(w.high) }])
        ),
        before,
        reset,
        resolved,
        after_resolve,
        set,
      }
    } finally {
      await admin.disconnect()
    }
  },

  // listGroups, describeGroups of the group (no member: Empty), then
  // deleteGroups: it is gone from listGroups
  async groups(group) {
    const admin = kafka.admin()
    await admin.connect()
    try {
      const listed = (await admin.listGroups()).groups.find(g => g.groupId === group)
      assert.deepEqual(listed, { groupId: group, protocolType: 'consumer' }, 'listGroups')
      const { groups } = await admin.describeGroups([group])
      assert.equal(groups.length, 1)
      assert.equal(groups[0].groupId, group)
      assert.equal(groups[0].errorCode, 0)
      assert.equal(groups[0].state, 'Empty', 'no member left')
      assert.deepEqual(groups[0].members, [])
      const deleted = await admin.deleteGroups([group])
      assert.deepEqual(deleted, [{ groupId: group, errorCode: 0 }], 'deleteGroups')
      assert.ok(
        !(await admin.listGroups()).groups.some(g => g.groupId === group),
        'the deleted group is not listed'
      )
      // again: it is not there (GROUP_ID_NOT_FOUND)
      await assert.rejects(admin.deleteGroups([group]), e => {
        assert.equal(e.name, 'KafkaJSDeleteGroupsError', e.stack)
        assert.equal(e.groups[0].error.type, 'GROUP_ID_NOT_FOUND')
        return true
      })
      return { state: groups[0].state, protocol_type: groups[0].protocolType }
    } finally {
      await admin.disconnect()
    }
  },

  // createPartitions to count; fetchTopicMetadata shows them
  async create_partitions(topic, count) {
    const admin = kafka.admin()
    await admin.connect()
    try {
      await admin.createPartitions({ topicPartitions: [{ topic, count: Number(count) }] })
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] })
      assert.equal(topics[0].partitions.length, Number(count), 'fetchTopicMetadata')
      // fewer than there are: INVALID_PARTITIONS
      await assert.rejects(
        admin.createPartitions({ topicPartitions: [{ topic, count: 1 }] }),
        e => {
          assert.equal(e.type, 'INVALID_PARTITIONS', e.stack)
          return true
        }
      )
      return { partitions: topics[0].partitions.length }
    } finally {
      await admin.disconnect()
    }
  },

  // deleteTopicRecords below offset in partition; fetchTopicOffsets shows
  // the new low watermark
  async delete_records(topic, partition, offset) {
    const admin = kafka.admin()
    await admin.connect()
    try {
      // kafkajs's deleteTopicRecords finds the partitions' leaders in the
      // metadata it holds, without asking for it (KafkaJSTopicMetadataNotLoaded)
      await admin.fetchTopicMetadata({ topics: [topic] })
      await admin.deleteTopicRecords({
        topic,
        partitions: [{ partition: Number(partition), offset }],
      })
      const w = (await admin.fetchTopicOffsets(topic)).find(o => o.partition === Number(partition))
      assert.equal(w.low, offset, 'the low watermark is where records were deleted up to')
      return { low: Number(w.low), high: Number(w.high) }
    } finally {
      await admin.disconnect()
    }
  },

  // describeCluster: one broker, the listener, which is the controller
  async cluster() {
    const admin = kafka.admin()
    await admin.connect()
    try {
      const c = await admin.describeCluster()
      assert.equal(c.brokers.length, 1, 'one broker')
      assert.equal(c.brokers[0].host, host)
      assert.equal(c.brokers[0].port, Number(port))
      assert.equal(c.controller, c.brokers[0].nodeId, 'the broker is the controller')
      assert.ok(c.clusterId, 'a cluster id')
      return c
    } finally {
      await admin.disconnect()
    }
  },

  // SASL as user with password, by SCRAM-SHA-256 and by PLAIN: the topics
  // the role may read; another password is refused
  async sasl(user, password) {
    const answer = {}
    for (const mechanism of ['scram-sha-256', 'plain']) {
      const client = (pw) =>
        new Kafka({
          clientId: 'pg_topics-kafkajs-test',
          brokers: [bootstrap],
          logLevel: logLevel.NOTHING,
          retry: { retries: 0 },
          sasl: { mechanism, username: user, password: pw },
        }).admin()
      const admin = client(password)
      await admin.connect()
      try {
        answer[mechanism] = (await admin.listTopics()).sort()
      } finally {
        await admin.disconnect()
      }
      const wrong = client(`${password}-not`)
      await assert.rejects(wrong.connect(), e => {
        assert.equal(e.name, 'KafkaJSSASLAuthenticationError', e.stack)
        return true
      })
      await wrong.disconnect()
    }
    return answer
  },

  // describeConfigs of the topic: its configs' values and sources; then
  // alterConfigs sets name=value (AlterConfigs replaces every config of
  // the topic), and describeConfigs shows it
  async configs(topic, name, value) {
    const admin = kafka.admin()
    await admin.connect()
    try {
      const describe = async () => {
        const { resources } = await admin.describeConfigs({
          includeSynonyms: false,
          resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
        })
        assert.equal(resources.length, 1)
        assert.equal(resources[0].errorCode, 0, resources[0].errorMessage)
        assert.equal(resources[0].resourceName, topic)
        return Object.fromEntries(
          resources[0].configEntries.map(e => [e.configName, { value: e.configValue, is_default: e.isDefault }])
        )
      }
      const before = await describe()
      await admin.alterConfigs({
        validateOnly: false,
        resources: [
          { type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name, value }] },
        ],
      })
      const after = await describe()
      assert.equal(after[name].value, value, 'alterConfigs set it')
      assert.equal(after[name].is_default, false)
      // a config pg_topics does not know is refused, nothing changed
      await assert.rejects(
        admin.alterConfigs({
          validateOnly: false,
          resources: [
            {
              type: ConfigResourceTypes.TOPIC,
              name: topic,
              configEntries: [{ name: 'no.such.config', value: '1' }],
            },
          ],
        }),
        e => {
          assert.equal(e.type, 'INVALID_CONFIG', e.stack)
          return true
        }
      )
      assert.deepEqual(await describe(), after, 'nothing changed by the refused alterConfigs')
      return { before, after }
    } finally {
      await admin.disconnect()
    }
  },

  // deleteTopics; listTopics no longer lists it
  async delete_topic(topic) {
    const admin = kafka.admin()
    await admin.connect()
    try {
      await admin.deleteTopics({ topics: [topic] })
      assert.ok(!(await admin.listTopics()).includes(topic), 'the deleted topic is not listed')
      return { deleted: topic }
    } finally {
      await admin.disconnect()
    }
  },
}

// {partition: number of messages}
function count(messages) {
  const c = {}
  for (const m of messages) c[m.partition] = (c[m.partition] || 0) + 1
  return c
}

async function main() {
  const run = commands[command]
  if (!run) throw new Error(`no command ${command}`)
  const answer = await run(...args)
  process.stdout.write(JSON.stringify(answer ?? null) + '\n')
}

main().then(
  () => process.exit(0),
  e => {
    process.stderr.write(`kafkajs.js ${command}: ${e.stack || e}\n`)
    process.exit(1)
  }
)

// kafkajs's transactional producer (test/kafka/kafkajs/package-lock.json's
// version), stepped by test/t/069_kafka_transactions_kafkajs.pl through
// test/lib/PgTopicsKafkaTxn.pm, as test/kafka/txn_clients.py's driver is:
//
//   node txn.js BOOTSTRAP TRANSACTIONAL_ID [TRANSACTION_TIMEOUT_MS]
//
// It prints {"ok":"ready"}, then answers each line of stdin (a step) with
// one JSON line: {"ok": ...} or {"error": TYPE, "retriable": bool,
// "message": text}.  Steps:
//
//   init                     producer.connect()
//   begin                    producer.transaction() (InitProducerId the
//                            first time, as kafkajs does)
//   produce TOPIC PARTITION PREFIX COUNT
//                            transaction.send() of COUNT records, value
//                            PREFIX-i, key kPREFIX-i, acks -1:
//                            [[partition, offset, null]...]
//   send_offsets GROUP TOPIC PARTITION:OFFSET...
//                            transaction.sendOffsets()
//   commit                   transaction.commit()
//   abort                    transaction.abort()
//   quit
'use strict'

const readline = require('node:readline')
const { Kafka, logLevel } = require('kafkajs')

const [bootstrap, transactionalId, timeout] = process.argv.slice(2)

const kafka = new Kafka({
  clientId: 'pg_topics-kafkajs-txn-test',
  brokers: bootstrap.split(','),
  logLevel: logLevel.WARN,
  retry: { retries: 5 },
})
const producer = kafka.producer({
  transactionalId,
  idempotent: true,
  maxInFlightRequests: 1,
  transactionTimeout: timeout ? Number(timeout) : 60000,
})
let txn = null

const steps = {
  async init() {
    await producer.connect()
    return true
  },
  async begin() {
    txn = await producer.transaction()
    return true
  },
  async produce(topic, partition, prefix, count) {
    const messages = Array.from({ length: Number(count) }, (_, i) => ({
      partition: Number(partition),
      key: `k${prefix}-${i}`,
      value: `${prefix}-${i}`,
    }))
    const result = await txn.send({ topic, acks: -1, messages })
    const out = []
    for (const r of result) {
      if (r.errorCode !== 0) throw new Error(`produce to ${topic}/${r.partition}: error ${r.errorCode}`)
      for (let i = 0; i < messages.length; i++) out.push([r.partition, Number(r.baseOffset) + i, null])
    }
    return out
  },
  async send_offsets(group, topic, ...positions) {
    await txn.sendOffsets({
      consumerGroupId: group,
      topics: [
        {
          topic,
          partitions: positions.map(p => {
            const [partition, offset] = p.split(':')
            return { partition: Number(partition), offset }
          }),
        },
      ],
    })
    return true
  },
  async commit() {
    await txn.commit()
    return true
  },
  async abort() {
    await txn.abort()
    return true
  },
}

async function main() {
  console.log(JSON.stringify({ ok: 'ready' }))
  const lines = readline.createInterface({ input: process.stdin })
  for await (const line of lines) {
    const [step, ...args] = line.trim().split(/\s+/)
    if (!step) continue
    if (step === 'quit') break
    let answer
    try {
      if (!steps[step]) throw new Error(`unknown step ${step}`)
      answer = { ok: await steps[step](...args) }
    } catch (e) {
      // the test judges every error: kafkajs's protocol errors carry the
      // Kafka error's name as their type (the cause's, when kafkajs gave
      // up retrying)
      const type = e.type || (e.cause && e.cause.type) || e.name
      answer = { error: type, name: e.name, retriable: !!e.retriable, message: e.message }
    }
    console.log(JSON.stringify(answer))
  }
  await producer.disconnect().catch(() => {})
  process.exit(0)
}

main().catch(e => {
  console.error(e)
  process.exit(1)
})

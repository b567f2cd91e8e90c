#!/usr/bin/python3
"""Workload 12: one confluent-kafka (librdkafka) producer sending RECORDS records to partition 0
of TOPIC, idempotent or transactional, timed.

Usage: kafka_txn_produce.py BOOTSTRAP TOPIC RECORDS idempotent
       kafka_txn_produce.py BOOTSTRAP TOPIC RECORDS transactional PER_TXN TRANSACTIONAL_ID
Prints one JSON object: records, transactions, secs, records_per_s, delivery_errors,
undelivered, and for a transactional producer the time per transaction (begin_transaction to
commit_transaction's return) p50/p99/max in ms.

Records: 16-byte keys (base64 of 12 random bytes, as bench/common/payload.sql makes them) and
100-byte random values, a pool of at most 10,000 made before the clock starts and sent in
turn. Both producers use acks=all and librdkafka's defaults otherwise (linger.ms 5,
batch.num.messages 10000, at most 5 requests in flight, which idempotence requires); delivery
reports are asked for errors only (delivery.report.only.error), so that the client's Python
callback does not run once per record. Before the clock starts each producer has fetched the
topic's metadata (its connection is up); the transactional one has also run
init_transactions() (InitProducerId, once). The idempotent producer is timed from its first
produce() until flush() returns with every record acknowledged; the transactional one from its
first begin_transaction() until its last commit_transaction() returns, each transaction being
begin_transaction, PER_TXN produce() calls, commit_transaction (which flushes, then ends the
transaction: EndTxn).

KAFKA_TXN_DEBUG=1 adds librdkafka's protocol debug log for the run and reports, per request
type, how many were answered and their mean and p50 round trip (librdkafka's "rtt"): where a
transaction's time goes. The log costs the client time: such a run is not a throughput number.
"""
import base64
import json
import logging
import os
import re
import sys
import time

from stats import percentile

VALUE_SIZE = 100
POOL = 10_000
RTT = re.compile(r"Received (\w+)Response \(v\d+, \d+ bytes, CorrId \d+, rtt ([0-9.]+)ms\)")



class RttLog(logging.Handler):
    """Collects librdkafka's request round trips from its protocol debug log."""

    def __init__(self):
        super().__init__()
        self.rtt = {}

    def emit(self, record):
        m = RTT.search(record.getMessage())
        if m:
            self.rtt.setdefault(m.group(1), []).append(float(m.group(2)))


def main():
    from confluent_kafka import Producer, KafkaException
    bootstrap, topic, records, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    if mode not in ("idempotent", "transactional"):
        raise SystemExit(f"mode {mode}: idempotent or transactional")
    per_txn = int(sys.argv[5]) if mode == "transactional" else None
    pool = [(base64.b64encode(os.urandom(12)), os.urandom(VALUE_SIZE))
            for _ in range(min(POOL, records))]
    errors = []

    def report(err, msg):
        if err is not None:
            errors.append(str(err))

    conf = {"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True,
            "delivery.report.only.error": True, "on_delivery": report}
    if mode == "transactional":
        conf["transactional.id"] = sys.argv[6]
    rtt_log = None
    if os.environ.get("KAFKA_TXN_DEBUG"):
        rtt_log = RttLog()
        logger = logging.getLogger("rdkafka")
        logger.setLevel(logging.DEBUG)
        logger.addHandler(rtt_log)
        conf.update({"debug": "protocol", "logger": logger})
    p = Producer(conf)
    p.list_topics(topic, timeout=30)
    if mode == "transactional":
        p.init_transactions(30)

    def send(i):
        key, value = pool[i % len(pool)]
        while True:
            try:
                p.produce(topic, value=value, key=key, partition=0)
                return
            except BufferError:          # librdkafka's queue is full: let it drain
                p.poll(0.005)

    txn_ms = []
    undelivered = 0
    t0 = time.time()
    if mode == "idempotent":
        for i in range(records):
            send(i)
            if i % 1000 == 999:
                p.poll(0)
        undelivered = p.flush(60)
        transactions = 0
    else:
        i = 0
        transactions = 0
        while i < records:
            b0 = time.time()
            p.begin_transaction()
            for _ in range(min(per_txn, records - i)):
                send(i)
                i += 1
            try:
                p.commit_transaction(60)
            except KafkaException as e:
                raise SystemExit(f"commit_transaction of transaction {transactions + 1} "
                                 f"failed: {e}")
            transactions += 1
            txn_ms.append((time.time() - b0) * 1000)
    secs = time.time() - t0
    p.poll(0.5 if rtt_log is not None else 0)     # the debug log comes through poll()
    txn_ms.sort()
    out = dict(mode=mode, records=records, per_txn=per_txn, transactions=transactions,
               secs=round(secs, 4), records_per_s=round(records / secs, 1),
               delivery_errors=len(errors), first_errors=errors[:5], undelivered=undelivered,
               txn_p50_ms=percentile(txn_ms, 0.5), txn_p99_ms=percentile(txn_ms, 0.99),
               txn_max_ms=txn_ms[-1] if txn_ms else None,
               txn_mean_ms=sum(txn_ms) / len(txn_ms) if txn_ms else None,
               producer={k: v for k, v in conf.items() if k not in ("on_delivery", "logger")})
    if rtt_log is not None:
        out["rtt"] = {k: dict(n=len(v), mean_ms=round(sum(v) / len(v), 3),
                              p50_ms=round(percentile(sorted(v), 0.5), 3))
                      for k, v in sorted(rtt_log.rtt.items())}
    print(json.dumps(out))


if __name__ == "__main__":
    main()

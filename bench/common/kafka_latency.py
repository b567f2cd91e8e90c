#!/usr/bin/python3
"""Workload 10's latency: one Kafka producer at a steady rate, one Kafka consumer, both
confluent-kafka (librdkafka), on the same host clock.

Usage: kafka_latency.py BOOTSTRAP TOPIC RATE SECS [LINGER_MS]
Prints one JSON object: produced, consumed, missing, duplicates, delivery_errors, the
latency percentiles (ms) and the producer's schedule lag.

The consumer runs in a child process (forked before the producer exists: librdkafka handles do
not survive a fork) and reads partition 0 from offset 0 of a fresh topic with assign() (no
consumer group). The producer sends one warm-up record first; the consumer says it is ready
when that record has come back, so that both connections are up before the clock starts.
Then record i leaves at start + i / RATE (time.sleep until then): its key is i, its value the
send time (time.time_ns() just before Producer.produce) padded to 100 bytes. Latency = the
consumer's time.time_ns() when poll() returned the record - the send time. Also: the
producer's delivery report - the send time (acks), and the consumer's receipt - the record's
log-append timestamp (set by the listener when it writes the record; milliseconds, truncated,
so up to 1 ms too much), which leaves out the wait before the listener writes the record.
KAFKA_LATENCY_DUMP=file writes every record's numbers there.
"""
import json
import multiprocessing
import sys
import time

from stats import percentile

VALUE_SIZE = 100
# the producer: acks=all, nothing held back to batch (linger.ms=0), otherwise librdkafka's
# defaults. The consumer: librdkafka's defaults (fetch.wait.max.ms=500, fetch.min.bytes=1).
PRODUCER = {"acks": "all", "linger.ms": 0}
CONSUMER = {"group.id": "bench-latency", "enable.auto.commit": False,
            "enable.auto.offset.store": False}



def consume(bootstrap, topic, conn):
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer(dict(CONSUMER, **{"bootstrap.servers": bootstrap}))
    c.assign([TopicPartition(topic, 0, 0)])
    lat = {}            # key -> ms
    appended = {}       # key -> ms since the record's log-append time (whole ms)
    dup = 0
    expected = None
    deadline = None
    ready = False
    while True:
        m = c.poll(0.05)
        now = time.time_ns()
        if m is not None:
            if m.error():
                conn.send(("error", str(m.error())))
                return
            k = int(m.key())
            if k < 0:
                if not ready:
                    ready = True
                    conn.send(("ready", None))
            elif k in lat:
                dup += 1
            else:
                lat[k] = (now - int(m.value()[:20])) / 1e6
                # the listener sends each record's log-append time: flagged LogAppendTime
                # when a batch's records share one, else CreateTime with exact deltas
                ts_type, ts = m.timestamp()
                if ts_type in (1, 2):
                    appended[k] = now / 1e6 - ts
        if expected is None and conn.poll():
            expected = conn.recv()
            deadline = time.time() + 10     # the last records have 10 s to arrive
        if expected is not None and (len(lat) >= expected or time.time() > deadline):
            break
    c.close()
    conn.send(("done", (lat, appended, dup)))


def main():
    bootstrap, topic, rate, secs = sys.argv[1], sys.argv[2], float(sys.argv[3]), \
        float(sys.argv[4])
    if len(sys.argv) > 5:       # for experiments: the benchmark runs with linger.ms 0
        PRODUCER["linger.ms"] = float(sys.argv[5])
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=consume, args=(bootstrap, topic, child))
    proc.start()

    from confluent_kafka import Producer
    errors = []
    acked = {}          # key -> ms from send to the delivery report (acks=all: committed)

    def report(err, msg):
        if err is not None:
            errors.append(str(err))
        else:
            acked[int(msg.key())] = (time.time_ns() - int(msg.value()[:20])) / 1e6
    p = Producer(dict(PRODUCER, **{"bootstrap.servers": bootstrap}))

    def send(i):
        t = time.time_ns()
        p.produce(topic, key=b"%d" % i, value=(b"%020d" % t).ljust(VALUE_SIZE, b"x"),
                  partition=0, on_delivery=report)
        p.poll(0)

    send(-1)
    p.flush(30)
    if not parent.poll(30):
        raise SystemExit("the consumer did not receive the warm-up record within 30 s")
    kind, what = parent.recv()
    if kind != "ready":
        raise SystemExit(f"consumer: {what}")

    n = int(rate * secs)
    start = time.time() + 0.01
    lag_max = 0.0
    lag_sum = 0.0
    for i in range(n):
        due = start + i / rate
        now = time.time()
        if due > now:
            time.sleep(due - now)
            now = time.time()
        lag = now - due
        lag_sum += lag
        lag_max = max(lag_max, lag)
        send(i)
    elapsed = time.time() - start
    left = p.flush(30)
    parent.send(n)
    if not parent.poll(60):
        raise SystemExit("the consumer did not finish within 60 s")
    kind, what = parent.recv()
    proc.join(10)
    if kind != "done":
        raise SystemExit(f"consumer: {what}")
    lat, appended, dup = what
    ms = sorted(lat.values())
    app = sorted(appended.values())
    ack = sorted(v for k, v in acked.items() if k >= 0)
    import os
    if os.environ.get("KAFKA_LATENCY_DUMP"):
        with open(os.environ["KAFKA_LATENCY_DUMP"], "w") as f:
            for k in sorted(lat):
                f.write(f"{k} {lat[k]:.3f} {acked.get(k, -1):.3f} "
                        f"{appended.get(k, -1):.3f}\n")
    print(json.dumps(dict(
        produced=n, consumed=len(lat), duplicates=dup, missing=n - len(lat),
        undelivered=left, delivery_errors=len(errors), first_errors=errors[:5],
        achieved_rate=round(n / elapsed, 1) if elapsed > 0 else None,
        lag_avg_ms=round(lag_sum / n * 1000, 3) if n else None,
        lag_max_ms=round(lag_max * 1000, 3),
        p50_ms=percentile(ms, 0.5), p99_ms=percentile(ms, 0.99),
        p999_ms=percentile(ms, 0.999), max_ms=ms[-1] if ms else None,
        ack_p50_ms=percentile(ack, 0.5), ack_p99_ms=percentile(ack, 0.99),
        ack_max_ms=ack[-1] if ack else None,
        append_p50_ms=percentile(app, 0.5), append_p99_ms=percentile(app, 0.99),
        append_max_ms=app[-1] if app else None,
        producer=PRODUCER, consumer=CONSUMER)))


if __name__ == "__main__":
    main()

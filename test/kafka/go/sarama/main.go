// sarama (Debian's golang-github-shopify-sarama-dev) against the Kafka
// listener, for test/t/056_kafka_go_clients.pl.  Built offline by that test
// from Debian's Go packages (GOPATH=/usr/share/gocode, GO111MODULE=off).
//
// Usage: sarama BOOTSTRAP VERSION COMMAND ARGS...
//
// VERSION is sarama's Config.Version: "default" leaves sarama's own (0.8.2:
// Produce and Fetch v0 with MessageSets, OffsetCommit v1, OffsetFetch v1,
// ListOffsets v0), anything else is parsed ("2.2.0": the newest sarama 1.22
// knows).  Every command checks what it can see itself and exits 1 with the
// reason on stderr when a check fails; on success it prints one JSON object,
// which the test compares with what SQL shows.
//
//	produce TOPIC N TAG      a SyncProducer sends N records (key k<i>, value
//	                         TAG-<i>); prints each record's partition and offset
//	consume TOPIC            a partition consumer reads every partition from its
//	                         oldest offset to its newest
//	group GROUP TOPIC MAX    a member of GROUP reads at most MAX records (fewer
//	                         if the topic runs dry), marks each and leaves,
//	                         committing: sarama's ConsumerGroup from Version
//	                         0.10.2 on, its offset manager below that
//	admin TOPIC GROUP        ClusterAdmin: DescribeCluster, DescribeTopics,
//	                         ListConsumerGroups, DescribeConsumerGroups,
//	                         ListConsumerGroupOffsets, and ListTopics and
//	                         DescribeConfig when the broker offers DescribeConfigs
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

type record struct {
	Key       string `json:"key"`
	Value     string `json:"value"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "sarama: "+format+"\n", args...)
	os.Exit(1)
}

func check(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func output(v interface{}) {
	out, err := json.Marshal(v)
	check(err, "encoding the answer")
	fmt.Println(string(out))
}

func config(version string) *sarama.Config {
	conf := sarama.NewConfig()
	conf.ClientID = "pg_topics-sarama-test"
	if version != "default" {
		v, err := sarama.ParseKafkaVersion(version)
		check(err, "Version "+version)
		conf.Version = v
	}
	conf.Producer.Return.Successes = true
	conf.Producer.RequiredAcks = sarama.WaitForAll
	// errors of commits come back to us instead of going to a log
	conf.Consumer.Return.Errors = true
	conf.Consumer.Offsets.Initial = sarama.OffsetOldest
	conf.Metadata.Retry.Max = 10
	return conf
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	check(err, s)
	return n
}

func produce(brokers []string, conf *sarama.Config, topic string, n int, tag string) {
	producer, err := sarama.NewSyncProducer(brokers, conf)
	check(err, "NewSyncProducer")
	var records []record
	last := map[int32]int64{}
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("k%d", i)
		value := fmt.Sprintf("%s-%d", tag, i)
		partition, offset, err := producer.SendMessage(&sarama.ProducerMessage{
			Topic: topic, Key: sarama.StringEncoder(key), Value: sarama.StringEncoder(value)})
		check(err, "SendMessage "+value)
		// this producer is the partition's only writer
		if prev, ok := last[partition]; ok && offset != prev+1 {
			fail("record %s at offset %d of partition %d, after %d", value, offset, partition, prev)
		}
		last[partition] = offset
		records = append(records, record{key, value, partition, offset})
	}
	check(producer.Close(), "closing the producer")
	output(map[string]interface{}{"records": records})
}

func consume(brokers []string, conf *sarama.Config, topic string) {
	client, err := sarama.NewClient(brokers, conf)
	check(err, "NewClient")
	consumer, err := sarama.NewConsumerFromClient(client)
	check(err, "NewConsumerFromClient")
	partitions, err := consumer.Partitions(topic)
	check(err, "Partitions")
	var records []record
	for _, p := range partitions {
		oldest, err := client.GetOffset(topic, p, sarama.OffsetOldest)
		check(err, "GetOffset oldest")
		newest, err := client.GetOffset(topic, p, sarama.OffsetNewest)
		check(err, "GetOffset newest")
		if oldest == newest {
			continue
		}
		pc, err := consumer.ConsumePartition(topic, p, sarama.OffsetOldest)
		check(err, fmt.Sprintf("ConsumePartition %d", p))
		want := oldest
		timeout := time.After(30 * time.Second)
		for want < newest {
			select {
			case m := <-pc.Messages():
				if m.Offset != want {
					fail("partition %d: offset %d where %d was next", p, m.Offset, want)
				}
				records = append(records, record{string(m.Key), string(m.Value), m.Partition, m.Offset})
				want++
			case e := <-pc.Errors():
				fail("partition %d: %v", p, e.Err)
			case <-timeout:
				fail("partition %d: offset %d not read in 30 s (newest %d)", p, want, newest)
			}
		}
		check(pc.Close(), "closing a partition consumer")
	}
	check(consumer.Close(), "closing the consumer")
	check(client.Close(), "closing the client")
	output(map[string]interface{}{"records": records})
}

// the records a group member took, at most max of them, and whether any
// partition's first record came before the position the group had committed
type taken struct {
	sync.Mutex
	max     int
	records []record
	done    chan struct{}
	closed  bool
}

// take records m unless max are taken already; whether it did
func (t *taken) take(m *sarama.ConsumerMessage) bool {
	t.Lock()
	defer t.Unlock()
	if len(t.records) >= t.max {
		return false
	}
	t.records = append(t.records, record{string(m.Key), string(m.Value), m.Partition, m.Offset})
	if len(t.records) == t.max && !t.closed {
		t.closed = true
		close(t.done)
	}
	return true
}

type handler struct {
	t        *taken
	idle     time.Duration
	activity chan struct{}
}

func (h *handler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *handler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	first := true
	for m := range c.Messages() {
		// the first record of a claim is where the group's position was
		if first && c.InitialOffset() >= 0 && m.Offset != c.InitialOffset() {
			fail("partition %d starts at %d, the group's position is %d", m.Partition, m.Offset, c.InitialOffset())
		}
		first = false
		if !h.t.take(m) {
			return nil
		}
		s.MarkMessage(m, "")
		select {
		case h.activity <- struct{}{}:
		default:
		}
	}
	return nil
}

// a group member with sarama's ConsumerGroup (Version 0.10.2 and later)
func groupMember(brokers []string, conf *sarama.Config, group, topic string, t *taken, idle time.Duration) {
	cg, err := sarama.NewConsumerGroup(brokers, group, conf)
	check(err, "NewConsumerGroup")
	var errs []error
	var errsDone sync.WaitGroup
	errsDone.Add(1)
	go func() {
		defer errsDone.Done()
		for e := range cg.Errors() {
			errs = append(errs, e)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	h := &handler{t: t, idle: idle, activity: make(chan struct{}, 1)}
	consumed := make(chan error, 1)
	go func() {
		// Consume returns at each rebalance; one session is enough here
		consumed <- cg.Consume(ctx, []string{topic}, h)
	}()
	stop := func() {
		cancel()
		check(<-consumed, "Consume")
	}
	deadline := time.After(60 * time.Second)
	for stopped := false; !stopped; {
		select {
		case <-t.done:
			stop()
			stopped = true
		case <-h.activity:
		case <-time.After(idle):
			t.Lock()
			n := len(t.records)
			t.Unlock()
			// idle: the topic ran dry (once something was read, or after a
			// longer wait when nothing was left for this member)
			if n > 0 || idle >= 10*time.Second {
				stop()
				stopped = true
			}
			idle *= 2
		case <-deadline:
			fail("the group member read %d records in 60 s", len(t.records))
		}
	}
	// leaving commits what was marked, one last time
	check(cg.Close(), "closing the consumer group")
	errsDone.Wait()
	for _, e := range errs {
		fail("consumer group error: %v", e)
	}
}

// a consumer of Kafka before 0.10.2's groups: positions kept with the offset
// manager, each partition read from the group's position
func offsetManagerMember(brokers []string, conf *sarama.Config, group, topic string, t *taken, idle time.Duration) {
	client, err := sarama.NewClient(brokers, conf)
	check(err, "NewClient")
	om, err := sarama.NewOffsetManagerFromClient(group, client)
	check(err, "NewOffsetManagerFromClient")
	consumer, err := sarama.NewConsumerFromClient(client)
	check(err, "NewConsumerFromClient")
	partitions, err := consumer.Partitions(topic)
	check(err, "Partitions")
	var poms []sarama.PartitionOffsetManager
	for _, p := range partitions {
		pom, err := om.ManagePartition(topic, p)
		check(err, "ManagePartition")
		poms = append(poms, pom)
		next, _ := pom.NextOffset()
		newest, err := client.GetOffset(topic, p, sarama.OffsetNewest)
		check(err, "GetOffset newest")
		if next >= 0 && next >= newest {
			continue
		}
		pc, err := consumer.ConsumePartition(topic, p, next)
		check(err, fmt.Sprintf("ConsumePartition %d at %d", p, next))
		first := true
		for stopped := false; !stopped; {
			select {
			case m := <-pc.Messages():
				if first && next >= 0 && m.Offset != next {
					fail("partition %d starts at %d, the group's position is %d", p, m.Offset, next)
				}
				first = false
				if !t.take(m) {
					stopped = true
					break
				}
				pom.MarkOffset(m.Offset+1, "")
				stopped = m.Offset+1 >= newest
			case e := <-pc.Errors():
				fail("partition %d: %v", p, e.Err)
			case <-time.After(idle * 4):
				fail("partition %d: nothing read in %v", p, idle*4)
			}
		}
		check(pc.Close(), "closing a partition consumer")
	}
	for _, pom := range poms {
		pom.AsyncClose()
	}
	// closing flushes the marked positions, one last time
	check(om.Close(), "closing the offset manager")
	for _, pom := range poms {
		for e := range pom.Errors() {
			fail("offset manager error: %v", e.Err)
		}
	}
	check(consumer.Close(), "closing the consumer")
	check(client.Close(), "closing the client")
}

func groupCommand(brokers []string, conf *sarama.Config, group, topic string, max int) {
	t := &taken{max: max, done: make(chan struct{})}
	idle := 2 * time.Second
	if conf.Version.IsAtLeast(sarama.V0_10_2_0) {
		groupMember(brokers, conf, group, topic, t, idle)
	} else {
		offsetManagerMember(brokers, conf, group, topic, t, idle)
	}
	// what the group has now, as this client reads it back
	client, err := sarama.NewClient(brokers, conf)
	check(err, "NewClient")
	om, err := sarama.NewOffsetManagerFromClient(group, client)
	check(err, "NewOffsetManagerFromClient")
	partitions, err := client.Partitions(topic)
	check(err, "Partitions")
	committed := map[string]int64{}
	for _, p := range partitions {
		pom, err := om.ManagePartition(topic, p)
		check(err, "ManagePartition")
		next, _ := pom.NextOffset()
		committed[strconv.Itoa(int(p))] = next
		pom.AsyncClose()
	}
	check(om.Close(), "closing the offset manager")
	check(client.Close(), "closing the client")
	// every partition's records are taken in order, without gaps
	last := map[int32]int64{}
	for _, r := range t.records {
		if prev, ok := last[r.Partition]; ok && r.Offset != prev+1 {
			fail("partition %d: offset %d after %d", r.Partition, r.Offset, prev)
		}
		last[r.Partition] = r.Offset
	}
	for p, o := range last {
		if committed[strconv.Itoa(int(p))] != o+1 {
			fail("partition %d: read to %d, the group's position is %d", p, o, committed[strconv.Itoa(int(p))])
		}
	}
	sort.Slice(t.records, func(i, j int) bool {
		a, b := t.records[i], t.records[j]
		return a.Partition < b.Partition || (a.Partition == b.Partition && a.Offset < b.Offset)
	})
	output(map[string]interface{}{"records": t.records, "committed": committed})
}

func admin(brokers []string, conf *sarama.Config, topic, group string) {
	answer := map[string]interface{}{}

	// which APIs the broker offers, as sarama's broker asks (ApiVersions v0)
	client, err := sarama.NewClient(brokers, conf)
	check(err, "NewClient")
	b := client.Brokers()[0]
	check(b.Open(conf), "opening a broker")
	av, err := b.ApiVersions(&sarama.ApiVersionsRequest{})
	check(err, "ApiVersions")
	describeConfigs := false
	for _, k := range av.ApiVersions {
		if k.ApiKey == 32 {
			describeConfigs = true
		}
	}
	answer["describe_configs_offered"] = describeConfigs
	check(client.Close(), "closing the client")

	ca, err := sarama.NewClusterAdmin(brokers, conf)
	check(err, "NewClusterAdmin")

	// sarama 1.22 asks Metadata v0 here, which has no controller (-1)
	cluster, _, err := ca.DescribeCluster()
	check(err, "DescribeCluster")
	if len(cluster) != 1 {
		fail("DescribeCluster: %d brokers", len(cluster))
	}
	answer["brokers"] = len(cluster)

	metas, err := ca.DescribeTopics([]string{topic})
	check(err, "DescribeTopics")
	if len(metas) != 1 || metas[0].Err != sarama.ErrNoError {
		fail("DescribeTopics: %d topics, error %v", len(metas), metas[0].Err)
	}
	answer["partitions"] = len(metas[0].Partitions)

	groups, err := ca.ListConsumerGroups()
	check(err, "ListConsumerGroups")
	if _, ok := groups[group]; !ok {
		fail("ListConsumerGroups: no group %s in %v", group, groups)
	}
	answer["group_protocol_type"] = groups[group]

	descs, err := ca.DescribeConsumerGroups([]string{group})
	check(err, "DescribeConsumerGroups")
	if len(descs) != 1 || descs[0].Err != sarama.ErrNoError {
		fail("DescribeConsumerGroups: %d groups", len(descs))
	}
	answer["group_state"] = descs[0].State

	var ps []int32
	for _, p := range metas[0].Partitions {
		ps = append(ps, p.ID)
	}
	offsets, err := ca.ListConsumerGroupOffsets(group, map[string][]int32{topic: ps})
	check(err, "ListConsumerGroupOffsets")
	committed := map[string]int64{}
	for _, p := range ps {
		block := offsets.GetBlock(topic, p)
		if block == nil || block.Err != sarama.ErrNoError {
			fail("ListConsumerGroupOffsets: partition %d: %v", p, block)
		}
		committed[strconv.Itoa(int(p))] = block.Offset
	}
	answer["committed"] = committed

	// sarama's ListTopics describes the configs of every topic it lists
	if describeConfigs {
		topics, err := ca.ListTopics()
		check(err, "ListTopics")
		detail, ok := topics[topic]
		if !ok {
			fail("ListTopics: no topic %s", topic)
		}
		answer["listed_partitions"] = detail.NumPartitions
		entries, err := ca.DescribeConfig(sarama.ConfigResource{Type: sarama.TopicResource, Name: topic})
		check(err, "DescribeConfig")
		configs := map[string]string{}
		for _, e := range entries {
			configs[e.Name] = e.Value
		}
		answer["configs"] = configs
	}
	check(ca.Close(), "closing the cluster admin")
	output(answer)
}

func main() {
	if os.Getenv("SARAMA_DEBUG") != "" {
		sarama.Logger = log.New(os.Stderr, "[sarama] ", log.LstdFlags|log.Lmicroseconds)
	}
	if len(os.Args) < 4 {
		fail("usage: sarama BOOTSTRAP VERSION COMMAND ARGS...")
	}
	brokers := []string{os.Args[1]}
	conf := config(os.Args[2])
	args := os.Args[4:]
	need := func(n int) {
		if len(args) != n {
			fail("%s takes %d arguments", os.Args[3], n)
		}
	}
	switch os.Args[3] {
	case "produce":
		need(3)
		produce(brokers, conf, args[0], atoi(args[1]), args[2])
	case "consume":
		need(1)
		consume(brokers, conf, args[0])
	case "group":
		need(3)
		groupCommand(brokers, conf, args[0], args[1], atoi(args[2]))
	case "admin":
		need(2)
		admin(brokers, conf, args[0], args[1])
	default:
		fail("unknown command %s", os.Args[3])
	}
}

// kafka-go (Debian's golang-github-segmentio-kafka-go-dev) against the Kafka
// listener, for test/t/056_kafka_go_clients.pl.  Built offline by that test
// from Debian's Go packages (GOPATH=/usr/share/gocode, GO111MODULE=off).
//
// Usage: kafkago LISTENER COMMAND ARGS...
//
// LISTENER is 127.0.0.1:PORT.  Every connection the clients open goes to a
// proxy this program serves at 127.0.0.2:PORT, which forwards it to the
// listener and counts it: the clients' Dialer resolves every broker's host to
// 127.0.0.2, so that the brokers Metadata lists are reached through it too.
// Every command checks what it can see itself and exits 1 with the reason on
// stderr when a check fails; on success it prints one JSON object, with
// "connections", the connections the clients opened, and "requests", how
// many requests they sent of each API key and version ("8 v2": 3).
//
//	write TOPIC N TAG        a Writer writes N records (key k<i>, value TAG-<i>)
//	read TOPIC GROUP N       a Reader of GROUP reads N records, committing
//	                         each, then waits 2 s for one more ("more"),
//	                         which it does not commit, counting the
//	                         connections opened meanwhile ("idle_connections"),
//	                         and closes
//	partitions TOPIC         Conn.ReadPartitions
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	kafka "github.com/segmentio/kafka-go"
)

type record struct {
	Key       string `json:"key"`
	Value     string `json:"value"`
	Partition int    `json:"partition"`
	Offset    int64  `json:"offset"`
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "kafka-go: "+format+"\n", args...)
	os.Exit(1)
}

func check(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	check(err, s)
	return n
}

// a TCP proxy in front of the listener that counts the connections made and
// the requests sent, by API key and version
type proxy struct {
	sync.Mutex
	accepted int64
	requests map[string]int
	ln       net.Listener
}

var prx *proxy

func startProxy(listen, target string) *proxy {
	ln, err := net.Listen("tcp", listen)
	check(err, "listening at "+listen)
	p := &proxy{ln: ln, requests: map[string]int{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			atomic.AddInt64(&p.accepted, 1)
			go p.serve(c, target)
		}
	}()
	return p
}

// a Resolver for kafka-go's Dialer that sends every host to the proxy
type toProxy struct{ host string }

func (r toProxy) LookupHost(ctx context.Context, host string) ([]string, error) {
	return []string{r.host}, nil
}

func (p *proxy) serve(c net.Conn, target string) {
	s, err := net.Dial("tcp", target)
	if err != nil {
		c.Close()
		return
	}
	done := make(chan struct{}, 2)
	go func() {
		// requests, frame by frame: size, API key, API version, ...
		var head [8]byte
		for {
			if _, err := io.ReadFull(c, head[:]); err != nil {
				break
			}
			size := int64(binary.BigEndian.Uint32(head[0:4]))
			key := int16(binary.BigEndian.Uint16(head[4:6]))
			version := int16(binary.BigEndian.Uint16(head[6:8]))
			p.Lock()
			p.requests[fmt.Sprintf("%d v%d", key, version)]++
			p.Unlock()
			if _, err := s.Write(head[:]); err != nil {
				break
			}
			if _, err := io.CopyN(s, c, size-4); err != nil {
				break
			}
		}
		s.(*net.TCPConn).CloseWrite()
		done <- struct{}{}
	}()
	go func() {
		io.Copy(c, s)
		c.(*net.TCPConn).CloseWrite()
		done <- struct{}{}
	}()
	<-done
	<-done
	c.Close()
	s.Close()
}

func logger(what string) *log.Logger {
	if os.Getenv("KAFKA_GO_DEBUG") == "" {
		return nil
	}
	return log.New(os.Stderr, "["+what+"] ", log.LstdFlags|log.Lmicroseconds)
}

func write(dialer *kafka.Dialer, brokers []string, topic string, n int, tag string) map[string]interface{} {
	w := kafka.NewWriter(kafka.WriterConfig{
		Brokers:      brokers,
		Dialer:       dialer,
		Topic:        topic,
		BatchTimeout: 10 * time.Millisecond,
		RequiredAcks: -1,
		Logger:       logger("writer"),
		ErrorLogger:  logger("writer error"),
	})
	var msgs []kafka.Message
	for i := 0; i < n; i++ {
		msgs = append(msgs, kafka.Message{Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf("%s-%d", tag, i))})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	check(w.WriteMessages(ctx, msgs...), "WriteMessages")
	stats := w.Stats()
	check(w.Close(), "closing the writer")
	if stats.Messages != int64(n) || stats.Errors != 0 {
		fail("the writer wrote %d messages of %d, with %d errors", stats.Messages, n, stats.Errors)
	}
	return map[string]interface{}{"written": stats.Messages, "dials": stats.Dials}
}

func read(dialer *kafka.Dialer, brokers []string, topic, group string, n int) map[string]interface{} {
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:  brokers,
		Dialer:   dialer,
		Topic:    topic,
		GroupID:  group,
		MinBytes: 1,
		MaxBytes: 1 << 20,
		MaxWait:  500 * time.Millisecond,
		// kafka-go 0.2.1's Close does not leave the group (it dials the
		// coordinator with a context it has just cancelled): the next member
		// waits until this one's session expires, at Kafka's least
		SessionTimeout: 6 * time.Second,
		Logger:         logger("reader"),
		ErrorLogger:    logger("reader error"),
	})
	var records []record
	last := map[int]int64{}
	for len(records) < n {
		// the first record may wait for the group's first assignment
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		m, err := r.FetchMessage(ctx)
		if err == nil {
			err = r.CommitMessages(ctx, m)
		}
		cancel()
		check(err, fmt.Sprintf("reading and committing after %d records", len(records)))
		if prev, ok := last[m.Partition]; ok && m.Offset != prev+1 {
			fail("partition %d: offset %d after %d", m.Partition, m.Offset, prev)
		}
		last[m.Partition] = m.Offset
		records = append(records, record{string(m.Key), string(m.Value), m.Partition, m.Offset})
	}
	// 2 s more, uncommitted: whether there was more, and the connections
	// the reader opened meanwhile (none: a reader waits in its fetches)
	before := atomic.LoadInt64(&prx.accepted)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_, err := r.FetchMessage(ctx)
	cancel()
	idle := atomic.LoadInt64(&prx.accepted) - before
	more := err == nil
	if err != nil && err != context.DeadlineExceeded {
		fail("waiting for more: %v", err)
	}
	stats := r.Stats()
	check(r.Close(), "closing the reader")
	return map[string]interface{}{"records": records, "more": more, "idle_connections": idle, "dials": stats.Dials,
		"errors": stats.Errors, "rebalances": stats.Rebalances}
}

func partitions(dialer *kafka.Dialer, bootstrap, topic string) map[string]interface{} {
	conn, err := dialer.Dial("tcp", bootstrap)
	check(err, "Dial")
	ps, err := conn.ReadPartitions(topic)
	check(err, "ReadPartitions")
	check(conn.Close(), "closing the connection")
	var ids []int
	for _, p := range ps {
		if p.Topic != topic || p.Leader.ID < 0 {
			fail("ReadPartitions: %+v", p)
		}
		ids = append(ids, p.ID)
	}
	return map[string]interface{}{"partitions": ids}
}

func main() {
	if len(os.Args) < 3 {
		fail("usage: kafkago LISTENER COMMAND ARGS...")
	}
	listener := os.Args[1]
	_, port, err := net.SplitHostPort(listener)
	check(err, listener)
	prx = startProxy(net.JoinHostPort("127.0.0.2", port), listener)
	dialer := &kafka.Dialer{Timeout: 10 * time.Second, Resolver: toProxy{"127.0.0.2"}}
	brokers := []string{listener}
	args := os.Args[3:]
	need := func(n int) {
		if len(args) != n {
			fail("%s takes %d arguments", os.Args[2], n)
		}
	}
	var answer map[string]interface{}
	switch os.Args[2] {
	case "write":
		need(3)
		answer = write(dialer, brokers, args[0], atoi(args[1]), args[2])
	case "read":
		need(3)
		answer = read(dialer, brokers, args[0], args[1], atoi(args[2]))
	case "partitions":
		need(1)
		answer = partitions(dialer, listener, args[0])
	default:
		fail("unknown command %s", os.Args[2])
	}
	prx.ln.Close()
	answer["connections"] = atomic.LoadInt64(&prx.accepted)
	prx.Lock()
	answer["requests"] = prx.requests
	prx.Unlock()
	out, err := json.Marshal(answer)
	check(err, "encoding the answer")
	fmt.Println(string(out))
}

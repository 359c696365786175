package halma_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"halma-rules/client/go/gen/halmapb"
	"halma-rules/client/go/halma"
)

const streamMethod = "halma.v1.HalmaRules/AdjudicateStream"

// games are the records of testdata/vectors/records.jsonl as requests.
func games(t *testing.T) []*halmapb.AdjudicateRequest {
	t.Helper()
	if testdataDir == "" {
		t.Skip("HALMA_TESTDATA_DIR is not set (test.sh sets it)")
	}
	// HALMA_TESTDATA_DIR is tests/service/server/testdata of the checkout.
	f, err := os.Open(filepath.Join(testdataDir, "..", "..", "..", "..", "testdata", "vectors", "records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*halmapb.AdjudicateRequest
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		if strings.TrimSpace(scanner.Text()) == "" {
			continue
		}
		var v struct {
			Variant json.RawMessage `json:"variant"`
			From    string          `json:"from"`
			Moves   []string        `json:"moves"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		var variant *halmapb.Variant
		var preset string
		if json.Unmarshal(v.Variant, &preset) == nil {
			variant = halma.Preset(preset)
		} else {
			var c struct {
				N               int32   `json:"n"`
				Seats           int32   `json:"seats"`
				Camp            []int32 `json:"camp"`
				HomeExit        int32   `json:"home_exit"`
				RoundCompletion bool    `json:"round_completion"`
				TargetLock      bool    `json:"target_lock"`
				MoveCap         int32   `json:"move_cap"`
			}
			if err := json.Unmarshal(v.Variant, &c); err != nil {
				t.Fatal(err)
			}
			variant = halma.Custom(&halmapb.VariantSpec{BoardSize: c.N, SeatCount: c.Seats, CampRows: c.Camp,
				HomeExitLimit: c.HomeExit, RoundCompletion: c.RoundCompletion, TargetLock: c.TargetLock, MoveCap: c.MoveCap})
		}
		out = append(out, &halmapb.AdjudicateRequest{Variant: variant, StartPosition: v.From, Moves: v.Moves})
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// mixedRecords builds count records from the test vectors: whole games,
// games cut short, games with a move made illegal, malformed ones (an
// unknown preset, a move off the board, a bad start position), each with an
// id.
func mixedRecords(t *testing.T, count int, seed int64) []*halmapb.AdjudicateStreamRequest {
	base := games(t)
	rng := rand.New(rand.NewSource(seed))
	var out []*halmapb.AdjudicateStreamRequest
	for i := 0; i < count; i++ {
		game := proto.Clone(base[rng.Intn(len(base))]).(*halmapb.AdjudicateRequest)
		moves := append([]string{}, game.Moves...)
		switch kind := rng.Float64(); {
		case kind < 0.05:
			game.Variant = halma.Preset("brainking-9x9")
		case kind < 0.10:
			at := rng.Intn(len(moves) + 1)
			moves = append(moves[:at], append([]string{"z9-a1"}, moves[at:]...)...)
		case kind < 0.15:
			game.StartPosition = "not a position"
		case kind < 0.35 && len(moves) > 0:
			// The same move again, one ply later: its origin is empty by then.
			at := rng.Intn(len(moves))
			moves = append(moves[:at+1], append([]string{moves[at]}, moves[at+1:]...)...)
		case kind < 0.55:
		default:
			moves = moves[:rng.Intn(len(moves)+1)]
		}
		game.Moves = moves
		out = append(out, &halmapb.AdjudicateStreamRequest{Id: fmt.Sprintf("game-%d-%d", seed, i), Record: game})
	}
	return out
}

// sendAll sends the records from a goroutine, then CloseSend; it returns a
// channel with Send's first error (or nil).
func sendAll(s *halma.RecordStream, records []*halmapb.AdjudicateStreamRequest) <-chan error {
	done := make(chan error, 1)
	go func() {
		for _, r := range records {
			if err := s.Send(r); err != nil {
				done <- err
				return
			}
		}
		done <- s.CloseSend()
	}()
	return done
}

// receiveAll calls Recv until it fails; it returns the results and the
// error (io.EOF at a clean end).
func receiveAll(s *halma.RecordStream, each func(n int)) ([]*halma.StreamResult, error) {
	var results []*halma.StreamResult
	for {
		r, err := s.Recv()
		if err != nil {
			return results, err
		}
		results = append(results, r)
		if each != nil {
			each(len(results))
		}
	}
}

// checkLikeUnary checks every result against unary Adjudicate's answer to
// its record, in order, and returns the kinds seen.
func checkLikeUnary(t *testing.T, c *halma.Client, records []*halmapb.AdjudicateStreamRequest, results []*halma.StreamResult) map[string]int {
	t.Helper()
	if len(results) != len(records) {
		t.Fatalf("%d results for %d records", len(results), len(records))
	}
	kinds := map[string]int{}
	for i, record := range records {
		result := results[i]
		if result.ID != record.GetId() {
			t.Fatalf("result %d has id %q, want %q", i, result.ID, record.GetId())
		}
		answer, err := c.Adjudicate(ctxFor(t, 10*time.Second), record.GetRecord())
		if err != nil {
			var e *halma.Error
			if !errors.As(err, &e) {
				t.Fatal(err)
			}
			if result.Response != nil || result.Err == nil || result.Err.Code != e.Code || result.Err.Message != e.Message ||
				result.Err.Method != "AdjudicateStream" {
				t.Fatalf("%s: stream result %+v, unary error %v", record.GetId(), result, err)
			}
			kinds["error"]++
			continue
		}
		if result.Err != nil || !proto.Equal(result.Response, answer) {
			t.Fatalf("%s: stream result %+v, unary answer %v", record.GetId(), result, answer)
		}
		if answer.GetIllegalMove() != nil {
			kinds["illegal"]++
		} else {
			kinds["legal"]++
		}
	}
	return kinds
}

// endless sends r0, r1, ... until Send fails; taken counts the records
// Send accepted.
func endless(s *halma.RecordStream, taken *int64) {
	go func() {
		for i := 0; ; i++ {
			moves := []string{"b1-d3", "h7-f5"}[:i%3]
			if s.Send(&halmapb.AdjudicateStreamRequest{Id: "r" + strconv.Itoa(i),
				Record: &halmapb.AdjudicateRequest{Variant: halma.Preset(brainking), Moves: moves}}) != nil {
				return
			}
			atomic.AddInt64(taken, 1)
		}
	}()
}

func wantStreamError(t *testing.T, err error, code codes.Code) *halma.StreamError {
	t.Helper()
	var e *halma.StreamError
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want a *halma.StreamError", err, err)
	}
	if e.Err.Code != code || halma.Code(err) != code || e.Err.Method != "AdjudicateStream" {
		t.Fatalf("error %v: code %v, want %v", err, e.Err.Code, code)
	}
	return e
}

// consecutiveIDs checks that the unanswered records are r<from>, r<from+1>, ...
func consecutiveIDs(t *testing.T, unanswered []*halmapb.AdjudicateStreamRequest, from int) {
	t.Helper()
	for i, r := range unanswered {
		if want := "r" + strconv.Itoa(from+i); r.GetId() != want {
			t.Fatalf("unanswered[%d] = %q, want %q", i, r.GetId(), want)
		}
	}
}

func openStreams(t *testing.T, s *serverProcess) float64 {
	return s.metric(t, "halma_rpc_calls_in_flight", "method", streamMethod, "protocol", "grpc")
}

func waitFor(condition func() bool) bool {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if condition() {
			return true
		}
	}
	return condition()
}

func TestStreamAnswersInOrderAsUnary(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	records := mixedRecords(t, 400, 1)
	s, err := c.AdjudicateStream(ctxFor(t, 60*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	sent := sendAll(s, records)
	results, err := receiveAll(s, nil)
	if err != io.EOF {
		t.Fatalf("Recv: %v, want io.EOF", err)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	kinds := checkLikeUnary(t, c, records, results)
	if kinds["legal"] < 20 || kinds["illegal"] < 20 || kinds["error"] < 20 {
		t.Fatalf("kinds %v, want at least 20 of each", kinds)
	}
	if s.Answered() != 400 || s.Attempts() != 1 {
		t.Fatalf("answered %d, attempts %d", s.Answered(), s.Attempts())
	}
	if err := s.Send(records[0]); err == nil {
		t.Fatal("Send after the end succeeded")
	}
}

func TestStreamMalformedRecordAndLongID(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	good := &halmapb.AdjudicateRequest{Variant: halma.Preset(brainking), Moves: []string{"b1-d3", "h7-f5", "a1-b2"}}
	long := strings.Repeat("x", 300)
	records := []*halmapb.AdjudicateStreamRequest{
		{Id: "one", Record: good},
		{Id: "two", Record: &halmapb.AdjudicateRequest{Variant: halma.Preset("brainking-9x9")}},
		{Id: long, Record: good},
		{Id: "", Record: good},
	}
	s, err := c.AdjudicateStream(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	sendAll(s, records)
	results, err := receiveAll(s, nil)
	if err != io.EOF || len(results) != 4 {
		t.Fatalf("%d results, %v", len(results), err)
	}
	if r := results[0]; r.ID != "one" || r.Err != nil || r.Response.GetIllegalMove().GetPly() != 3 ||
		r.Response.GetIllegalMove().GetMessage() != "b2 is occupied" {
		t.Fatalf("one: %+v", r)
	}
	two := results[1]
	if two.ID != "two" || two.Response != nil || two.Err == nil || two.Err.Code != codes.InvalidArgument ||
		!strings.HasPrefix(two.Err.Message, `variant.preset: variant "brainking-9x9": no such preset, expected one of `) {
		t.Fatalf("two: %+v", two)
	}
	if r := results[2]; r.ID != long || r.Err == nil || r.Err.Message != "id: 300 bytes, more than the 256 an id may have" {
		t.Fatalf("long id: %+v", r)
	}
	if r := results[3]; r.ID != "" || r.Err != nil || !proto.Equal(r.Response, results[0].Response) {
		t.Fatalf("the stream did not go on: %+v", r)
	}
	if _, err := c.AdjudicateStream(context.Background(), halma.WithWindow(0)); err == nil {
		t.Fatal("a window of 0 was accepted")
	}
}

// Send blocks while the window is full: it never runs more than the window
// ahead of the results Recv has returned, whether or not Recv is called.
func TestStreamWindowBoundsSend(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	s, err := c.AdjudicateStream(ctxFor(t, 60*time.Second), halma.WithWindow(8))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var taken int64
	endless(s, &taken)
	for i := 0; i < 100; i++ {
		r, err := s.Recv()
		if err != nil || r.ID != "r"+strconv.Itoa(i) {
			t.Fatalf("result %d: %+v, %v", i, r, err)
		}
		if n := atomic.LoadInt64(&taken); n > int64(i+1+8) {
			t.Fatalf("%d records sent with %d results read, window 8", n, i+1)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if n := atomic.LoadInt64(&taken); n > 108 {
		t.Fatalf("%d records sent while nobody read, window 8", n)
	}
}

func TestStreamCancel(t *testing.T) {
	own := startServer(t)
	c := dial(t, own.target)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.AdjudicateStream(ctx, halma.WithWindow(4))
	if err != nil {
		t.Fatal(err)
	}
	var taken int64
	endless(s, &taken)
	openThen := -1.0
	results, err := receiveAll(s, func(n int) {
		if n == 50 {
			openThen = openStreams(t, own)
			cancel()
		}
	})
	e := wantStreamError(t, err, codes.Canceled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(%v, context.Canceled) is false", err)
	}
	if e.Answered != len(results) || len(results) < 50 {
		t.Fatalf("answered %d, %d results", e.Answered, len(results))
	}
	consecutiveIDs(t, e.Unanswered, len(results))
	if n := atomic.LoadInt64(&taken); n > int64(len(results)+4) {
		t.Fatalf("%d records sent, %d answered, window 4", n, len(results))
	}
	if openThen != 1 {
		t.Fatalf("%v streams open on the server before the cancel, want 1", openThen)
	}
	// The input is endless: only the cancel can have ended the server's call.
	if !waitFor(func() bool { return openStreams(t, own) == 0 }) {
		t.Fatal("the server's call is still open")
	}
}

func TestStreamClose(t *testing.T) {
	own := startServer(t)
	c := dial(t, own.target)
	s, err := c.AdjudicateStream(context.Background(), halma.WithWindow(4))
	if err != nil {
		t.Fatal(err)
	}
	var taken int64
	endless(s, &taken)
	for i := 0; i < 10; i++ {
		if _, err := s.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	if open := openStreams(t, own); open != 1 {
		t.Fatalf("%v streams open, want 1", open)
	}
	s.Close()
	if !waitFor(func() bool { return openStreams(t, own) == 0 }) {
		t.Fatal("the server's call is still open after Close")
	}
	n := atomic.LoadInt64(&taken)
	if n > 14 {
		t.Fatalf("%d records sent, 10 answered, window 4", n)
	}
	time.Sleep(200 * time.Millisecond)
	if atomic.LoadInt64(&taken) != n {
		t.Fatal("Send went on after Close")
	}
	_, err = s.Recv()
	wantStreamError(t, err, codes.Canceled)
}

func TestStreamDeadline(t *testing.T) {
	c := dial(t, sharedServer(t).target, halma.WithTimeout(500*time.Millisecond))
	s, err := c.AdjudicateStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var taken int64
	endless(s, &taken)
	began := time.Now()
	results, err := receiveAll(s, nil)
	e := wantStreamError(t, err, codes.DeadlineExceeded)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(%v, context.DeadlineExceeded) is false", err)
	}
	if e.Attempts != 1 || e.Answered != len(results) {
		t.Fatalf("attempts %d, answered %d, %d results", e.Attempts, e.Answered, len(results))
	}
	if elapsed := time.Since(began); elapsed > 5*time.Second {
		t.Fatalf("took %v", elapsed)
	}
}

var shutdownMessage = regexp.MustCompile(`^AdjudicateStream: the server is shutting down after answering (\d+) records; send the rest to another server$`)

func TestStreamShutdownWithoutRetries(t *testing.T) {
	if serverBinary == "" {
		t.Skip("HALMA_SERVER_BINARY is not set (test.sh sets it)")
	}
	doomed, err := launch(0)
	if err != nil {
		t.Fatal(err)
	}
	var stopOnce sync.Once
	stopped := make(chan error, 1)
	stop := func() { stopOnce.Do(func() { go func() { stopped <- doomed.stop() }() }) }
	c := dial(t, doomed.target, halma.WithRetry(1))
	s, err := c.AdjudicateStream(ctxFor(t, 60*time.Second), halma.WithWindow(16))
	if err != nil {
		t.Fatal(err)
	}
	var taken int64
	endless(s, &taken)
	results, err := receiveAll(s, func(n int) {
		if n == 200 {
			stop() // SIGTERM while records flow.
		}
	})
	stop()
	if err := <-stopped; err != nil {
		t.Fatalf("halma_server: %v", err)
	}
	e := wantStreamError(t, err, codes.Unavailable)
	m := shutdownMessage.FindStringSubmatch(e.Err.Message)
	if m == nil {
		t.Fatalf("message %q", e.Err.Message)
	}
	// The server says how many records it answered: exactly those received.
	if said, _ := strconv.Atoi(m[1]); said != len(results) || e.Answered != len(results) || len(results) < 200 {
		t.Fatalf("the server answered %d, the error says %d, Recv returned %d", said, e.Answered, len(results))
	}
	if e.Attempts != 1 || len(e.Unanswered) > 16 {
		t.Fatalf("attempts %d, %d unanswered", e.Attempts, len(e.Unanswered))
	}
	consecutiveIDs(t, e.Unanswered, len(results))
}

func TestStreamShutdownResends(t *testing.T) {
	if serverBinary == "" {
		t.Skip("HALMA_SERVER_BINARY is not set (test.sh sets it)")
	}
	port := freePort(t)
	first, err := launch(port)
	if err != nil {
		t.Fatal(err)
	}
	type restart struct {
		exit   error
		second *serverProcess
		err    error
	}
	restarted := make(chan restart, 1)
	firstExited := make(chan struct{})
	var once sync.Once
	c := dial(t, "127.0.0.1:"+strconv.Itoa(port), halma.WithRetry(100),
		halma.WithBackoff(50*time.Millisecond, 250*time.Millisecond))
	s, err := c.AdjudicateStream(ctxFor(t, 60*time.Second), halma.WithWindow(16))
	if err != nil {
		t.Fatal(err)
	}
	records := mixedRecords(t, 600, 2)
	sent := sendAll(s, records)
	results, err := receiveAll(s, func(n int) {
		if n == 150 {
			once.Do(func() {
				// SIGTERM, then a new server on the same port.
				go func() {
					exit := first.stop()
					close(firstExited)
					second, err := launch(port)
					restarted <- restart{exit, second, err}
				}()
			})
		}
		if n == 300 {
			// Records flowed while the server shut down. Now it is gone for
			// sure while this stream (at most 316 of 600 records sent) was
			// open: the stream had to be resumed.
			<-firstExited
		}
	})
	if len(results) < 150 {
		first.stop()
		t.Fatalf("%d results, %v", len(results), err)
	}
	r := <-restarted
	if r.second != nil {
		defer func() {
			if err := r.second.stop(); err != nil {
				t.Errorf("the second halma_server: %v", err)
			}
		}()
	}
	if r.exit != nil || r.err != nil {
		t.Fatalf("stopping the first server: %v; starting the second: %v", r.exit, r.err)
	}
	if err != io.EOF {
		t.Fatalf("Recv: %v after %d results, want io.EOF", err, len(results))
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if s.Attempts() < 2 || s.Answered() != 600 || s.Resent() > 16 {
		t.Fatalf("attempts %d, answered %d, resent %d", s.Attempts(), s.Answered(), s.Resent())
	}
	t.Logf("attempts %d, records resent %d", s.Attempts(), s.Resent())
	checkLikeUnary(t, c, records, results)
}

package halma_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"halma-rules/client/go/gen/halmapb"
	"halma-rules/client/go/gen/healthpb"
	"halma-rules/client/go/halma"
)

const (
	brainking = "brainking-8x8"
	start8    = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0"
)

// attempts counts the attempts of calls: its interceptor runs inside the
// client's retries.
type attempts struct{ n int32 }

func (a *attempts) option() halma.Option {
	return halma.WithDialOptions(grpc.WithChainUnaryInterceptor(
		func(ctx context.Context, method string, req, reply interface{}, cc *grpc.ClientConn,
			invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			atomic.AddInt32(&a.n, 1)
			return invoker(ctx, method, req, reply, cc, opts...)
		}))
}

func (a *attempts) count() int { return int(atomic.LoadInt32(&a.n)) }

func dial(t *testing.T, target string, opts ...halma.Option) *halma.Client {
	t.Helper()
	c, err := halma.Dial(target, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// wantError checks that err is an *Error with this method and code, and
// returns it.
func wantError(t *testing.T, err error, method string, code codes.Code) *halma.Error {
	t.Helper()
	var e *halma.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want a *halma.Error", err, err)
	}
	if e.Code != code || e.Method != method {
		t.Fatalf("error %v: method %q code %v, want %q %v", err, e.Method, e.Code, method, code)
	}
	if halma.Code(err) != code || status.Code(err) != code {
		t.Fatalf("halma.Code %v, status.Code %v, want %v", halma.Code(err), status.Code(err), code)
	}
	return e
}

func TestHealth(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	for _, service := range []string{"", "halma.v1.HalmaRules"} {
		got, err := c.Health(ctxFor(t, 10*time.Second), service)
		if err != nil || got != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("Health(%q) = %v, %v; want SERVING", service, got, err)
		}
	}
	_, err := c.Health(ctxFor(t, 10*time.Second), "no.such.Service")
	wantError(t, err, "Health", codes.NotFound)
}

func TestListVariants(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	resp, err := c.ListVariants(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range resp.GetVariants() {
		names = append(names, v.GetName())
	}
	want := "brainking-8x8 brainking-10x10 iggamecenter-10x10 classic-16x16 classic-16x16-4p"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("variants %q, want %q", got, want)
	}
	bk := resp.GetVariants()[0]
	wantSpec := &halmapb.VariantSpec{BoardSize: 8, SeatCount: 2, CampRows: []int32{4, 3, 2, 1}, HomeExitLimit: 30}
	if !proto.Equal(bk.GetSpec(), wantSpec) || bk.GetStartPosition() != start8 ||
		bk.GetPiecesPerSeat() != 10 || bk.GetSource() != "BrainKing Halma 8x8" ||
		len(bk.GetSeats()) != 2 || bk.GetSeats()[0] != halmapb.Seat_SEAT_W || bk.GetSeats()[1] != halmapb.Seat_SEAT_B {
		t.Fatalf("brainking-8x8 = %v", bk)
	}
}

func TestLegalMoves(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	resp, err := c.LegalMoves(ctxFor(t, 10*time.Second), &halmapb.LegalMovesRequest{
		Variant: halma.Preset(brainking), Origin: "a3"})
	if err != nil {
		t.Fatal(err)
	}
	want := &halmapb.LegalMovesResponse{
		Moves: []*halmapb.Move{
			{Origin: "a3", Destination: "a5", Path: "a3-a5", Hops: 1},
			{Origin: "a3", Destination: "b4", Path: "a3-b4", Hops: 0},
			{Origin: "a3", Destination: "c3", Path: "a3-c3", Hops: 1},
		},
		Count:    3,
		Status:   &halmapb.GameStatus{State: halmapb.GameStatus_STATE_IN_PROGRESS, ToMove: halmapb.Seat_SEAT_W},
		Position: start8,
	}
	if !proto.Equal(resp, want) {
		t.Fatalf("LegalMoves(a3) = %v\nwant %v", resp, want)
	}

	all, err := c.LegalMoves(ctxFor(t, 10*time.Second), &halmapb.LegalMovesRequest{Variant: halma.Preset(brainking)})
	if err != nil || all.GetCount() != 24 || len(all.GetMoves()) != 24 {
		t.Fatalf("LegalMoves(start) = %d moves, %v; want 24", all.GetCount(), err)
	}
}

func TestValidateMoveLegal(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	resp, err := c.ValidateMove(ctxFor(t, 10*time.Second), &halmapb.ValidateMoveRequest{
		Variant: halma.Preset(brainking), Position: start8, Move: "b1-d3"})
	if err != nil {
		t.Fatal(err)
	}
	want := &halmapb.ValidateMoveResponse{
		Legal:         true,
		Path:          "b1-d3",
		Hops:          1,
		PositionAfter: "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0",
		Status:        &halmapb.GameStatus{State: halmapb.GameStatus_STATE_IN_PROGRESS, ToMove: halmapb.Seat_SEAT_B},
		Mover:         halmapb.Seat_SEAT_W,
	}
	if !proto.Equal(resp, want) {
		t.Fatalf("ValidateMove(b1-d3) = %v\nwant %v", resp, want)
	}
}

func TestValidateMoveIllegal(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	resp, err := c.ValidateMove(ctxFor(t, 10*time.Second), &halmapb.ValidateMoveRequest{
		Variant: halma.Preset(brainking), Move: "a1-b2"})
	if err != nil {
		t.Fatalf("an illegal move is an answer, not an error: %v", err)
	}
	if resp.GetLegal() || resp.GetReason() != halmapb.IllegalReason_ILLEGAL_REASON_DESTINATION_OCCUPIED ||
		resp.GetMessage() != "b2 is occupied" || resp.GetMover() != halmapb.Seat_SEAT_W {
		t.Fatalf("ValidateMove(a1-b2) = %v", resp)
	}
}

func TestAdjudicate(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	resp, err := c.Adjudicate(ctxFor(t, 10*time.Second), &halmapb.AdjudicateRequest{
		Variant: halma.Preset(brainking), Moves: []string{"b1-d3", "h7-f5", "a1-b2"}})
	if err != nil {
		t.Fatal(err)
	}
	want := &halmapb.AdjudicateResponse{
		Status:        &halmapb.GameStatus{State: halmapb.GameStatus_STATE_IN_PROGRESS, ToMove: halmapb.Seat_SEAT_W},
		FinalPosition: "4bbbb/5bb1/6bb/5b1b/w7/ww1w4/www5/w1ww4 w 1,1",
		MovesPlayed:   2,
		MoveCounts: []*halmapb.SeatMoves{
			{Seat: halmapb.Seat_SEAT_W, Moves: 1}, {Seat: halmapb.Seat_SEAT_B, Moves: 1}},
		IllegalMove: &halmapb.IllegalMove{
			Ply: 3, Move: "a1-b2", Reason: halmapb.IllegalReason_ILLEGAL_REASON_DESTINATION_OCCUPIED,
			Message: "b2 is occupied"},
	}
	if !proto.Equal(resp, want) {
		t.Fatalf("Adjudicate = %v\nwant %v", resp, want)
	}
}

func TestCustomVariant(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	resp, err := c.Adjudicate(ctxFor(t, 10*time.Second), &halmapb.AdjudicateRequest{
		Variant: halma.Custom(&halmapb.VariantSpec{BoardSize: 8, SeatCount: 2, CampRows: []int32{4, 3, 2, 1}, MoveCap: 2}),
		Moves:   []string{"b1-d3", "h7-f5", "c1-e1", "h8-h7"}})
	if err != nil {
		t.Fatal(err)
	}
	st := resp.GetStatus()
	if resp.GetMovesPlayed() != 4 || st.GetState() != halmapb.GameStatus_STATE_DRAW ||
		st.GetRule() != halmapb.DecidingRule_DECIDING_RULE_MOVE_CAP || st.GetPly() != 4 || len(st.GetWinners()) != 2 {
		t.Fatalf("Adjudicate(custom, move cap 2) = %v", resp)
	}
}

// INVALID_ARGUMENT is an *Error with the server's message, and is not
// retried.
func TestInvalidArgumentNotRetried(t *testing.T) {
	var a attempts
	c := dial(t, sharedServer(t).target, a.option(), halma.WithRetry(5))
	_, err := c.LegalMoves(ctxFor(t, 10*time.Second), &halmapb.LegalMovesRequest{Variant: halma.Preset("brainking-9x9")})
	e := wantError(t, err, "LegalMoves", codes.InvalidArgument)
	prefix := `variant.preset: variant "brainking-9x9": no such preset, expected one of `
	if !strings.HasPrefix(e.Message, prefix) || !strings.Contains(e.Message, "brainking-8x8") {
		t.Fatalf("message %q, want it to start with %q", e.Message, prefix)
	}
	if !strings.HasPrefix(err.Error(), "halma: LegalMoves: InvalidArgument: variant.preset: ") {
		t.Fatalf("Error() = %q", err.Error())
	}
	if a.count() != 1 {
		t.Fatalf("%d attempts, want 1 (INVALID_ARGUMENT is not retried)", a.count())
	}

	_, err = c.ValidateMove(ctxFor(t, 10*time.Second), &halmapb.ValidateMoveRequest{
		Variant: halma.Preset(brainking), Move: "zz"})
	e = wantError(t, err, "ValidateMove", codes.InvalidArgument)
	if !strings.HasPrefix(e.Message, "move: ") || !strings.Contains(e.Message, `"zz"`) {
		t.Fatalf("message %q, want it to name the move field and quote it", e.Message)
	}
}

// The slow record: 2,000,000 moves that take about a second to replay.
func slowRecord() *halmapb.AdjudicateRequest {
	cycle := []string{"a1-e5", "j10-f6", "e5-a1", "f6-j10"}
	moves := make([]string, 2000000)
	for i := range moves {
		moves[i] = cycle[i%len(cycle)]
	}
	return &halmapb.AdjudicateRequest{
		Variant:       halma.Preset("iggamecenter-10x10"),
		StartPosition: "bbbbbbbbbb/6bbbb/10/6b3/10/10/3w6/10/wwwww5/w1wwwwwwww w 0,0",
		Moves:         moves,
	}
}

var slowFlags = []string{"--max_record_moves=2000000", "--max_message_bytes=67108864", "--max_call_seconds=60"}

func TestDeadline(t *testing.T) {
	server := startServer(t, slowFlags...)
	req := slowRecord()

	// A context deadline wins over the client's default, even when it is
	// longer: the whole record is replayed. This also times the replay.
	short := dial(t, server.target, halma.WithTimeout(100*time.Millisecond))
	began := time.Now()
	resp, err := short.Adjudicate(ctxFor(t, 30*time.Second), req)
	replay := time.Since(began)
	if err != nil {
		t.Fatalf("with a 30 s context deadline: %v", err)
	}
	if resp.GetMovesPlayed() != 2000000 || resp.GetIllegalMove() != nil {
		t.Fatalf("moves played %d, illegal move %v; want all 2000000 played", resp.GetMovesPlayed(), resp.GetIllegalMove())
	}
	t.Logf("context deadline 30 s: the whole record in %v", replay)

	// A call ending DEADLINE_EXCEEDED, once, soon after its 100 ms.
	check := func(what string, call func() error, a *attempts) {
		t.Helper()
		began := time.Now()
		err := call()
		elapsed := time.Since(began)
		wantError(t, err, "Adjudicate", codes.DeadlineExceeded)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: errors.Is(%v, context.DeadlineExceeded) is false", what, err)
		}
		// Cut short: well under the whole replay's time (which grows with
		// the machine's load as this call's does), or under 800 ms on a
		// machine so fast that the whole replay takes little more.
		if elapsed > 800*time.Millisecond && elapsed > replay*2/3 {
			t.Errorf("%s: the call took %v (the whole replay %v), want it to end soon after 100 ms", what, elapsed, replay)
		}
		if a.count() != 1 {
			t.Errorf("%s: %d attempts, want 1 (DEADLINE_EXCEEDED is not retried)", what, a.count())
		}
		t.Logf("%s: %v after %v", what, err, elapsed)
	}

	var a attempts
	c := dial(t, server.target, a.option())
	check("context deadline 100 ms", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := c.Adjudicate(ctx, req)
		return err
	}, &a)

	var b attempts
	defaulted := dial(t, server.target, b.option(), halma.WithTimeout(100*time.Millisecond))
	check("default deadline 100 ms", func() error {
		_, err := defaulted.Adjudicate(context.Background(), req)
		return err
	}, &b)
}

// A call to a port where the server starts a little later succeeds after
// retries on UNAVAILABLE.
func TestRetryUntilServerStarts(t *testing.T) {
	if serverBinary == "" {
		t.Skip("HALMA_SERVER_BINARY is not set (test.sh sets it)")
	}
	port := freePort(t)
	var a attempts
	c := dial(t, "127.0.0.1:"+strconv.Itoa(port), a.option(),
		halma.WithRetry(20), halma.WithBackoff(50*time.Millisecond, 200*time.Millisecond))

	started := make(chan *serverProcess, 1)
	failed := make(chan error, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		s, err := launch(port)
		if err != nil {
			failed <- err
			return
		}
		started <- s
	}()
	t.Cleanup(func() {
		select {
		case s := <-started:
			if err := s.stop(); err != nil {
				t.Errorf("halma_server: %v", err)
			}
		case err := <-failed:
			t.Errorf("starting the server late: %v", err)
		}
	})

	resp, err := c.ListVariants(ctxFor(t, 15*time.Second))
	if err != nil {
		t.Fatalf("ListVariants after %d attempts: %v", a.count(), err)
	}
	if len(resp.GetVariants()) != 5 {
		t.Fatalf("%d variants", len(resp.GetVariants()))
	}
	t.Logf("served after %d attempts", a.count())
	if a.count() < 2 || a.count() > 20 {
		t.Fatalf("%d attempts, want 2 to 20 (the first while nothing listens)", a.count())
	}
}

// With no server at all, a call ends UNAVAILABLE after exactly the number
// of attempts it was given.
func TestRetryBounded(t *testing.T) {
	port := freePort(t)
	var a attempts
	c := dial(t, "127.0.0.1:"+strconv.Itoa(port), a.option(),
		halma.WithRetry(3), halma.WithBackoff(20*time.Millisecond, 40*time.Millisecond))
	began := time.Now()
	_, err := c.Health(ctxFor(t, 10*time.Second), "")
	wantError(t, err, "Health", codes.Unavailable)
	if a.count() != 3 {
		t.Fatalf("%d attempts, want 3", a.count())
	}
	if elapsed := time.Since(began); elapsed > 5*time.Second {
		t.Fatalf("took %v", elapsed)
	}
}

func TestTLS(t *testing.T) {
	if testdataDir == "" {
		t.Skip("HALMA_TESTDATA_DIR is not set (test.sh sets it)")
	}
	cert := filepath.Join(testdataDir, "server.crt")
	server := startServer(t, "--tls_cert="+cert, "--tls_key="+filepath.Join(testdataDir, "server.key"))

	for _, opts := range [][]halma.Option{
		{halma.WithTLS(cert)},
		{halma.WithTLS(cert), halma.WithServerName("localhost")},
	} {
		c := dial(t, server.target, opts...)
		got, err := c.Health(ctxFor(t, 10*time.Second), "halma.v1.HalmaRules")
		if err != nil || got != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("Health over TLS = %v, %v", got, err)
		}
		resp, err := c.ValidateMove(ctxFor(t, 10*time.Second), &halmapb.ValidateMoveRequest{
			Variant: halma.Preset(brainking), Move: "b1-d3"})
		if err != nil || !resp.GetLegal() {
			t.Fatalf("ValidateMove over TLS = %v, %v", resp, err)
		}
	}

	// Plaintext, or TLS with a name the certificate does not carry, fails.
	for name, opts := range map[string][]halma.Option{
		"plaintext":  {halma.WithRetry(1)},
		"wrong name": {halma.WithRetry(1), halma.WithTLS(cert), halma.WithServerName("example.org")},
	} {
		c := dial(t, server.target, opts...)
		_, err := c.Health(ctxFor(t, 10*time.Second), "")
		wantError(t, err, "Health", codes.Unavailable)
		t.Logf("%s: %v", name, err)
	}

	if _, err := halma.Dial(server.target, halma.WithTLS(filepath.Join(testdataDir, "README.md"))); err == nil {
		t.Fatal("Dial with a CA file holding no certificate succeeded")
	}
}

func TestClosedClient(t *testing.T) {
	c, err := halma.Dial(sharedServer(t).target)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = c.ListVariants(ctxFor(t, 10*time.Second))
	wantError(t, err, "ListVariants", codes.Canceled)
}

func TestExample(t *testing.T) {
	if exampleBinary == "" {
		t.Skip("HALMA_EXAMPLE_BINARY is not set (test.sh sets it)")
	}
	out, err := exec.Command(exampleBinary, sharedServer(t).target).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", exampleBinary, err, out)
	}
	for _, want := range []string{
		"health: SERVING\n",
		"variant brainking-8x8: 8x8, 2 seats, 10 pieces each (BrainKing Halma 8x8)\n",
		"legal moves from a3: 3: a3-a5 (1 hop), a3-b4 (step), a3-c3 (1 hop)\n",
		"w b1-d3: legal, path b1-d3, position after 4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0\n",
		"w a1-b2: illegal, ILLEGAL_REASON_DESTINATION_OCCUPIED: b2 is occupied\n",
		"illegal move at ply 3: a1-b2, ILLEGAL_REASON_DESTINATION_OCCUPIED: b2 is occupied\n",
		"perft depth 2 from the start: 576 sequences, 24 first moves (a1-c3: 24)\n",
		"adjudicate stream, three records on one call:\n" +
			"  played: 2 moves played, w to move\n" +
			"  bad: 2 moves played, illegal move at ply 3\n" +
			`  malformed: error InvalidArgument: moves[0] (ply 1): move "b1-z9": square 2: square "z9": file 'z' is off the 8x8 board, expected a..h` + "\n",
		`brainking-9x9: error InvalidArgument: variant.preset: variant "brainking-9x9": no such preset`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the example's output lacks %q:\n%s", want, out)
		}
	}
	// The suggested move is the bot's to choose: legal, and level 4's best.
	hint := regexp.MustCompile(`(?m)^suggest after b1-d3 \(level 4, seed 7\): b plays (\S+); best 3: (\S+), (\S+), (\S+)$`).FindStringSubmatch(string(out))
	if hint == nil || hint[1] != hint[2] {
		t.Fatalf("the example's output lacks a suggestion line with its best move first:\n%s", out)
	}
	c := dial(t, sharedServer(t).target)
	for _, path := range hint[2:] {
		answer, err := c.ValidateMove(ctxFor(t, 10*time.Second), &halmapb.ValidateMoveRequest{
			Variant: halma.Preset(brainking), Position: "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0", Move: path})
		if err != nil || !answer.GetLegal() {
			t.Fatalf("the example suggests %s: %v, %v", path, answer, err)
		}
	}
}

func TestPerftDepthOneCountsTheLegalMoves(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	after := "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0"
	for _, tc := range []struct {
		variant  *halmapb.Variant
		position string
	}{
		{halma.Preset(brainking), ""},
		{halma.Preset(brainking), after},
		{halma.Preset("classic-16x16-4p"), ""},
		{halma.Custom(&halmapb.VariantSpec{BoardSize: 6, SeatCount: 2, CampRows: []int32{3, 2, 1}}), ""},
	} {
		legal, err := c.LegalMoves(ctxFor(t, 10*time.Second), &halmapb.LegalMovesRequest{Variant: tc.variant, Position: tc.position})
		if err != nil || legal.GetCount() == 0 {
			t.Fatalf("LegalMoves(%v, %q) = %v, %v", tc.variant, tc.position, legal, err)
		}
		counted, err := c.Perft(ctxFor(t, 10*time.Second), &halmapb.PerftRequest{Variant: tc.variant, Position: tc.position, Depth: 1})
		if err != nil || counted.GetNodes() != uint64(legal.GetCount()) || len(counted.GetFirstMoves()) != 0 {
			t.Fatalf("Perft(%v, %q, 1) = %v, %v; want %d nodes", tc.variant, tc.position, counted, err, legal.GetCount())
		}
		zero, err := c.Perft(ctxFor(t, 10*time.Second), &halmapb.PerftRequest{Variant: tc.variant, Position: tc.position})
		if err != nil || zero.GetNodes() != 1 {
			t.Fatalf("Perft(depth 0) = %v, %v; want 1", zero, err)
		}
	}
}

func TestPerftSplitByFirstMove(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	position := "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0"
	resp, err := c.Perft(ctxFor(t, 10*time.Second), &halmapb.PerftRequest{
		Variant: halma.Preset(brainking), Position: position, Depth: 2, SplitByFirstMove: true})
	if err != nil {
		t.Fatal(err)
	}
	legal, err := c.LegalMoves(ctxFor(t, 10*time.Second), &halmapb.LegalMovesRequest{Variant: halma.Preset(brainking), Position: position})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetFirstMoves()) != len(legal.GetMoves()) {
		t.Fatalf("%d first moves, %d legal moves", len(resp.GetFirstMoves()), len(legal.GetMoves()))
	}
	var sum uint64
	for i, first := range resp.GetFirstMoves() {
		move := legal.GetMoves()[i]
		// In LegalMoves' order, as origin-destination.
		if want := move.GetOrigin() + "-" + move.GetDestination(); first.GetMove() != want {
			t.Fatalf("first move %d is %q, want %q", i, first.GetMove(), want)
		}
		// Its count is the number of replies in the position it leads to.
		after, err := c.ValidateMove(ctxFor(t, 10*time.Second), &halmapb.ValidateMoveRequest{
			Variant: halma.Preset(brainking), Position: position, Move: move.GetPath()})
		if err != nil {
			t.Fatal(err)
		}
		replies, err := c.LegalMoves(ctxFor(t, 10*time.Second), &halmapb.LegalMovesRequest{
			Variant: halma.Preset(brainking), Position: after.GetPositionAfter()})
		if err != nil {
			t.Fatal(err)
		}
		if first.GetNodes() != uint64(replies.GetCount()) {
			t.Fatalf("%s: %d sequences, %d replies", first.GetMove(), first.GetNodes(), replies.GetCount())
		}
		sum += first.GetNodes()
	}
	if sum != resp.GetNodes() {
		t.Fatalf("first moves sum to %d, nodes %d", sum, resp.GetNodes())
	}
}

func TestPerftErrorsNameTheField(t *testing.T) {
	var a attempts
	c := dial(t, sharedServer(t).target, a.option())
	_, err := c.Perft(ctxFor(t, 10*time.Second), &halmapb.PerftRequest{Variant: halma.Preset(brainking), Depth: 9})
	e := wantError(t, err, "Perft", codes.InvalidArgument)
	if want := "depth: 9, expected 0 to 8 (this server's max_perft_depth)"; e.Message != want {
		t.Fatalf("message %q, want %q", e.Message, want)
	}
	if a.count() != 1 {
		t.Fatalf("%d attempts, want 1", a.count())
	}
	_, err = c.Perft(ctxFor(t, 10*time.Second), &halmapb.PerftRequest{Variant: halma.Preset(brainking), Depth: -1})
	if e := wantError(t, err, "Perft", codes.InvalidArgument); !strings.HasPrefix(e.Message, "depth: -1, expected 0 to 8") {
		t.Fatalf("message %q", e.Message)
	}
	_, err = c.Perft(ctxFor(t, 10*time.Second), &halmapb.PerftRequest{
		Variant: halma.Preset(brainking), Position: "4bbbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0", Depth: 1})
	want := `position: position "4bbbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0": rank 8 "4bbbbb" holds more than 8 squares, expected 8`
	if e := wantError(t, err, "Perft", codes.InvalidArgument); e.Message != want {
		t.Fatalf("message %q, want %q", e.Message, want)
	}

	shallow := dial(t, startServer(t, "--max_perft_depth=2").target)
	two, err := shallow.Perft(ctxFor(t, 10*time.Second), &halmapb.PerftRequest{Variant: halma.Preset(brainking), Depth: 2})
	if err != nil || two.GetNodes() != 576 {
		t.Fatalf("Perft(depth 2) with --max_perft_depth=2 = %v, %v", two, err)
	}
	_, err = shallow.Perft(ctxFor(t, 10*time.Second), &halmapb.PerftRequest{Variant: halma.Preset(brainking), Depth: 3})
	if e := wantError(t, err, "Perft", codes.InvalidArgument); e.Message != "depth: 3, expected 0 to 2 (this server's max_perft_depth)" {
		t.Fatalf("message %q", e.Message)
	}
}

func TestPerftDeadline(t *testing.T) {
	var a attempts
	c := dial(t, sharedServer(t).target, a.option())
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	// Depth 8 from the start of classic-16x16 is some 10^14 sequences (depth
	// 6 alone takes a CPU minute, docs/perft.md): no machine counts them
	// within the deadline.
	_, err := c.Perft(ctx, &halmapb.PerftRequest{Variant: halma.Preset("classic-16x16"), Depth: 8})
	wantError(t, err, "Perft", codes.DeadlineExceeded)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(%v, context.DeadlineExceeded) is false", err)
	}
	if elapsed := time.Since(began); elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}
	if a.count() != 1 {
		t.Fatalf("%d attempts, want 1", a.count())
	}
}

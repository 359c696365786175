package halma_test

// SuggestMove against the real server: what the proto promises, checked
// with the client's own calls. The move is legal (LegalMoves lists it
// exactly, ValidateMove plays it), the answer is a function of the
// request, the candidates are ranked, bad requests are INVALID_ARGUMENT
// naming the field, a search past its deadline ends DEADLINE_EXCEEDED (or
// answers the best move so far when asked). Not which move: that is the
// bot's to choose.

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"halma-rules/client/go/gen/halmapb"
	"halma-rules/client/go/halma"
)

const (
	afterB1D3 = "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0"
	// The largest node budget any server accepts: no machine searches
	// 10^12 nodes within the deadlines below.
	unboundedNodes = int64(1_000_000_000_000)
)

func moveKey(m *halmapb.Move) string {
	return fmt.Sprintf("%s|%s|%s|%d", m.GetOrigin(), m.GetDestination(), m.GetPath(), m.GetHops())
}

// checkLegal: the move and every candidate are moves LegalMoves lists, as
// it lists them; ValidateMove plays the move.
func checkLegal(t *testing.T, c *halma.Client, variant *halmapb.Variant, answer *halmapb.SuggestMoveResponse, position string) {
	t.Helper()
	legal, err := c.LegalMoves(ctxFor(t, 10*time.Second), &halmapb.LegalMovesRequest{Variant: variant, Position: position})
	if err != nil {
		t.Fatal(err)
	}
	if answer.GetPosition() != legal.GetPosition() || answer.GetMover() != legal.GetStatus().GetToMove() {
		t.Fatalf("answer for %q (%v to move), LegalMoves: %q (%v to move)", answer.GetPosition(), answer.GetMover(),
			legal.GetPosition(), legal.GetStatus().GetToMove())
	}
	listed := map[string]bool{}
	for _, m := range legal.GetMoves() {
		listed[moveKey(m)] = true
	}
	if !listed[moveKey(answer.GetMove())] {
		t.Fatalf("move %s is not among LegalMoves' moves", moveKey(answer.GetMove()))
	}
	for _, candidate := range answer.GetCandidates() {
		if !listed[moveKey(candidate.GetMove())] {
			t.Fatalf("candidate %s is not among LegalMoves' moves", moveKey(candidate.GetMove()))
		}
	}
	played, err := c.ValidateMove(ctxFor(t, 10*time.Second), &halmapb.ValidateMoveRequest{
		Variant: variant, Position: legal.GetPosition(), Move: answer.GetMove().GetPath()})
	if err != nil || !played.GetLegal() || played.GetPath() != answer.GetMove().GetPath() || played.GetMover() != answer.GetMover() {
		t.Fatalf("ValidateMove(%s) = %v, %v", answer.GetMove().GetPath(), played, err)
	}
}

func TestSuggestMoveIsLegal(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	two := []halmapb.Seat{halmapb.Seat_SEAT_W, halmapb.Seat_SEAT_B}
	four := []halmapb.Seat{halmapb.Seat_SEAT_W, halmapb.Seat_SEAT_R, halmapb.Seat_SEAT_B, halmapb.Seat_SEAT_G}
	for _, tc := range []struct {
		variant  *halmapb.Variant
		position string
		moves    []string
		seats    []halmapb.Seat
	}{
		{halma.Preset(brainking), "", nil, two},
		{halma.Preset(brainking), "", []string{"b1-d3"}, two},
		{halma.Preset(brainking), afterB1D3, []string{"h7-f5"}, two},
		{halma.Preset("classic-16x16-4p"), "", nil, four},
		{halma.Custom(&halmapb.VariantSpec{BoardSize: 6, SeatCount: 2, CampRows: []int32{3, 2, 1}}), "", nil, two},
	} {
		for _, level := range []int32{1, 3} {
			answer, err := c.SuggestMove(ctxFor(t, 30*time.Second), &halmapb.SuggestMoveRequest{
				Variant: tc.variant, Position: tc.position, Moves: tc.moves, Level: level, Candidates: 3})
			if err != nil {
				t.Fatalf("SuggestMove(%v, %q, %v, level %d): %v", tc.variant, tc.position, tc.moves, level, err)
			}
			replayed, err := c.Adjudicate(ctxFor(t, 10*time.Second), &halmapb.AdjudicateRequest{
				Variant: tc.variant, StartPosition: tc.position, Moves: tc.moves})
			if err != nil {
				t.Fatal(err)
			}
			checkLegal(t, c, tc.variant, answer, replayed.GetFinalPosition())
			if answer.GetLevel() != level || answer.GetNodes() <= 0 || answer.GetDepth() < 1 ||
				answer.GetScore().GetKind() == halmapb.MoveScore_KIND_UNSPECIFIED {
				t.Fatalf("level %d, nodes %d, depth %d, score %v", answer.GetLevel(), answer.GetNodes(), answer.GetDepth(), answer.GetScore())
			}
			if r := answer.GetStopReason(); r != halmapb.StopReason_STOP_REASON_COMPLETED && r != halmapb.StopReason_STOP_REASON_NODE_BUDGET {
				t.Fatalf("stop reason %v", r)
			}
			var seats []halmapb.Seat
			for _, turns := range answer.GetTurnsNeeded() {
				seats = append(seats, turns.GetSeat())
			}
			if fmt.Sprint(seats) != fmt.Sprint(tc.seats) {
				t.Fatalf("turns needed for %v, want %v", seats, tc.seats)
			}
			if moveKey(answer.GetMove()) == moveKey(answer.GetCandidates()[0].GetMove()) {
				first := answer.GetPrincipalVariation()[0]
				if want := answer.GetMove().GetOrigin() + "-" + answer.GetMove().GetDestination(); first.GetMove() != want || first.GetSeat() != answer.GetMover() {
					t.Fatalf("principal variation starts %v, want %s", first, want)
				}
			}
		}
	}
}

func TestSuggestMoveIsReproducible(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	requests := []*halmapb.SuggestMoveRequest{
		{Variant: halma.Preset(brainking), Moves: []string{"b1-d3", "h7-f5"}, Level: 2, Seed: 7, Candidates: 4},
		{Variant: halma.Preset(brainking), Position: afterB1D3, Level: 1, Seed: 12345678901234567890},
		{Variant: halma.Preset("classic-16x16"), Level: 3, Seed: 1, Candidates: 2},
		{Variant: halma.Preset("classic-16x16-4p"), MaxNodes: 20000, Seed: 3},
	}
	ask := func(c *halma.Client) []*halmapb.SuggestMoveResponse {
		var answers []*halmapb.SuggestMoveResponse
		for _, req := range requests {
			answer, err := c.SuggestMove(ctxFor(t, 30*time.Second), req)
			if err != nil {
				t.Fatal(err)
			}
			answers = append(answers, answer)
		}
		return answers
	}
	first := ask(c)
	other := dial(t, startServer(t, "--max_suggest_nodes=5000000", "--max_concurrent_adjudications=1").target)
	for name, again := range map[string][]*halmapb.SuggestMoveResponse{"again": ask(c), "another server": ask(other)} {
		for i := range requests {
			if !proto.Equal(again[i], first[i]) {
				t.Fatalf("%s: request %d answered\n%v\nfirst\n%v", name, i, again[i], first[i])
			}
		}
	}
}

func TestSuggestMoveCandidatesRanked(t *testing.T) {
	c := dial(t, sharedServer(t).target)
	for _, level := range []int32{1, 4} {
		answer, err := c.SuggestMove(ctxFor(t, 30*time.Second), &halmapb.SuggestMoveRequest{
			Variant: halma.Preset(brainking), Moves: []string{"b1-d3"}, Level: level, Seed: 9, Candidates: 6})
		if err != nil {
			t.Fatal(err)
		}
		candidates := answer.GetCandidates()
		if len(candidates) != 6 {
			t.Fatalf("level %d: %d candidates, want 6", level, len(candidates))
		}
		seen := map[string]bool{}
		chosen := -1
		for i, candidate := range candidates {
			k := moveKey(candidate.GetMove())
			if seen[k] {
				t.Fatalf("level %d: %s twice", level, k)
			}
			seen[k] = true
			if i > 0 && candidate.GetScore().GetValue() > candidates[i-1].GetScore().GetValue() {
				t.Fatalf("level %d: candidate %d scores %d, more than the one before (%d)", level, i,
					candidate.GetScore().GetValue(), candidates[i-1].GetScore().GetValue())
			}
			if k == moveKey(answer.GetMove()) {
				chosen = i
				if !proto.Equal(candidate.GetScore(), answer.GetScore()) {
					t.Fatalf("the move's score %v, as a candidate %v", answer.GetScore(), candidate.GetScore())
				}
			}
		}
		if chosen < 0 || (level == 4 && chosen != 0) { // Level 4 plays its best move.
			t.Fatalf("level %d: the move is candidate %d", level, chosen)
		}
		checkLegal(t, c, halma.Preset(brainking), answer, afterB1D3)
	}

	// The move does not depend on the number of candidates asked for.
	one, err1 := c.SuggestMove(ctxFor(t, 30*time.Second), &halmapb.SuggestMoveRequest{
		Variant: halma.Preset(brainking), Moves: []string{"b1-d3"}, Level: 4, Seed: 5})
	five, err5 := c.SuggestMove(ctxFor(t, 30*time.Second), &halmapb.SuggestMoveRequest{
		Variant: halma.Preset(brainking), Moves: []string{"b1-d3"}, Level: 4, Seed: 5, Candidates: 5})
	if err1 != nil || err5 != nil || moveKey(one.GetMove()) != moveKey(five.GetMove()) || len(one.GetCandidates()) != 1 {
		t.Fatalf("1 candidate: %v, %v; 5 candidates: %v, %v", one, err1, five, err5)
	}

	// A position with fewer moves than asked for gives each of them once.
	tiny := halma.Custom(&halmapb.VariantSpec{BoardSize: 4, SeatCount: 2, CampRows: []int32{2, 1}})
	legal, err := c.LegalMoves(ctxFor(t, 10*time.Second), &halmapb.LegalMovesRequest{Variant: tiny})
	if err != nil || legal.GetCount() < 2 || legal.GetCount() >= 16 {
		t.Fatalf("LegalMoves(4x4) = %v, %v", legal, err)
	}
	all, err := c.SuggestMove(ctxFor(t, 30*time.Second), &halmapb.SuggestMoveRequest{Variant: tiny, Level: 1, Candidates: 16})
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, candidate := range all.GetCandidates() {
		got = append(got, moveKey(candidate.GetMove()))
	}
	for _, m := range legal.GetMoves() {
		want = append(want, moveKey(m))
	}
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("candidates %v, legal moves %v", got, want)
	}
}

func TestSuggestMoveErrorsNameTheField(t *testing.T) {
	var a attempts
	c := dial(t, sharedServer(t).target, a.option())
	capped := halma.Custom(&halmapb.VariantSpec{BoardSize: 8, SeatCount: 2, CampRows: []int32{4, 3, 2, 1}, MoveCap: 2})
	game := []string{"b1-d3", "h7-f5", "c1-e1", "h8-h7"}
	over, err := c.Adjudicate(ctxFor(t, 10*time.Second), &halmapb.AdjudicateRequest{Variant: capped, Moves: game})
	if err != nil || over.GetStatus().GetState() != halmapb.GameStatus_STATE_DRAW {
		t.Fatalf("Adjudicate(move cap 2) = %v, %v", over, err)
	}
	for _, tc := range []struct {
		req  *halmapb.SuggestMoveRequest
		want string
	}{
		{&halmapb.SuggestMoveRequest{Variant: capped, Moves: game, Level: 1}, `^moves: the game is over \(.*expected a game in progress$`},
		{&halmapb.SuggestMoveRequest{Variant: capped, Position: over.GetFinalPosition()}, `^position: the game is over \(`},
		{&halmapb.SuggestMoveRequest{Variant: halma.Preset(brainking), Level: 9}, `^level: 9, expected 1 to 8`},
		{&halmapb.SuggestMoveRequest{Variant: halma.Preset(brainking), Level: -1}, `^level: -1, expected 1 to 8`},
		{&halmapb.SuggestMoveRequest{Variant: halma.Preset(brainking), Level: 3, MaxNodes: 1000}, `^level: 3 given together with max_nodes`},
		{&halmapb.SuggestMoveRequest{Variant: halma.Preset(brainking), Candidates: 17}, `^candidates: 17, expected 1 to 16`},
		{&halmapb.SuggestMoveRequest{Variant: halma.Preset(brainking), MaxNodes: unboundedNodes},
			fmt.Sprintf(`^max_nodes: %d is more than this server's limit .*max_suggest_nodes`, unboundedNodes)},
		{&halmapb.SuggestMoveRequest{Variant: halma.Preset(brainking), Moves: []string{"b1-d3", "h7-f5", "a1-b2"}},
			`^moves\[2\] \(ply 3\): move "a1-b2" is illegal`},
	} {
		before := a.count()
		_, err := c.SuggestMove(ctxFor(t, 10*time.Second), tc.req)
		e := wantError(t, err, "SuggestMove", codes.InvalidArgument)
		if !regexp.MustCompile(tc.want).MatchString(e.Message) {
			t.Errorf("message %q, want it to match %q", e.Message, tc.want)
		}
		if a.count() != before+1 {
			t.Errorf("%d attempts, want 1 (INVALID_ARGUMENT is not retried)", a.count()-before)
		}
	}
}

func TestSuggestMoveDeadline(t *testing.T) {
	// Any node budget; every call stopped after 1 s.
	server := startServer(t, fmt.Sprintf("--max_suggest_nodes=%d", unboundedNodes), "--max_call_seconds=1")
	var a attempts
	c := dial(t, server.target, a.option())
	classic := halma.Preset("classic-16x16")

	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := c.SuggestMove(ctx, &halmapb.SuggestMoveRequest{Variant: classic, MaxNodes: unboundedNodes})
	wantError(t, err, "SuggestMove", codes.DeadlineExceeded)
	if elapsed := time.Since(began); elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}
	if a.count() != 1 {
		t.Fatalf("%d attempts, want 1", a.count())
	}
	// The server goes on answering.
	if _, err := c.SuggestMove(ctxFor(t, 10*time.Second), &halmapb.SuggestMoveRequest{Variant: halma.Preset(brainking), Level: 1}); err != nil {
		t.Fatal(err)
	}

	// BestSoFar: the server's max_call_seconds stops the search; the answer
	// is the best move found so far. Without it, DEADLINE_EXCEEDED.
	answer, err := c.SuggestMove(ctxFor(t, 30*time.Second), &halmapb.SuggestMoveRequest{
		Variant: classic, MaxNodes: unboundedNodes, BestSoFar: true, Candidates: 2})
	if err != nil {
		t.Fatal(err)
	}
	if answer.GetStopReason() != halmapb.StopReason_STOP_REASON_INTERRUPTED || answer.GetStopMessage() == "" {
		t.Fatalf("stop reason %v, message %q", answer.GetStopReason(), answer.GetStopMessage())
	}
	checkLegal(t, c, classic, answer, "")
	_, err = c.SuggestMove(ctxFor(t, 30*time.Second), &halmapb.SuggestMoveRequest{Variant: classic, MaxNodes: unboundedNodes})
	wantError(t, err, "SuggestMove", codes.DeadlineExceeded)
}

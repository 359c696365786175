// Command halma-example plays a short game of Halma against a halma-rules
// server: it lists the variants, asks for legal moves, validates legal and
// illegal moves, adjudicates the record, counts the sequences of two plies
// (perft), asks for a move after b1-d3 (SuggestMove, level 4, three ranked
// candidates), adjudicates three records on one AdjudicateStream call and shows
// an INVALID_ARGUMENT error, printing what the server answers.
//
// Usage: halma-example [-tls-ca FILE] [-timeout 5s] HOST:PORT
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"halma-rules/client/go/gen/halmapb"
	"halma-rules/client/go/halma"
)

const variant = "brainking-8x8"

func main() {
	caFile := flag.String("tls-ca", "", "connect over TLS, trusting this PEM CA (or self-signed server) certificate")
	timeout := flag.Duration("timeout", 5*time.Second, "deadline of each call")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: %s [flags] HOST:PORT\n", os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	opts := []halma.Option{halma.WithTimeout(*timeout)}
	if *caFile != "" {
		opts = append(opts, halma.WithTLS(*caFile))
	}
	os.Exit(run(flag.Arg(0), opts))
}

func run(target string, opts []halma.Option) int {
	client, err := halma.Dial(target, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer client.Close()
	if err := play(context.Background(), client); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	return 0
}

func play(ctx context.Context, c *halma.Client) error {
	health, err := c.Health(ctx, "halma.v1.HalmaRules")
	if err != nil {
		return err
	}
	fmt.Println("health:", health)

	variants, err := c.ListVariants(ctx)
	if err != nil {
		return err
	}
	var start string
	for _, v := range variants.GetVariants() {
		fmt.Printf("variant %s: %dx%d, %d seats, %d pieces each (%s)\n", v.GetName(),
			v.GetSpec().GetBoardSize(), v.GetSpec().GetBoardSize(), len(v.GetSeats()),
			v.GetPiecesPerSeat(), v.GetSource())
		if v.GetName() == variant {
			start = v.GetStartPosition()
		}
	}
	if start == "" {
		return fmt.Errorf("the server has no variant %s", variant)
	}
	fmt.Printf("playing %s from %s\n", variant, start)

	legal, err := c.LegalMoves(ctx, &halmapb.LegalMovesRequest{
		Variant: halma.Preset(variant), Position: start, Origin: "a3"})
	if err != nil {
		return err
	}
	var paths []string
	for _, m := range legal.GetMoves() {
		paths = append(paths, fmt.Sprintf("%s (%s)", m.GetPath(), hops(m.GetHops())))
	}
	fmt.Printf("legal moves from a3: %d: %s\n", legal.GetCount(), strings.Join(paths, ", "))

	// Two legal moves, then an illegal one: each is validated in the
	// position the previous one left.
	record := []string{"b1-d3", "h7-f5", "a1-b2"}
	position := start
	for _, move := range record {
		v, err := c.ValidateMove(ctx, &halmapb.ValidateMoveRequest{
			Variant: halma.Preset(variant), Position: position, Move: move})
		if err != nil {
			return err
		}
		if !v.GetLegal() {
			fmt.Printf("%s %s: illegal, %s: %s\n", seat(v.GetMover()), move, v.GetReason(), v.GetMessage())
			continue
		}
		fmt.Printf("%s %s: legal, path %s, position after %s\n", seat(v.GetMover()), move, v.GetPath(), v.GetPositionAfter())
		position = v.GetPositionAfter()
	}

	adj, err := c.Adjudicate(ctx, &halmapb.AdjudicateRequest{
		Variant: halma.Preset(variant), StartPosition: start, Moves: record})
	if err != nil {
		return err
	}
	fmt.Printf("adjudicate %s: %d moves played, final position %s, status %s, %s to move\n",
		strings.Join(record, " "), adj.GetMovesPlayed(), adj.GetFinalPosition(),
		adj.GetStatus().GetState(), seat(adj.GetStatus().GetToMove()))
	if im := adj.GetIllegalMove(); im != nil {
		fmt.Printf("illegal move at ply %d: %s, %s: %s\n", im.GetPly(), im.GetMove(), im.GetReason(), im.GetMessage())
	}

	counts, err := c.Perft(ctx, &halmapb.PerftRequest{Variant: halma.Preset(variant), Depth: 2, SplitByFirstMove: true})
	if err != nil {
		return err
	}
	first := counts.GetFirstMoves()[0]
	fmt.Printf("perft depth 2 from the start: %d sequences, %d first moves (%s: %d)\n",
		counts.GetNodes(), len(counts.GetFirstMoves()), first.GetMove(), first.GetNodes())

	hint, err := c.SuggestMove(ctx, &halmapb.SuggestMoveRequest{
		Variant: halma.Preset(variant), Moves: []string{"b1-d3"}, Level: 4, Seed: 7, Candidates: 3})
	if err != nil {
		return err
	}
	var best []string
	for _, candidate := range hint.GetCandidates() {
		best = append(best, candidate.GetMove().GetPath())
	}
	fmt.Printf("suggest after b1-d3 (level 4, seed 7): %s plays %s; best %d: %s\n",
		seat(hint.GetMover()), hint.GetMove().GetPath(), len(best), strings.Join(best, ", "))

	if err := stream(ctx, c, record); err != nil {
		return err
	}

	// A malformed request is an error carrying the gRPC code and message.
	_, err = c.LegalMoves(ctx, &halmapb.LegalMovesRequest{Variant: halma.Preset("brainking-9x9")})
	var herr *halma.Error
	if !errors.As(err, &herr) {
		return fmt.Errorf("brainking-9x9: expected an error, got %v", err)
	}
	fmt.Printf("brainking-9x9: error %s: %s\n", herr.Code, herr.Message)
	return nil
}

// stream adjudicates three records on one AdjudicateStream call: Send
// from one goroutine, Recv in this one until io.EOF.
func stream(ctx context.Context, c *halma.Client, record []string) error {
	s, err := c.AdjudicateStream(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	records := []*halmapb.AdjudicateStreamRequest{
		{Id: "played", Record: &halmapb.AdjudicateRequest{Variant: halma.Preset(variant), Moves: record[:2]}},
		{Id: "bad", Record: &halmapb.AdjudicateRequest{Variant: halma.Preset(variant), Moves: record}},
		{Id: "malformed", Record: &halmapb.AdjudicateRequest{Variant: halma.Preset(variant), Moves: []string{"b1-z9"}}},
	}
	go func() {
		for _, r := range records {
			if s.Send(r) != nil {
				return // Recv reports why.
			}
		}
		s.CloseSend()
	}()
	fmt.Println("adjudicate stream, three records on one call:")
	for {
		r, err := s.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case r.Err != nil:
			fmt.Printf("  %s: error %s: %s\n", r.ID, r.Err.Code, r.Err.Message)
		case r.Response.GetIllegalMove() != nil:
			fmt.Printf("  %s: %d moves played, illegal move at ply %d\n", r.ID, r.Response.GetMovesPlayed(), r.Response.GetIllegalMove().GetPly())
		default:
			fmt.Printf("  %s: %d moves played, %s to move\n", r.ID, r.Response.GetMovesPlayed(), seat(r.Response.GetStatus().GetToMove()))
		}
	}
}

// hops says "step", "1 hop" or "N hops".
func hops(n int32) string {
	switch n {
	case 0:
		return "step"
	case 1:
		return "1 hop"
	}
	return fmt.Sprintf("%d hops", n)
}

// seat is the letter of a seat, as in positions ("w", "b", ...).
func seat(s halmapb.Seat) string {
	switch s {
	case halmapb.Seat_SEAT_W:
		return "w"
	case halmapb.Seat_SEAT_R:
		return "r"
	case halmapb.Seat_SEAT_B:
		return "b"
	case halmapb.Seat_SEAT_G:
		return "g"
	}
	return s.String()
}

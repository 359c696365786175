// Package halma is a Go client of the halma-rules gRPC service
// (halma.v1.HalmaRules and grpc.health.v1.Health).
//
// Dial connects (plaintext unless WithTLS or WithTLSConfig is given), and
// every unary RPC (ValidateMove, LegalMoves, Adjudicate, Perft,
// SuggestMove, ListVariants, Health) is a method taking a context.Context:
//
//	c, err := halma.Dial("127.0.0.1:50051", halma.WithTimeout(5*time.Second))
//	if err != nil { ... }
//	defer c.Close()
//	resp, err := c.ValidateMove(ctx, &halmapb.ValidateMoveRequest{
//		Variant: halma.Preset("brainking-8x8"), Move: "b1-d3"})
//
// The request and response messages are the generated types of package
// halmapb. An illegal move is an answer (Legal false with a Reason), not an
// error. A failed call returns an *Error carrying the gRPC code and
// message; use errors.As or Code to inspect it.
//
// Deadlines: a call whose context has no deadline gets the client's
// default timeout (WithTimeout, 10 s unless set); a context deadline always
// wins, shorter or longer. The deadline covers the whole call, retries
// included.
//
// AdjudicateStream returns a *RecordStream: Send records (each with an id)
// from one goroutine while another calls Recv, which returns one
// StreamResult per record in order, then io.EOF. Send blocks while the
// stream's window (WithWindow, DefaultWindow records) is full, so memory
// stays bounded. A stream ended by UNAVAILABLE (a server shutting down) is
// opened again and the unanswered records are sent again, in order; a
// stream that cannot finish ends with a *StreamError saying how many
// records were answered and which were not.
//
// Retries: only UNAVAILABLE is retried (every RPC of the service is
// stateless, so a repeat is safe), up to WithRetry's number of attempts,
// waiting an exponentially growing, jittered delay between attempts
// (WithBackoff). No other code is retried: INVALID_ARGUMENT and
// DEADLINE_EXCEEDED come back after one attempt.
package halma

package halma

import (
	"context"
	"math/rand"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"

	"halma-rules/client/go/gen/halmapb"
	"halma-rules/client/go/gen/healthpb"
)

// Client calls one halma-rules server. It is safe for concurrent use.
type Client struct {
	conn   *grpc.ClientConn
	rules  halmapb.HalmaRulesClient
	health healthpb.HealthClient
	policy *callPolicy
}

// Dial creates a client of the server at target ("host:port", or any
// grpc-go target). It does not wait for the connection: a server that is
// not up yet makes the first calls fail with UNAVAILABLE (and retry).
// Errors are those of the options (such as an unreadable CA file).
func Dial(target string, opts ...Option) (*Client, error) {
	s := settings{
		timeout:    DefaultTimeout,
		attempts:   DefaultAttempts,
		initial:    DefaultInitialBackoff,
		maxBackoff: DefaultMaxBackoff,
	}
	for _, opt := range opts {
		if err := opt(&s); err != nil {
			return nil, err
		}
	}
	policy := &callPolicy{
		timeout:    s.timeout,
		attempts:   s.attempts,
		initial:    s.initial,
		maxBackoff: s.maxBackoff,
		rng:        rand.New(rand.NewSource(time.Now().UnixNano())),
	}
	transport := grpc.WithInsecure()
	if s.tls != nil {
		transport = grpc.WithTransportCredentials(credentials.NewTLS(s.tls))
	}
	dialOptions := append([]grpc.DialOption{
		transport,
		// The first interceptor of the chain is the outermost.
		grpc.WithChainUnaryInterceptor(policy.intercept),
		// Reconnect as soon as a retry would try again (gRPC's default
		// waits 1 s, then 1.6 s, ..., after a failed connection).
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: backoff.Config{
				BaseDelay:  s.initial,
				Multiplier: backoffMultiplier,
				Jitter:     backoffJitter,
				MaxDelay:   s.maxBackoff,
			},
			MinConnectTimeout: 20 * time.Second,
		}),
	}, s.dialOptions...)
	conn, err := grpc.Dial(target, dialOptions...)
	if err != nil {
		return nil, err
	}
	return &Client{
		conn:   conn,
		rules:  halmapb.NewHalmaRulesClient(conn),
		health: healthpb.NewHealthClient(conn),
		policy: policy,
	}, nil
}

// Close closes the connection; calls in flight fail with CANCELED.
func (c *Client) Close() error {
	return c.conn.Close()
}

// Conn returns the underlying connection, for other services on the same
// server (calls on it get the client's deadline and retries too).
func (c *Client) Conn() *grpc.ClientConn {
	return c.conn
}

// Preset is the variant with this preset name, e.g. "brainking-8x8".
func Preset(name string) *halmapb.Variant {
	return &halmapb.Variant{Kind: &halmapb.Variant_Preset{Preset: name}}
}

// Custom is a custom variant.
func Custom(spec *halmapb.VariantSpec) *halmapb.Variant {
	return &halmapb.Variant{Kind: &halmapb.Variant_Custom{Custom: spec}}
}

// unary makes a unary call of a generated stub (the client's interceptor
// gives it the default deadline and the retries) and turns its error into
// an *Error. A unary RPC of the service is one method calling it.
func unary[Req, Res any](ctx context.Context, method string,
	rpc func(context.Context, Req, ...grpc.CallOption) (Res, error), req Req) (Res, error) {
	resp, err := rpc(ctx, req)
	if err != nil {
		var none Res
		return none, newError(method, err)
	}
	return resp, nil
}

// ValidateMove checks one move of the side to move. An illegal move is an
// answer with Legal false, Reason and Message, not an error.
func (c *Client) ValidateMove(ctx context.Context, req *halmapb.ValidateMoveRequest) (*halmapb.ValidateMoveResponse, error) {
	return unary(ctx, "ValidateMove", c.rules.ValidateMove, req)
}

// LegalMoves lists the legal moves of the side to move (of one piece when
// req.Origin is set).
func (c *Client) LegalMoves(ctx context.Context, req *halmapb.LegalMovesRequest) (*halmapb.LegalMovesResponse, error) {
	return unary(ctx, "LegalMoves", c.rules.LegalMoves, req)
}

// Adjudicate replays a game record; a record with an illegal move is an
// answer with IllegalMove set, not an error.
func (c *Client) Adjudicate(ctx context.Context, req *halmapb.AdjudicateRequest) (*halmapb.AdjudicateResponse, error) {
	return unary(ctx, "Adjudicate", c.rules.Adjudicate, req)
}

// Perft counts the move sequences of req.Depth plies from req.Position
// (the variant's start when empty): the reference counts of docs/perft.md.
// With req.SplitByFirstMove, FirstMoves gives each first move's count in
// the order LegalMoves lists the moves. A depth beyond the server's
// --max_perft_depth is INVALID_ARGUMENT; a count that outlasts the
// deadline DEADLINE_EXCEEDED.
func (c *Client) Perft(ctx context.Context, req *halmapb.PerftRequest) (*halmapb.PerftResponse, error) {
	return unary(ctx, "Perft", c.rules.Perft, req)
}

// SuggestMove asks the service's search for a move of the side to move
// (docs/bot.md): in req.Position (the variant's start when empty) after
// req.Moves (each legal, as Adjudicate takes them), at req.Level 1
// (beginner) to 8 (0: the default, 5) or within an explicit budget
// (MaxNodes with MaxDepth, and/or MaxTimeMs). With a level or a node
// budget the answer is a function of the request: the same Seed gives the
// same move on every server. req.Candidates (1 to 16) ranks that many
// moves, best first, with their scores (hints); Move is as LegalMoves
// gives it (a pass is Path "pass"). A finished game or a bad level is
// INVALID_ARGUMENT naming the field; a search that outlasts the deadline
// DEADLINE_EXCEEDED, unless req.BestSoFar (then StopReason is
// STOP_REASON_INTERRUPTED).
func (c *Client) SuggestMove(ctx context.Context, req *halmapb.SuggestMoveRequest) (*halmapb.SuggestMoveResponse, error) {
	return unary(ctx, "SuggestMove", c.rules.SuggestMove, req)
}

// ListVariants lists the preset variants.
func (c *Client) ListVariants(ctx context.Context) (*halmapb.ListVariantsResponse, error) {
	return unary(ctx, "ListVariants", c.rules.ListVariants, &halmapb.ListVariantsRequest{})
}

// Health asks grpc.health.v1.Health/Check about service ("" is the whole
// server, "halma.v1.HalmaRules" the rules service).
func (c *Client) Health(ctx context.Context, service string) (healthpb.HealthCheckResponse_ServingStatus, error) {
	resp, err := unary(ctx, "Health", c.health.Check, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return healthpb.HealthCheckResponse_UNKNOWN, err
	}
	return resp.GetStatus(), nil
}

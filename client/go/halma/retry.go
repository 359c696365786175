package halma

import (
	"context"
	"math/rand"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// callPolicy is the outermost unary interceptor of a Client: it gives a
// call without a deadline the default timeout, then makes up to attempts
// attempts while the answer is UNAVAILABLE.
//
// grpc-go 1.33 (Debian bookworm) only applies a service-config retry
// policy when the process has GRPC_GO_RETRY=on in its environment, so the
// retries are done here, where they work alike in every process and can be
// bounded by the call's deadline.
type callPolicy struct {
	timeout    time.Duration
	attempts   int
	initial    time.Duration
	maxBackoff time.Duration

	mu  sync.Mutex
	rng *rand.Rand
}

const (
	backoffMultiplier = 2.0
	backoffJitter     = 0.2 // each delay is randomised by +-20 %
)

func (p *callPolicy) intercept(ctx context.Context, method string, req, reply interface{},
	cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if _, ok := ctx.Deadline(); !ok && p.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.timeout)
		defer cancel()
	}
	for attempt := 1; ; attempt++ {
		err := invoker(ctx, method, req, reply, cc, opts...)
		if status.Code(err) != codes.Unavailable || attempt >= p.attempts {
			return err
		}
		delay := p.delay(attempt)
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= delay {
			return err // no time left for another attempt
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return err
		case <-timer.C:
		}
	}
}

// delay is the wait after the given failed attempt (1-based):
// initial * 2^(attempt-1), at most maxBackoff, randomised by the jitter.
func (p *callPolicy) delay(attempt int) time.Duration {
	d := float64(p.initial)
	for i := 1; i < attempt && d < float64(p.maxBackoff); i++ {
		d *= backoffMultiplier
	}
	if d > float64(p.maxBackoff) {
		d = float64(p.maxBackoff)
	}
	p.mu.Lock()
	r := p.rng.Float64()
	p.mu.Unlock()
	return time.Duration(d * (1 + backoffJitter*(2*r-1)))
}

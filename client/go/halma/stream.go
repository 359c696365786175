package halma

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"halma-rules/client/go/gen/halmapb"
)

// DefaultWindow is the number of records a RecordStream holds between Send
// and their results unless WithWindow says otherwise.
const DefaultWindow = 32

// The server echoes ids of at most this many bytes; a longer one is an error
// for its record and comes back cut (service/stream/adjudicate_stream.h).
const maxIDBytes = 256

// A StreamOption configures AdjudicateStream.
type StreamOption func(*streamSettings) error

type streamSettings struct {
	window int
}

// WithWindow sets how many records may be sent (or waiting to be sent) and
// not yet answered: Send blocks while that many are.
func WithWindow(records int) StreamOption {
	return func(s *streamSettings) error {
		if records < 1 {
			return fmt.Errorf("halma: window of %d records, expected at least 1", records)
		}
		s.window = records
		return nil
	}
}

// StreamResult is the answer to one record of an AdjudicateStream call:
// Response (what Adjudicate answers, an illegal move included) or Err (what
// Adjudicate would fail with, e.g. INVALID_ARGUMENT for a malformed record;
// Method "AdjudicateStream"). ID is the record's id as sent.
type StreamResult struct {
	ID       string
	Response *halmapb.AdjudicateResponse
	Err      *Error

	request *halmapb.AdjudicateStreamRequest
}

// StreamError ends an AdjudicateStream call that could not answer every
// record. Results come in the order records were sent, so Answered says
// exactly which were answered: the first Answered records, whose results
// Recv returned before this error. Unanswered holds the records sent (or
// waiting to be sent) without an answer, in order; Send accepted nothing
// after them. Attempts is the number of streams opened.
//
// errors.As finds the *Error of the final status in it, so Code,
// status.Code and errors.Is(err, context.Canceled) work as for other calls.
type StreamError struct {
	Err        *Error
	Attempts   int
	Answered   int
	Unanswered []*halmapb.AdjudicateStreamRequest
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("%v (after %d records answered, %d unanswered, %d attempts)",
		e.Err, e.Answered, len(e.Unanswered), e.Attempts)
}

// Unwrap returns the *Error of the stream's final status.
func (e *StreamError) Unwrap() error { return e.Err }

// GRPCStatus returns that status, for status.Code and status.FromError.
func (e *StreamError) GRPCStatus() *status.Status { return e.Err.GRPCStatus() }

// RecordStream is an AdjudicateStream call: many game records, each with a
// caller-chosen id, answered in order. Send records from one goroutine (and
// CloseSend after the last) while another calls Recv until io.EOF, as with
// any gRPC bidirectional stream; Send blocks while the window is full, so
// a caller that stops reading results stops the sending. Cancel the
// context, or call Close, to end it early.
//
// A stream that fails with UNAVAILABLE (a server shutting down answers the
// records it has received and ends the stream so) is opened again: the
// records sent but not answered go first, in order and with their ids,
// then the rest. Recv returns every record's result once, in order. At
// most the client's WithRetry attempts in a row may answer nothing (an
// attempt that answers a record starts the count again), with the
// client's backoff between them, never past the deadline. Other failures,
// or retries used up, end the stream with a *StreamError.
type RecordStream struct {
	ctx     context.Context
	cancel  context.CancelFunc
	rules   halmapb.HalmaRulesClient
	policy  *callPolicy
	window  int
	results chan *StreamResult
	done    chan struct{} // closed when run has returned

	mu      sync.Mutex
	changed chan struct{} // closed, and replaced, on every change below
	// The records between Send and their results: unsent are waiting for
	// the current attempt's writer (resends first), sent were written to it
	// and await their answers, oldest first (the order of the answers).
	unsent    []*halmapb.AdjudicateStreamRequest
	sent      []*halmapb.AdjudicateStreamRequest
	inputDone bool
	resentSet map[*halmapb.AdjudicateStreamRequest]bool
	attempts  int
	answered  int
	resent    int
	end       error // io.EOF or a *StreamError, once the stream is over
}

// AdjudicateStream starts an AdjudicateStream call. A ctx without a
// deadline gets the client's default timeout (WithTimeout), for the whole
// stream, resends included: give a large batch a context deadline of its
// own. The error is only that of an option.
func (c *Client) AdjudicateStream(ctx context.Context, opts ...StreamOption) (*RecordStream, error) {
	settings := streamSettings{window: DefaultWindow}
	for _, opt := range opts {
		if err := opt(&settings); err != nil {
			return nil, err
		}
	}
	var cancel context.CancelFunc
	if _, ok := ctx.Deadline(); !ok && c.policy.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.policy.timeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	s := &RecordStream{
		ctx:       ctx,
		cancel:    cancel,
		rules:     c.rules,
		policy:    c.policy,
		window:    settings.window,
		results:   make(chan *StreamResult),
		done:      make(chan struct{}),
		changed:   make(chan struct{}),
		resentSet: map[*halmapb.AdjudicateStreamRequest]bool{},
	}
	go s.run()
	return s, nil
}

// Send queues one record; it blocks while the window is full. It fails
// once the stream has ended (with the stream's error), after CloseSend, or
// when the context is done.
func (s *RecordStream) Send(req *halmapb.AdjudicateStreamRequest) error {
	if req == nil {
		return errors.New("halma: Send of a nil record")
	}
	for {
		s.mu.Lock()
		switch {
		case s.end == io.EOF || s.inputDone:
			s.mu.Unlock()
			return errors.New("halma: Send after CloseSend")
		case s.end != nil:
			err := s.end
			s.mu.Unlock()
			return err
		case len(s.sent)+len(s.unsent) < s.window:
			s.unsent = append(s.unsent, req)
			s.changedLocked()
			s.mu.Unlock()
			return nil
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-s.ctx.Done():
			return contextError(s.ctx.Err())
		}
	}
}

// CloseSend says no record follows: once every record is answered, Recv
// returns io.EOF.
func (s *RecordStream) CloseSend() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputDone = true
	s.changedLocked()
	return nil
}

// Recv returns the next record's result, in the order the records were
// sent; io.EOF after the last one (once CloseSend was called); or the
// *StreamError that ended the stream.
func (s *RecordStream) Recv() (*StreamResult, error) {
	if result, ok := <-s.results; ok {
		return result, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return nil, s.end
}

// Close ends the stream, cancelling it if it is still going, and waits for
// its goroutines. Recv then returns the stream's error (CANCELLED if Close
// cut it short).
func (s *RecordStream) Close() {
	s.cancel()
	<-s.done
}

// Answered is the number of results Recv has returned.
func (s *RecordStream) Answered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered
}

// Attempts is the number of streams opened so far (more than 1 after
// UNAVAILABLE).
func (s *RecordStream) Attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts
}

// Resent is the number of records sent again on a new stream after an
// UNAVAILABLE left them unanswered (each counted once).
func (s *RecordStream) Resent() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resent
}

// changedLocked wakes everything waiting for a change; s.mu is held.
func (s *RecordStream) changedLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// run opens attempts until every record is answered or the stream fails.
func (s *RecordStream) run() {
	defer close(s.done)
	defer close(s.results)
	defer s.cancel()
	failures := 0 // attempts in a row that ended UNAVAILABLE with no answer
	for {
		answered, err := s.attempt()
		if err == nil {
			s.mu.Lock()
			left := len(s.sent) + len(s.unsent)
			s.mu.Unlock()
			if left > 0 {
				s.finish(status.Errorf(codes.Internal, "the server ended the stream with %d records unanswered", left))
			} else {
				s.finish(nil)
			}
			return
		}
		if status.Code(err) != codes.Unavailable || s.ctx.Err() != nil {
			s.finish(err)
			return
		}
		if answered > 0 {
			failures = 1 // progress: the budget starts again
		} else {
			failures++
		}
		if failures >= s.policy.attempts {
			s.finish(err)
			return
		}
		delay := s.policy.delay(failures)
		if deadline, ok := s.ctx.Deadline(); ok && time.Until(deadline) <= delay {
			s.finish(err)
			return
		}
		s.requeue()
		timer := time.NewTimer(delay)
		select {
		case <-s.ctx.Done():
			timer.Stop()
			s.finish(contextError(s.ctx.Err()))
			return
		case <-timer.C:
		}
	}
}

// attempt runs one stream: a writer goroutine sends the records while this
// one hands the answers to Recv. It returns the number of records answered
// and nil once the server has answered every record after CloseSend, or
// the error that ended the stream.
func (s *RecordStream) attempt() (int, error) {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel() // stops this attempt's writer
	s.mu.Lock()
	s.attempts++
	s.mu.Unlock()
	stream, err := s.rules.AdjudicateStream(ctx)
	if err != nil {
		return 0, err
	}
	go s.write(ctx, stream)
	answered := 0
	for {
		answer, err := stream.Recv()
		if err == io.EOF {
			return answered, nil
		}
		if err != nil {
			return answered, err
		}
		result, err := s.match(answer)
		if err != nil {
			return answered, err
		}
		select {
		case s.results <- result:
		case <-s.ctx.Done():
			return answered, contextError(s.ctx.Err())
		}
		// Taken out of the window only now: Send waits for a place while
		// a result waits for Recv.
		s.mu.Lock()
		s.sent = s.sent[1:]
		delete(s.resentSet, result.request)
		s.answered++
		s.changedLocked()
		s.mu.Unlock()
		answered++
	}
}

// match pairs an answer with the oldest record sent.
func (s *RecordStream) match(answer *halmapb.AdjudicateStreamResponse) (*StreamResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sent) == 0 {
		return nil, status.Errorf(codes.Internal, "an answer (id %.40q) to a record never sent", answer.GetId())
	}
	record := s.sent[0]
	if len(record.GetId()) <= maxIDBytes && answer.GetId() != record.GetId() {
		return nil, status.Errorf(codes.Internal,
			"the answer for id %.40q came where the one for %.40q was expected (answers must keep request order)",
			answer.GetId(), record.GetId())
	}
	result := &StreamResult{ID: record.GetId(), request: record}
	if e := answer.GetError(); e != nil {
		result.Err = &Error{Method: "AdjudicateStream", Code: codes.Code(e.GetCode()), Message: e.GetMessage()}
	} else {
		result.Response = answer.GetResult()
	}
	return result, nil
}

// write sends the records of one attempt: the resends, then what Send
// queues; it half-closes once CloseSend was called and every record is
// sent, and stops when the attempt's ctx is done.
func (s *RecordStream) write(ctx context.Context, stream halmapb.HalmaRules_AdjudicateStreamClient) {
	for {
		s.mu.Lock()
		if ctx.Err() != nil {
			s.mu.Unlock()
			return
		}
		if len(s.unsent) > 0 {
			record := s.unsent[0]
			s.unsent = s.unsent[1:]
			s.sent = append(s.sent, record)
			s.mu.Unlock()
			if stream.Send(record) != nil {
				return // the stream is over: Recv reports why
			}
			continue
		}
		if s.inputDone {
			s.mu.Unlock()
			_ = stream.CloseSend()
			return
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// requeue puts the records sent without an answer back first in line, in
// order, for the next attempt.
func (s *RecordStream) requeue() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, record := range s.sent {
		if !s.resentSet[record] {
			s.resentSet[record] = true
			s.resent++
		}
	}
	s.unsent = append(append([]*halmapb.AdjudicateStreamRequest{}, s.sent...), s.unsent...)
	s.sent = nil
	s.changedLocked()
}

// finish ends the stream: with io.EOF for err nil, else a *StreamError.
func (s *RecordStream) finish(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		s.end = io.EOF
	} else {
		var e *Error
		if !errors.As(err, &e) {
			e = newError("AdjudicateStream", err).(*Error)
		}
		unanswered := append(append([]*halmapb.AdjudicateStreamRequest{}, s.sent...), s.unsent...)
		s.end = &StreamError{Err: e, Attempts: s.attempts, Answered: s.answered, Unanswered: unanswered}
	}
	s.changedLocked()
}

// contextError is the *Error of a context's end: CANCELLED or
// DEADLINE_EXCEEDED.
func contextError(err error) error {
	code := codes.Canceled
	if errors.Is(err, context.DeadlineExceeded) {
		code = codes.DeadlineExceeded
	}
	return &Error{Method: "AdjudicateStream", Code: code, Message: err.Error()}
}

package halma

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Error is a failed call: the gRPC status code and message the server (or
// the gRPC library, for transport failures and deadlines) returned.
type Error struct {
	// Method is the RPC's short name, e.g. "ValidateMove" or "Health".
	Method string
	// Code is the gRPC status code, e.g. codes.InvalidArgument.
	Code codes.Code
	// Message is the status message, e.g. `variant.preset: variant
	// "brainking-9x9": no such preset, ...`.
	Message string

	status *status.Status
}

func (e *Error) Error() string {
	return fmt.Sprintf("halma: %s: %s: %s", e.Method, e.Code, e.Message)
}

// GRPCStatus returns the status, so that status.FromError and status.Code
// of grpc-go understand an *Error.
func (e *Error) GRPCStatus() *status.Status {
	if e.status == nil {
		return status.New(e.Code, e.Message)
	}
	return e.status
}

// Is reports DEADLINE_EXCEEDED as context.DeadlineExceeded and CANCELLED as
// context.Canceled, so errors.Is works as for other context-bound calls.
func (e *Error) Is(target error) bool {
	switch target {
	case context.DeadlineExceeded:
		return e.Code == codes.DeadlineExceeded
	case context.Canceled:
		return e.Code == codes.Canceled
	}
	return false
}

// Code returns the gRPC code of err: codes.OK for nil, the code of an
// *Error or of any error carrying a gRPC status, else codes.Unknown.
func Code(err error) codes.Code {
	if err == nil {
		return codes.OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return status.Code(err)
}

// newError turns an error of a generated stub into an *Error.
func newError(method string, err error) error {
	st, ok := status.FromError(err)
	if !ok {
		st = status.New(codes.Unknown, err.Error())
	}
	return &Error{Method: method, Code: st.Code(), Message: st.Message(), status: st}
}

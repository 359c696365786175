package halma

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
)

// Defaults of Dial.
const (
	DefaultTimeout        = 10 * time.Second
	DefaultAttempts       = 5
	DefaultInitialBackoff = 100 * time.Millisecond
	DefaultMaxBackoff     = 2 * time.Second
)

// An Option configures Dial.
type Option func(*settings) error

type settings struct {
	tls         *tls.Config
	timeout     time.Duration
	attempts    int
	initial     time.Duration
	maxBackoff  time.Duration
	dialOptions []grpc.DialOption
}

// WithTLS connects over TLS, trusting the PEM certificates of caFile (a CA,
// or the server's own self-signed certificate). The server name checked is
// the target's host, unless WithServerName says otherwise.
func WithTLS(caFile string) Option {
	return func(s *settings) error {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return fmt.Errorf("halma: reading the TLS CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("halma: no PEM certificate in the TLS CA file %s", caFile)
		}
		if s.tls == nil {
			s.tls = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		s.tls.RootCAs = pool
		return nil
	}
}

// WithTLSConfig connects over TLS with this configuration (for client
// certificates); nil means the system's roots.
func WithTLSConfig(cfg *tls.Config) Option {
	return func(s *settings) error {
		if cfg == nil {
			cfg = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		s.tls = cfg.Clone()
		return nil
	}
}

// WithServerName sets the name the server's certificate must carry (TLS
// only), when it is not the target's host.
func WithServerName(name string) Option {
	return func(s *settings) error {
		if s.tls == nil {
			s.tls = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		s.tls.ServerName = name
		return nil
	}
}

// WithTimeout sets the deadline given to a call whose context has none
// (DefaultTimeout unless set; 0 means no deadline).
func WithTimeout(d time.Duration) Option {
	return func(s *settings) error {
		if d < 0 {
			return fmt.Errorf("halma: negative timeout %v", d)
		}
		s.timeout = d
		return nil
	}
}

// WithRetry sets the number of attempts a call makes while the answer is
// UNAVAILABLE, the first included (DefaultAttempts unless set; 1 means no
// retry).
func WithRetry(attempts int) Option {
	return func(s *settings) error {
		if attempts < 1 {
			return fmt.Errorf("halma: %d attempts, expected at least 1", attempts)
		}
		s.attempts = attempts
		return nil
	}
}

// WithBackoff sets the wait after the first failed attempt and the longest
// wait (the waits double in between, each randomised by +-20 %). It also
// bounds how long the connection waits before reconnecting to a server it
// could not reach.
func WithBackoff(initial, max time.Duration) Option {
	return func(s *settings) error {
		if initial <= 0 || max < initial {
			return fmt.Errorf("halma: backoff %v to %v, expected 0 < initial <= max", initial, max)
		}
		s.initial, s.maxBackoff = initial, max
		return nil
	}
}

// WithDialOptions adds grpc-go dial options. Interceptors added with
// grpc.WithChainUnaryInterceptor run once per attempt, inside the client's
// deadline and retries.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(s *settings) error {
		s.dialOptions = append(s.dialOptions, opts...)
		return nil
	}
}

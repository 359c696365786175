package halma_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests run the real halma_server: HALMA_SERVER_BINARY is its path
// (test.sh sets it, with HALMA_TESTDATA_DIR and HALMA_EXAMPLE_BINARY).
var (
	serverBinary  = os.Getenv("HALMA_SERVER_BINARY")
	testdataDir   = os.Getenv("HALMA_TESTDATA_DIR")
	exampleBinary = os.Getenv("HALMA_EXAMPLE_BINARY")
)

var (
	listenLine   = regexp.MustCompile(`halma_server listening on (\S+):(\d+)`)
	httpPortLine = regexp.MustCompile(`"http_port":(\d+)`)
)

// serverProcess is halma_server as a child process on 127.0.0.1.
type serverProcess struct {
	cmd      *exec.Cmd
	target   string
	httpPort string        // of its HTTP listener (metrics)
	done     chan struct{} // closed when stderr is at its end

	mu     sync.Mutex
	stderr strings.Builder
}

// launch starts halma_server on 127.0.0.1:port (0: a free port) and waits
// for its start-up line.
func launch(port int, flags ...string) (*serverProcess, error) {
	if serverBinary == "" {
		return nil, fmt.Errorf("HALMA_SERVER_BINARY is not set")
	}
	args := append([]string{"--host=127.0.0.1", fmt.Sprintf("--port=%d", port), "--http_port=0"}, flags...)
	cmd := exec.Command(serverBinary, args...)
	// Should the test binary die (a -timeout panic), the kernel kills the
	// server rather than leaving it running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	// The server reads HALMA_* variables as flag defaults: keep ours out.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HALMA_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &serverProcess{cmd: cmd, done: make(chan struct{})}
	found := make(chan [2]string, 1)
	go func() {
		defer close(s.done)
		scanner := bufio.NewScanner(pipe)
		for scanner.Scan() {
			line := scanner.Text()
			s.mu.Lock()
			s.stderr.WriteString(line + "\n")
			s.mu.Unlock()
			if m := listenLine.FindStringSubmatch(line); m != nil {
				httpPort := ""
				if h := httpPortLine.FindStringSubmatch(line); h != nil {
					httpPort = h[1]
				}
				select {
				case found <- [2]string{m[1] + ":" + m[2], httpPort}:
				default:
				}
			}
		}
	}()
	select {
	case f := <-found:
		s.target, s.httpPort = f[0], f[1]
		return s, nil
	case <-s.done:
	case <-time.After(20 * time.Second):
	}
	s.stop()
	return nil, fmt.Errorf("halma_server did not report its port; stderr:\n%s", s.log())
}

func (s *serverProcess) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// metric is the sum of a Prometheus metric's samples with these labels
// ("key", "value", ...), from GET /metrics.
func (s *serverProcess) metric(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	client := http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil}}
	resp, err := client.Get("http://127.0.0.1:" + s.httpPort + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
lines:
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if !strings.Contains(line, labels[i]+`="`+labels[i+1]+`"`) {
				continue lines
			}
		}
		value, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		total += value
	}
	return total
}

// stop sends SIGTERM (SIGKILL after 20 s) and returns the exit error.
func (s *serverProcess) stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() {
		<-s.done
		exited <- s.cmd.Wait()
	}()
	select {
	case err := <-exited:
		return err
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-exited
		return fmt.Errorf("halma_server did not stop on SIGTERM")
	}
}

// startServer starts a server for one test and stops it when the test
// ends, failing the test if it does not exit cleanly.
func startServer(t *testing.T, flags ...string) *serverProcess {
	t.Helper()
	if serverBinary == "" {
		t.Skip("HALMA_SERVER_BINARY is not set (test.sh sets it)")
	}
	s, err := launch(0, flags...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("halma_server: %v; stderr:\n%s", err, s.log())
		}
	})
	return s
}

var shared struct {
	once   sync.Once
	server *serverProcess
	err    error
}

// sharedServer is one server with default flags for the tests that need
// nothing else; TestMain stops it.
func sharedServer(t *testing.T) *serverProcess {
	t.Helper()
	if serverBinary == "" {
		t.Skip("HALMA_SERVER_BINARY is not set (test.sh sets it)")
	}
	shared.once.Do(func() { shared.server, shared.err = launch(0) })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.server
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.server != nil {
		if err := shared.server.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "halma_server: %v; stderr:\n%s", err, shared.server.log())
			code = 1
		}
	}
	os.Exit(code)
}

// freePort is a loopback port nothing listens on (as far as one can tell).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

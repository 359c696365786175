package halma

import (
	"math/rand"
	"testing"
	"time"
)

func TestBackoffDelays(t *testing.T) {
	p := &callPolicy{initial: 100 * time.Millisecond, maxBackoff: time.Second, rng: rand.New(rand.NewSource(1))}
	for attempt, base := range map[int]time.Duration{
		1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond,
		4: 800 * time.Millisecond, 5: time.Second, 40: time.Second,
	} {
		for i := 0; i < 100; i++ {
			d := p.delay(attempt)
			if d < base*8/10 || d > base*12/10 {
				t.Fatalf("delay after attempt %d = %v, want %v +-20 %%", attempt, d, base)
			}
		}
	}
}

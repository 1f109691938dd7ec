package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browserPath is headless Chromium's path, or the test's end: a failure
// when QUEEN_BROWSER_LANE is set (CI sets it and installs chromium), a
// skip otherwise.
func browserPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no chromium on PATH: install Debian's package chromium"
	if os.Getenv("QUEEN_BROWSER_LANE") != "" {
		t.Fatal(msg + " (QUEEN_BROWSER_LANE is set)")
	}
	t.Skip(msg + "; skipped because QUEEN_BROWSER_LANE is not set")
	return ""
}

// dashPage is one browser tab on a node's dashboard.
type dashPage struct {
	t   *testing.T
	ctx context.Context
	url string
}

// openDashboard starts a headless Chromium (its own allocator, stopped at
// the test's end) and opens the dashboard of node n. At the test's end,
// before the browser stops, it saves a full-page screenshot as
// .cache/dashboard/<TestName>.png under the repository's root.
func openDashboard(t *testing.T, n *node) *dashPage {
	t.Helper()
	exe := browserPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Headless,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 900), chromedp.UserDataDir(t.TempDir()))
	actx, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, stopBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { stopBrowser(); stopAlloc() })
	// The first Do on the browser's own context starts it: one on a
	// context with a deadline would stop the browser with that context.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	p := &dashPage{t: t, ctx: bctx, url: n.url + "/"}
	t.Cleanup(p.screenshot)
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(p.url)); err != nil {
		t.Fatalf("open %s: %v", p.url, err)
	}
	return p
}

// screenshot saves the page as <repo>/.cache/dashboard/<TestName>.png.
func (p *dashPage) screenshot() {
	dir, err := filepath.Abs(filepath.Join("..", "..", ".cache", "dashboard"))
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		p.t.Logf("screenshot: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Logf("screenshot: %v", err)
		return
	}
	name := filepath.Join(dir, strings.ReplaceAll(p.t.Name(), "/", "_")+".png")
	if err := os.WriteFile(name, png, 0o644); err != nil {
		p.t.Logf("screenshot: %v", err)
	}
}

// js is the JavaScript literal of v (a string, number, …) for an
// expression.
func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// waitJS waits until expression is truthy on the page, polling it every
// 100 ms for at most d; on the deadline the test fails with what and the
// value of show, an expression that says what the page held instead.
func (p *dashPage) waitJS(what, expression, show string, d time.Duration) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, d+5*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[any](expression, chromedp.WithPollingInterval(100*time.Millisecond),
		chromedp.WithPollingTimeout(d)))
	if err != nil {
		p.t.Fatalf("the page did not show %s within %s (%v); it shows: %s", what, d, err, p.evalString(show))
	}
}

// eval evaluates expression on the page into out.
func (p *dashPage) eval(expression string, out any) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](expression))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expression, err)
	}
	if err := json.Unmarshal(v, out); err != nil {
		p.t.Fatalf("evaluate %s: %v: %s", expression, err, v)
	}
}

// evalString is expression's value as text, for a failure's message.
func (p *dashPage) evalString(expression string) string {
	if expression == "" {
		return "(nothing asked)"
	}
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](expression))
	if err != nil {
		return fmt.Sprintf("(evaluate: %v)", err)
	}
	return string(v)
}

// cell is the expression of the text a person sees in field of the row
// of section testid keyed by attr=key ("" when there is no such row).
func cell(testid, attr, key, field string) string {
	return fmt.Sprintf(`((document.querySelector('[data-testid=%s][data-%s=' + CSS.escape(%s) + '] [data-field=%s]') || {}).textContent || "")`,
		testid, attr, js(key), field)
}

// rows is the expression of the keys of section testid's rows, by attr.
func rows(testid, attr string) string {
	return fmt.Sprintf(`Array.from(document.querySelectorAll('[data-testid=%s]')).map(r => r.getAttribute('data-%s'))`, testid, attr)
}

// visible is the expression of whether the element of id shows.
func visible(id string) string {
	return fmt.Sprintf(`(e => !!e && !e.hidden && e.offsetParent !== null)(document.getElementById(%s))`, js(id))
}

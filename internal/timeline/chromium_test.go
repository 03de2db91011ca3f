package timeline_test

import (
	"bytes"
	"context"

	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/internal/timeline"
)

// The HTML picture is checked in a real browser: headless Chromium (the
// Debian package chromium, which CI installs) loads the page without a
// console message and draws the lanes and their boxes. Without Chromium
// the test skips, unless WEFT_REQUIRE_CHROMIUM is set, as in CI. Set
// WEFT_SCREENSHOT=FILE to keep the screenshot.

// chromium returns the browser's path, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("WEFT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("WEFT_REQUIRE_CHROMIUM") != "" {
		t.Fatal("Chromium not found, and WEFT_REQUIRE_CHROMIUM is set: install it (apt-get install chromium) or set WEFT_CHROMIUM")
	}
	t.Skip("Chromium not found: install it (apt-get install chromium) or set WEFT_CHROMIUM to check the HTML in a browser")
	return ""
}

// browse runs headless Chromium on a page with extra flags and returns what
// it wrote to standard output and the console messages it logged.
func browse(t *testing.T, bin, page string, flags ...string) (stdout string, console []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang, not a speed check
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
		"--hide-scrollbars", "--force-device-scale-factor=1", "--enable-logging=stderr", "--v=0",
		"--user-data-dir=" + t.TempDir()}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+page)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, errOut.String())
	}
	for _, line := range strings.Split(errOut.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return out.String(), console
}

func TestChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()

	// The check of the console can fail: a page with an error is caught.
	bad := filepath.Join(dir, "bad.html")
	if err := os.WriteFile(bad, []byte(`<!DOCTYPE html><html><body><script>nosuch()</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, console := browse(t, bin, bad, "--dump-dom"); len(console) == 0 {
		t.Fatal("a page that throws logged nothing: the console is not read")
	}

	f := findFailure(t, lostUpdate)
	tl := timeline.FromResult(f, "TestLostUpdate", "found by a test")
	page := filepath.Join(dir, "timeline.html")
	var b bytes.Buffer
	if err := tl.HTML(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, console := browse(t, bin, page, "--dump-dom")
	if len(console) > 0 {
		t.Errorf("the page logged to the console:\n%s", strings.Join(console, "\n"))
	}
	if n := strings.Count(dom, `class="box"`); n != len(tl.Boxes) {
		t.Errorf("the browser's document has %d boxes, want %d", n, len(tl.Boxes))
	}

	shot := filepath.Join(dir, "shot.png")
	if _, console := browse(t, bin, page, "--window-size=1000,760", "--screenshot="+shot); len(console) > 0 {
		t.Errorf("the page logged to the console:\n%s", strings.Join(console, "\n"))
	}
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if keep := os.Getenv("WEFT_SCREENSHOT"); keep != "" {
		if err := os.WriteFile(keep, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the screenshot: %v", err)
	}
	// Every lane shows boxes in the color of events, and one the color of
	// a preemption.
	lanes := laneColumns(t, b.String())
	event := color.RGBA{0xe8, 0xf0, 0xfe, 0xff}
	preempted := color.RGBA{0xff, 0xe2, 0xc2, 0xff}
	var sawPreempted bool
	for name, col := range lanes {
		if count(img, col, event) < 200 {
			t.Errorf("lane %s shows no event box in the screenshot", name)
		}
		sawPreempted = sawPreempted || count(img, col, preempted) > 200
	}
	if !sawPreempted {
		t.Error("no preempted box in the screenshot")
	}
}

// laneColumns reads the horizontal extent of each lane from the page.
func laneColumns(t *testing.T, page string) map[string][2]int {
	t.Helper()
	re := regexp.MustCompile(`class="lane-head[^"]*" data-lane="([^"]+)" style="left:(\d+)px;width:(\d+)px"`)
	out := map[string][2]int{}
	for _, m := range re.FindAllStringSubmatch(page, -1) {
		left, _ := strconv.Atoi(m[2])
		width, _ := strconv.Atoi(m[3])
		out[m[1]] = [2]int{left, left + width}
	}
	if len(out) == 0 {
		t.Fatal("no lane in the page")
	}
	return out
}

// count counts the pixels of color c in columns [col[0], col[1]).
func count(img image.Image, col [2]int, c color.RGBA) int {
	n := 0
	r := img.Bounds()
	for x := max(col[0], r.Min.X); x < min(col[1], r.Max.X); x++ {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			if color.RGBAModel.Convert(img.At(x, y)) == c {
				n++
			}
		}
	}
	return n
}

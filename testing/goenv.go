package weft

import "os"

func init() { restoreGoEnv() }

// restoreGoEnv gives the test's process the GOWORK and GOFLAGS of the
// environment weft test was run in (WEFT_USER_GOWORK, WEFT_USER_GOFLAGS):
// weft test runs go test with its own workspace's, which the test binary
// inherits, and a test that runs the go command (go.uber.org/zap's
// TestStacktraceFiltersVendorZap lists its module's dependencies with go
// mod download) would build in weft's workspace where go test builds in
// the module.
func restoreGoEnv() {
	for _, name := range []string{"GOWORK", "GOFLAGS"} {
		v, ok := os.LookupEnv("WEFT_USER_" + name)
		if !ok {
			continue
		}
		if v == "" {
			os.Unsetenv(name)
		} else {
			os.Setenv(name, v)
		}
		os.Unsetenv("WEFT_USER_" + name)
	}
}

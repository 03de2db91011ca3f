module github.com/weftdev/weft

go 1.26.0

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/google/pprof v0.0.0-20261105003125-4bf881d7fb0b
	github.com/sasha-s/go-deadlock v0.3.9
	go.uber.org/goleak v1.3.0
	golang.org/x/mod v0.42.0
	golang.org/x/tools v0.52.0
	pgregory.net/rapid v1.3.0
)

require (
	github.com/petermattis/goid v0.0.0-20250813065127-a731cc31b4fe // indirect
	golang.org/x/sync v0.24.0 // indirect
)

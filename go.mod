module github.com/weftdev/weft

go 1.26

require go.uber.org/goleak v1.3.0 // indirect

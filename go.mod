module github.com/weftdev/weft

go 1.26

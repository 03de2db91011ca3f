package weft_test

import (
	"os"
	"strconv"
)

func readSelf() (string, error) {
	b, err := os.ReadFile("check_test.go")
	return string(b), err
}

func itoa(i int) string { return strconv.Itoa(i) }

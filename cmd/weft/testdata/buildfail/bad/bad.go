// Package bad builds, but its tests do not.
package bad

// N is a number.
var N = 1

package weft

// WriteTimeline exports writeTimeline to the tests.
var WriteTimeline = writeTimeline

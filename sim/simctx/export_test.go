package simctx

// NumChildren returns how many children the cancelCtx underlying c holds,
// or -1 if c has none.
func NumChildren(c Context) int {
	p, ok := parentCancelCtx(c)
	if !ok {
		return -1
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.children)
}

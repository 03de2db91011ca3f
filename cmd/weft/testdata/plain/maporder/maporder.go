// Package maporder shuts down a cluster's nodes in the order a map gives
// them: a replica must stop before the primary it copies from, or it
// reports a broken stream. The bug shows in the orders that put the
// primary first: weft chooses the order of a range over a map, so the
// schedule it saves replays it.
package maporder

import "sync"

// A Node is a node of the cluster, stopped once.
type Node struct {
	mu      sync.Mutex
	stopped bool
	primary *Node // the node it copies from, if any
	broken  bool  // stopped after its primary
}

// Stop stops the node.
func (n *Node) Stop() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stopped = true
	if p := n.primary; p != nil {
		p.mu.Lock()
		n.broken = p.stopped
		p.mu.Unlock()
	}
}

// Cluster is a set of nodes by name.
type Cluster struct {
	Nodes map[string]*Node
}

// NewCluster returns a cluster of a primary, its backup, which copies
// from it, and two nodes of their own.
func NewCluster() *Cluster {
	p := &Node{}
	return &Cluster{Nodes: map[string]*Node{
		"main":   p,
		"backup": {primary: p},
		"cache":  {},
		"index":  {},
	}}
}

// Shutdown stops every node, in a goroutine of its own, one after the
// other in the map's order; ordered stops the replicas first (the fix).
func (c *Cluster) Shutdown(ordered bool) {
	for _, replicas := range []bool{true, false} {
		for _, n := range c.Nodes {
			if ordered && (n.primary != nil) != replicas {
				continue
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				n.Stop()
			}()
			<-done
		}
		if !ordered {
			break
		}
	}
}

// Broken returns the names of the nodes stopped after their primary.
func (c *Cluster) Broken() []string {
	var out []string
	for name, n := range c.Nodes {
		if n.broken {
			out = append(out, name)
		}
	}
	return out
}

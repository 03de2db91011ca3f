package sched

import (
	"math/rand/v2"
	"testing"
)

// The candidate set against a plain list, over random operations: members
// added and removed, priorities and waiting times changed, the set grown
// past its first size.
func TestCandidatesAgainstAList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var all []*G
	var s candidates
	s.init(&all, nil)
	in := map[*G]bool{}
	for step := range 20_000 {
		if len(all) < 300 && rng.IntN(8) == 0 {
			all = append(all, &G{idx: len(all)})
		}
		if len(all) == 0 {
			continue
		}
		g := all[rng.IntN(len(all))]
		switch rng.IntN(4) {
		case 0, 1:
			in[g] = !in[g]
			s.set(g, in[g])
		case 2:
			g.prio = rng.Int64N(5) // ties, so that the older must win
			if in[g] {
				s.update(g)
			}
		case 3:
			g.since = rng.IntN(5)
			if in[g] {
				if rng.IntN(2) == 0 {
					s.update(g)
				} else {
					s.updateLater(g) // written when the longest wait is asked for
				}
			}
		}
		if s.late != nil && rng.IntN(4) != 0 {
			continue // more operations before the longest wait is asked for
		}
		checkCandidates(t, step, &s, all, func(h *G) bool { return in[h] })
	}
}

// Candidates made from the spares of earlier ones (a reused controller's)
// answer as new ones do, though their buffers hold the earlier members,
// and grow to the same sizes without allocating.
func TestCandidatesFromSpares(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var sp candSpares
	for round := range 4 {
		var all []*G
		var s candidates
		s.init(&all, &sp)
		in := map[*G]bool{}
		for step := range 3_000 {
			if len(all) < 40+20*round && rng.IntN(8) == 0 {
				all = append(all, &G{idx: len(all), since: rng.IntN(5)})
			}
			if len(all) == 0 {
				continue
			}
			g := all[rng.IntN(len(all))]
			in[g] = !in[g]
			s.set(g, in[g])
			checkCandidates(t, round*10_000+step, &s, all, func(h *G) bool { return in[h] })
		}
		sp = s.spares(spareGs)
	}
	all := make([]*G, 16)
	for i := range all {
		all[i] = &G{idx: i}
	}
	var s candidates
	fill := func() {
		s.init(&all, &sp)
		for _, g := range all {
			s.set(g, true)
		}
		sp = s.spares(spareGs)
	}
	fill()
	if n := testing.AllocsPerRun(10, fill); n != 0 {
		t.Errorf("candidates made from spares allocated %v times growing to 16 members, want 0", n)
	}
}

// The candidate set with groups of waiters, against a plain list: members
// of the tree and of groups that turn ready and not, with their keys
// changed, past several growths of the tree.
func TestCandidateGroupsAgainstAList(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var all []*G
	var s candidates
	s.init(&all, nil)
	in := map[*G]bool{}   // in the tree
	of := map[*G]*group{} // in a group
	groups := []*group{s.newGroup(1, nil), s.newGroup(2, nil), s.newGroup(3, nil)}
	for step := range 15_000 {
		if len(all) < 400 && rng.IntN(6) == 0 {
			all = append(all, &G{idx: len(all)})
		}
		if len(all) == 0 {
			continue
		}
		g := all[rng.IntN(len(all))]
		switch rng.IntN(6) {
		case 0:
			if of[g] == nil {
				in[g] = !in[g]
				s.set(g, in[g])
			}
		case 1:
			switch {
			case of[g] != nil:
				s.leave(of[g], g)
				delete(of, g)
			case !in[g]:
				gr := groups[rng.IntN(len(groups))]
				s.join(gr, g)
				of[g] = gr
			}
		case 2:
			gr := groups[rng.IntN(len(groups))]
			s.setReady(gr, !gr.ready)
		case 3:
			g.prio = rng.Int64N(5)
		case 4:
			g.since = rng.IntN(5)
		case 5:
			continue
		}
		switch {
		case of[g] != nil:
			s.updateMember(of[g], g)
		case in[g]:
			s.update(g)
		}
		checkCandidates(t, step, &s, all, func(h *G) bool { return in[h] || of[h] != nil && of[h].ready })
	}
}

// checkCandidates checks the tree s against its definition: the members
// of all, in creation order, with the highest priority and the longest
// wait among them.
func checkCandidates(t *testing.T, step int, s *candidates, all []*G, member func(*G) bool) {
	t.Helper()
	var members []*G
	var best, oldest *G
	for _, h := range all {
		if !member(h) {
			continue
		}
		members = append(members, h)
		if best == nil || h.prio > best.prio {
			best = h
		}
		if oldest == nil || h.since < oldest.since {
			oldest = h
		}
	}
	if s.len() != len(members) {
		t.Fatalf("step %d: len %d, want %d", step, s.len(), len(members))
	}
	for k, h := range members {
		if got := s.at(k); got != h {
			t.Fatalf("step %d: at(%d) = goroutine %d, want %d", step, k, got.idx, h.idx)
		}
		if r := s.rank(h.idx); r != k {
			t.Fatalf("step %d: rank(%d) = %d, want %d", step, h.idx, r, k)
		}
	}
	if s.highest() != best || s.longest() != oldest {
		t.Fatalf("step %d: highest %v, longest %v; want %v, %v", step, s.highest(), s.longest(), best, oldest)
	}
	if old, since := s.oldest(); oldest != nil && since != oldest.since {
		t.Fatalf("step %d: oldest is goroutine %d since %d; it waits since %d", step, old, since, oldest.since)
	}
}

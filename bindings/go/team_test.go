package ncore

import (
	"errors"
	"testing"
)

// Teams on the host backend: the LSA team is the world, the rail team this
// rank alone; the conversions map members back and refuse bad input.
func TestTeamsOnFourRanks(t *testing.T) {
	runRanks(t, 4, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		world := value[Team](t, "TeamWorld")(c.TeamWorld())
		if world != (Team{NRanks: 4, Rank: rank, Stride: 1}) {
			t.Fatalf("TeamWorld = %+v", world)
		}
		if lsa := value[Team](t, "TeamLSA")(c.TeamLSA()); lsa != world {
			t.Fatalf("TeamLSA = %+v", lsa)
		}
		if rail := value[Team](t, "TeamRail")(c.TeamRail()); rail != (Team{NRanks: 1, Rank: 0, Stride: 4}) {
			t.Fatalf("TeamRail = %+v", rail)
		}
		for member := 0; member < 4; member++ {
			if w := value[int](t, "TeamRankToWorld")(c.TeamRankToWorld(world, member)); w != member {
				t.Fatalf("TeamRankToWorld(world, %d) = %d", member, w)
			}
			if l := value[int](t, "TeamRankToLSA")(c.TeamRankToLSA(world, member)); l != member {
				t.Fatalf("TeamRankToLSA(world, %d) = %d", member, l)
			}
		}
		if rank%2 == 0 {
			evens := Team{NRanks: 2, Rank: rank / 2, Stride: 2}
			if w := value[int](t, "evens")(c.TeamRankToWorld(evens, 1)); w != 2 {
				t.Fatalf("TeamRankToWorld(evens, 1) = %d", w)
			}
		}
		if _, err := c.TeamRankToWorld(world, 4); !errors.Is(err, ErrInvalid) {
			t.Fatalf("member 4 of 4: %v, want ErrInvalid", err)
		}
		if _, err := c.TeamRankToWorld(Team{NRanks: 0, Rank: 0, Stride: 1}, 0); !errors.Is(err, ErrInvalid) {
			t.Fatalf("empty team: %v, want ErrInvalid", err)
		}
	})
}

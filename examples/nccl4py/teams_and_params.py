"""nccl4py 0.4.1's teams, parameters and version helpers: the world, LSA
(NVLink domain) and rail teams of a communicator and their rank
conversions, NCCL's parameters as a read-only mapping, and the versions.

    python -m ncore.run -n 3 examples/nccl4py/teams_and_params.py
"""

import ncore as nccl  # with nccl4py: import nccl.core as nccl

from common import check, share_unique_id, use_device, world


def main() -> None:
    rank, nranks, local_rank = world()
    use_device(local_rank)
    comm = nccl.Communicator.init(nranks, rank, share_unique_id(nccl, rank, nranks))

    everyone = comm.team_world
    check((everyone.n_ranks, everyone.rank, everyone.stride) == (nranks, rank, 1),
          f"team_world {everyone}")
    lsa, rail = comm.team_lsa, comm.team_rail
    # The LSA team times the rail team is the world: every rank is in one
    # of each, and a rail holds one rank of every LSA team.
    check(lsa.n_ranks * rail.n_ranks == nranks, f"team_lsa {lsa} x team_rail {rail}")
    members = [comm.team_rank_to_world(lsa, r) for r in range(lsa.n_ranks)]
    check(rank in members, f"rank {rank} among its LSA team's members {members}")
    check(comm.team_rank_to_lsa(lsa, lsa.rank) == lsa.rank, "team_rank_to_lsa of itself")
    check(comm.team_rank_to_world(everyone, rank) == rank, "team_rank_to_world of the world")
    given = nccl.NCCLTeam(n_ranks=1, rank=0, stride=1)
    check(comm.team_rank_to_world(given, 0) == rank - rank % 1, "a team made by hand")

    names = list(nccl.params)
    for name in names[:3]:
        check(isinstance(nccl.params[name], str), f"params[{name!r}]")
    try:
        nccl.params["NCCL_NO_SUCH_PARAMETER_ANYWHERE"]
        check(False, "an unknown parameter is a KeyError")
    except KeyError:
        pass

    versions = nccl.get_version()
    check(versions.nccl4py is not None, f"get_version() {versions}")
    if rank == 0:
        nccl.show_versions()
        nccl.dump_params()

    comm.finalize()
    comm.destroy()
    print(f"rank {rank}: teams {lsa.n_ranks} x {rail.n_ranks}, {len(names)} parameters OK")


if __name__ == "__main__":
    main()

# tests/harness/master_port.sh — sourced by the launcher suites. master_port
# prints a port for a launcher's --master_port (torchrun's, Slurm's daemons),
# drawn as ncore-run draws its own MASTER_PORT (core/launcher/master_port.c:
# outside the kernel's ip_local_port_range, free on every address now), so
# no socket the kernel binds to port 0 is given it before its user binds it.
# A random port of 20000-40000, or one the kernel picked, could be.
# Sourced after $repo is set; needs make lib's build/bin/ncore-run.
master_port() {
  env -u MASTER_PORT "$repo/build/bin/ncore-run" -n 1 --no-tag sh -c 'echo "$MASTER_PORT"'
}

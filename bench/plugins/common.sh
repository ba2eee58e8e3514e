# Sourced by the scripts in bench/plugins: the small helpers they share.

# A TCP port on 127.0.0.1 that nothing listens on right now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# CPU ticks (utime + stime) of process PID and all its threads so far; divide by
# $ticks_per_second for seconds.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
ticks_per_second=$(getconf CLK_TCK)

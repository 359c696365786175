#!/bin/bash
# Builds the servers, then runs the wrk benchmark (bench.py, about 4 min) and
# the hostile-client checks (hostile.py, about 5 min). Loopback only; needs
# the whole 2-core machine: do not run it beside other load.
set -euo pipefail
cd "$(dirname "$0")"
./build.sh
/usr/bin/python3 bench.py
/usr/bin/python3 hostile.py "$@"

#!/bin/sh
# The link launcher of the bundled bots (CXX_LINKER_LAUNCHER, set by
# arena_static_bot() in the top CMakeLists.txt). It runs the link command
# it is given with gRPC, protobuf, Abseil and their dependencies taken from
# their static archives (the .a beside each .so), all in one group so that
# their order does not matter. A bot's process then starts without the
# dynamic loader's symbol lookups through some 70 shared libraries: about
# 2.5 ms of CPU to its first line instead of 14 (docs/benchmarks.md). Any
# other library (the C and C++ runtimes, spdlog) stays shared.
set -eu
started=0
grouped=0
for a; do
  if [ "$started" = 0 ]; then
    set --
    started=1
  fi
  case $a in
    */lib*.so | */lib*.so.*)
      name=${a##*/}
      name=${name%%.so*}
      case $name in
        libabsl_* | libgrpc* | libgpr | libupb | libaddress_sorting | libre2 | \
        libcares | libssl | libcrypto | libprotobuf | libz)
          if [ -f "${a%/*}/$name.a" ]; then a=${a%/*}/$name.a; fi ;;
      esac ;;
    -lre2) a=-l:libre2.a ;;
  esac
  set -- "$@" "$a"
  if [ "$grouped" = 1 ]; then
    set -- "$@" -Wl,--start-group
    grouped=2
  fi
  if [ "$a" = -o ]; then grouped=1; fi
done
exec "$@" -Wl,--end-group

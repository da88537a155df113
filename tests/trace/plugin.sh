# SPDX-License-Identifier: GPL-2.0-only
# Sourced: trace_plugin OUT sets PLUGIN_OPTS, the run-case options that run QEMU (TCG) under the
# instruction-counting plugin (tests/bench/exitcount.c) writing OUT, for convert.py --plugin OUT.
trace_plugin() {
  local a
  a=$(tests/bench/plugin-args.sh "${BENCH_PLUGIN_SO:-build/bench/exitcount.so}" build/umbra.elf "$1") ||
    return 1
  rm -f "$1"
  PLUGIN_OPTS=(--qemu-arg -plugin --qemu-arg "$a")
}

"""The EMERALDS breakdown-utilisation experiment on cairn-sim: periodic task sets run under each
scheduling policy (build/fw/taskset-*.elf) and judged against cairn.analysis (docs/analysis.md,
"The simulated check")."""

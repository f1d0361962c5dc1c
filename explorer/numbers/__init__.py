"""Numbers derived from a trace for the views: the grid, leaf and sample summaries, a
leaf's loss curve, the split scan, the agreement with the reference libraries."""

"""Statistics: the Parquet tables built from the replay, the output folder, reports over it."""

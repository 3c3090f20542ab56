//! Hash logs: crash-safe writing, torn last lines, and `desync` comparisons that cannot miss.

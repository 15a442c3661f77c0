"""Tools built on the framework: the meta-device model summary, benchmarks."""

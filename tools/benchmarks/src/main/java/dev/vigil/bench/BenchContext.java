package dev.vigil.bench;

/** What a suite needs: the shared servers, the options and the report to add to. */
public record BenchContext(Infra infra, BenchOptions options, Report report) {}

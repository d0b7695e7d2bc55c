import ArgumentParser
import Foundation

/// `strata-sync-scale`: issue 35's figures at scale, with two `strata-sync` instances in this
/// process on one PostgreSQL (DATABASE_URL's server, a fresh database on it; else a throw-away
/// PostgreSQL 15 cluster), clients in this process too, over loopback HTTP.
///
///     swift build -c release --build-path .build-release --product strata-sync-scale
///     .build-release/release/strata-sync-scale zone                 # a zone of 1M records, its queries
///     .build-release/release/strata-sync-scale users                # 1,000 users × 10k records, 100 clients
///     .build-release/release/strata-sync-scale zone --records 20000 # smaller, to try it
@main
struct StrataSyncScale: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-sync-scale",
        abstract: "Issue 35's sync figures at scale: a zone of 1M records, and 1,000 users × 10k records.",
        subcommands: [ZoneScale.self, UsersScale.self],
        defaultSubcommand: ZoneScale.self
    )
}

/// Whether figures met issue 35's goals, as a table cell.
func verdict(_ met: Bool?) -> String {
    switch met {
    case .some(true): "met"
    case .some(false): "not met"
    case .none: "-"
    }
}

/// Checks that failed during a run: printed at the end, and the exit status is 1.
struct Checks {
    private(set) var failures: [String] = []
    private(set) var passed = 0

    mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if condition {
            passed += 1
        } else if failures.count < 1000 {
            failures.append(message())
        }
    }

    /// Prints the outcome; throws `ExitCode.failure` when any check failed.
    func finish() throws {
        if failures.isEmpty {
            print("checks: \(Format.grouped(passed)) passed, 0 failed")
        } else {
            print("checks: \(Format.grouped(passed)) passed, \(failures.count) FAILED:")
            for failure in failures.prefix(20) { print("  - \(failure)") }
            throw ExitCode.failure
        }
    }
}

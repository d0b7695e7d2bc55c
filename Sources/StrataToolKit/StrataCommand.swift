import ArgumentParser
import Foundation

/// `strata`: looks into Core Data models and stores from the command line — as objects and
/// relationships, not as `ZTODO` rows — and brings Core Data code from Apple's systems to Linux.
///
/// Exit codes: 0 on success, 1 when the work fails (a store that cannot be read, a check that
/// finds defects), 64 for a usage error (ArgumentParser's `ValidationError`).
public struct StrataCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Look into Core Data models and stores, and port Core Data code to Linux.",
        subcommands: [ModelCommand.self, StoreCommand.self, PortCommand.self]
    )

    public init() {}
}

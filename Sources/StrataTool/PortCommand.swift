import ArgumentParser

/// `strata port [--fix] PATH…`: the spots in Core Data code from Apple's systems that Linux
/// needs changed.
struct PortCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "port",
        abstract: "List (and with --fix rewrite) what Core Data code from Apple's systems needs changed for Linux."
    )
}

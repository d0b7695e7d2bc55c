import ArgumentParser

/// `strata store …`: a store's metadata, objects, history and health, and moving its whole
/// graph in and out as JSON.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Inspect, query, export, import, migrate and check a Core Data store.",
        subcommands: []
    )
}

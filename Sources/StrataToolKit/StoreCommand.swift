import ArgumentParser

/// `strata store …`: a store's metadata, objects, history and health, and moving its whole
/// graph in and out as JSON.
///
/// Every command opens the store through Strata, with the model given by `--model` or, without
/// it, the model Core Data cached in the store (`Z_MODELCACHE`). Commands that only read open a
/// temporary copy read-only, so the store and its `-wal`/`-shm` files never change.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Inspect, query, export, import, migrate and check a Core Data store.",
        subcommands: [
            StoreInfoCommand.self, StoreQueryCommand.self, StoreExportCommand.self, StoreImportCommand.self,
            StoreMigrateCommand.self, StoreCheckCommand.self, StoreHistoryCommand.self,
        ]
    )
}

/// The store a reading command works on, and the model to read it with: `info`, `query`,
/// `export`, `check` and `history` take them alike.
struct StoreArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("The store (a Core Data SQLite file).", valueName: "store"))
    var store: String

    @Option(
        help: ArgumentHelp(
            "The model (.xcdatamodeld, .xcdatamodel, .momd); default: the store's cached model.", valueName: "model"))
    var model: String?
}

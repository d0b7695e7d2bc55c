import ArgumentParser
import Dispatch
import Foundation
import Strata

/// `strata store migrate STORE --to MODEL [--mapping M] [--output NEW]`: a store brought to
/// another version of its model through `NSMigrationManager`.
struct StoreMigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to another model version, lightweight or with a mapping model.",
        discussion: """
            The source model is --from, else the store's cached model, else the version of the \
            --to bundle whose hashes match the store. Without --mapping the mapping is inferred \
            (lightweight migration). The store is replaced only when the migration succeeded; \
            with --output it is left as it is and the migrated store is written there.

            Examples:
              strata store migrate Todos.sqlite --to Todos.xcdatamodeld
              strata store migrate Old.sqlite --to "Model.xcdatamodeld/Model 3.xcdatamodel" --mapping V2toV3.xcmappingmodel --output New.sqlite
            """
    )

    @Argument(help: ArgumentHelp("The store to migrate.", valueName: "store"))
    var store: String

    @Option(help: ArgumentHelp("The destination model (its current version for an .xcdatamodeld).", valueName: "model"))
    var to: String

    @Option(help: ArgumentHelp("The store's model; default: the store's cached model.", valueName: "model"))
    var from: String?

    @Option(help: ArgumentHelp("An Xcode mapping model (.xcmappingmodel).", valueName: "mapping"))
    var mapping: String?

    @Option(help: ArgumentHelp("Write the migrated store here and leave STORE unchanged.", valueName: "new"))
    var output: String?

    @Flag(help: "Print a JSON summary.")
    var json = false

    func run() throws {
        try StoreTool.run {
            let original = try StoreOpening.existingStore(store)
            let copy = try StoreOpening.temporaryCopy(of: original)
            defer { try? FileManager.default.removeItem(at: copy.folder) }
            let metadata = try StoreOpening.metadata(of: copy.url, path: store)
            let destination = try StoreOpening.model(path: to, storeURL: nil, metadata: nil)
            if let output, FileManager.default.fileExists(atPath: output) {
                throw StoreToolFailure("\(output) already exists")
            }
            if destination.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
                // Nothing to migrate; --output still gets the store, as asked.
                if let output {
                    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: destination.model)
                    try coordinator.replacePersistentStore(
                        at: URL(fileURLWithPath: output).standardizedFileURL, destinationOptions: nil,
                        withPersistentStoreFrom: copy.url, sourceOptions: nil, ofType: NSSQLiteStoreType)
                }
                report(migrated: false, destination: destination)
                return
            }
            let source = try sourceModel(copy: copy.url, metadata: metadata)
            let mappingModel: NSMappingModel?
            if let mapping {
                guard FileManager.default.fileExists(atPath: mapping) else {
                    throw StoreToolFailure("no mapping model at \(mapping)")
                }
                guard let read = NSMappingModel(contentsOf: URL(fileURLWithPath: mapping)) else {
                    throw StoreToolFailure("\(mapping) is not a mapping model that can be read")
                }
                mappingModel = read
            } else {
                mappingModel = nil
            }
            let work = copy.folder.appendingPathComponent("migrated-" + original.lastPathComponent)
            let manager = NSMigrationManager(sourceModel: source.model, destinationModel: destination.model)
            let progress = ProgressBar("migrate", total: 1000)
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now(), repeating: .milliseconds(100))
            timer.setEventHandler { progress.update(Int(manager.migrationProgress * 1000)) }
            timer.resume()
            do {
                try manager.migrateStore(
                    from: copy.url, type: NSSQLiteStoreType,
                    options: [NSReadOnlyPersistentStoreOption: NSNumber(value: true)], with: mappingModel,
                    toDestinationURL: work, destinationType: NSSQLiteStoreType, destinationOptions: nil)
            } catch {
                timer.cancel()
                progress.finish()
                throw StoreToolFailure("migrate: \(StoreTool.describe(error)); \(store) is unchanged")
            }
            timer.cancel()
            progress.update(1000)
            progress.finish()
            let target = output.map { URL(fileURLWithPath: $0).standardizedFileURL } ?? original
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: destination.model)
            try coordinator.replacePersistentStore(
                at: target, destinationOptions: nil, withPersistentStoreFrom: work, sourceOptions: nil, ofType: NSSQLiteStoreType)
            report(migrated: true, destination: destination)
        }
    }

    private func sourceModel(copy: URL, metadata: [String: Any]) throws -> ResolvedModel {
        if let from {
            let resolved = try StoreOpening.model(path: from, storeURL: nil, metadata: metadata)
            try StoreOpening.requireMatch(resolved, metadata: metadata)
            return resolved
        }
        if let cached = try? NSManagedObjectModel.cachedModel(ofStoreAt: copy),
            cached.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
        {
            return ResolvedModel(model: cached, source: "cached in the store", versionName: nil)
        }
        if let found = try? StoreOpening.model(path: to, storeURL: nil, metadata: metadata),
            found.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
        {
            return found
        }
        throw StoreToolFailure(
            "the store's model is unknown (no cached model, and no version of \(to) matches it); give it with --from")
    }

    private func report(migrated: Bool, destination: ResolvedModel) {
        let target = output ?? store
        if json {
            print(
                "{\"migrated\":\(migrated),\"store\":\(JSONText.string(target)),\"model\":\(JSONText.string(destination.source))}"
            )
        } else if migrated {
            print("migrated \(store) to \(destination.source)" + (output.map { " into \($0)" } ?? ""))
        } else {
            print("\(store) already matches \(destination.source); nothing to do")
        }
    }
}

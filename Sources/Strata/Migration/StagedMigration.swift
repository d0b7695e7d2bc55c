import Foundation

/// The store option that hands a store a staged migration manager: when the store is added,
/// its stages run first (Apple's key).
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"

/// A model version a staged migration names: the model (given, or loaded from a file or a
/// bundle when first needed) and its version checksum (`NSManagedObjectModel.versionChecksum`).
open class NSManagedObjectModelReference: NSObject, @unchecked Sendable {
    /// The checksum of the model's entity version hashes, which a store's metadata records.
    public let versionChecksum: String
    private let load: () -> NSManagedObjectModel?
    private var loaded: NSManagedObjectModel?

    /// A reference to a model in hand.
    public init(model: NSManagedObjectModel, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        loaded = model
        load = { model }
        super.init()
    }

    /// A reference to the model in a file (`.mom`, `.momd`, `.xcdatamodel`, `.xcdatamodeld`).
    public init(fileURL: URL, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        load = { NSManagedObjectModel(contentsOf: fileURL) }
        super.init()
    }

    /// A reference to the model of that name in the bundle (the main bundle when `nil`); the
    /// name may name a version inside a `.momd` (`"Model.momd/Model 2"`).
    public init(name modelName: String, in bundle: Bundle?, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        load = {
            let bundle = bundle ?? Bundle.main
            for root in [bundle.resourceURL, bundle.bundleURL].compactMap({ $0 }) {
                for suffix in ["", ".mom", ".momd", ".xcdatamodel", ".xcdatamodeld"] {
                    let url = root.appendingPathComponent(modelName + suffix)
                    if FileManager.default.fileExists(atPath: url.path), let model = NSManagedObjectModel(contentsOf: url) {
                        return model
                    }
                }
            }
            return nil
        }
        super.init()
    }

    /// The model, loaded on first use; an empty model when it cannot be found (a staged
    /// migration then fails with 134130, naming the checksum).
    open var resolvedModel: NSManagedObjectModel {
        if let loaded { return loaded }
        let model = load() ?? NSManagedObjectModel()
        loaded = model
        return model
    }

    /// The model when it can be found and has the checksum the reference promises.
    func model() -> NSManagedObjectModel? {
        let model = resolvedModel
        return model.entities.isEmpty || model.versionChecksum != versionChecksum ? nil : model
    }
}

/// One step of a staged migration. Use its subclasses.
open class NSMigrationStage: NSObject, @unchecked Sendable {
    /// A description of the stage, for the app's logs.
    open var label: String?
    public override init() { super.init() }
}

/// Model versions that lightweight migration moves between: a store of any of them is
/// migrated to the last one in one step.
open class NSLightweightMigrationStage: NSMigrationStage, @unchecked Sendable {
    /// The version checksums, oldest first.
    public let versionChecksums: [String]

    public init(_ versionChecksums: [String]) {
        self.versionChecksums = versionChecksums
        super.init()
    }
}

/// Two model versions with the app's own work around the (lightweight) migration between
/// them: `willMigrateHandler` runs with the store open with the current model,
/// `didMigrateHandler` with it open with the next one, both through the manager's
/// `container`.
open class NSCustomMigrationStage: NSMigrationStage, @unchecked Sendable {
    public let currentModel: NSManagedObjectModelReference
    public let nextModel: NSManagedObjectModelReference
    open var willMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?
    open var didMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?

    public init(migratingFrom currentModel: NSManagedObjectModelReference, to nextModel: NSManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
        super.init()
    }
}

/// Runs migration stages, in the order given, on a store being added with
/// `NSPersistentStoreStagedMigrationManagerOptionKey`.
///
/// ```swift
/// let stage = NSCustomMigrationStage(migratingFrom: v1Reference, to: v2Reference)
/// stage.willMigrateHandler = { manager, _ in /* fill values v2 requires, through manager.container */ }
/// let description = NSPersistentStoreDescription(url: url)
/// description.setOption(NSStagedMigrationManager([stage]), forKey: NSPersistentStoreStagedMigrationManagerOptionKey)
/// ```
///
/// Each stage's migration is a lightweight one, in one SQLite transaction, so a failure
/// leaves the store at the last version a stage completed.
open class NSStagedMigrationManager: NSObject, @unchecked Sendable {
    /// The stages, run in this order.
    public let stages: [NSMigrationStage]
    /// The container open on the migrating store while a custom stage's handler runs.
    open private(set) var container: NSPersistentContainer?

    public init(_ stages: [NSMigrationStage]) {
        self.stages = stages
        super.init()
    }

    /// Runs the stages that apply to the store at `url`, starting from the version its
    /// metadata records, until it reaches `model`'s version or no stage applies.
    func migrateStore(at url: URL, type: String, to model: NSManagedObjectModel, options: [AnyHashable: Any]?) throws {
        var plain = options ?? [:]
        plain[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
        for _ in 0...(stages.count * 2 + 1) {
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url, options: nil)
            let current = Self.checksum(of: metadata)
            guard current != model.versionChecksum else { return }
            guard let step = try nextStep(from: current, metadata: metadata, finalModel: model) else { return }
            try run(step, at: url, type: type, options: plain)
        }
    }

    private struct Step {
        var source: NSManagedObjectModel
        var destination: NSManagedObjectModel
        var stage: NSCustomMigrationStage?
    }

    private func nextStep(from checksum: String, metadata: [String: Any], finalModel: NSManagedObjectModel) throws -> Step? {
        for stage in stages {
            if let custom = stage as? NSCustomMigrationStage, custom.currentModel.versionChecksum == checksum {
                return Step(
                    source: try model(custom.currentModel), destination: try model(custom.nextModel), stage: custom)
            }
            if let light = stage as? NSLightweightMigrationStage, let index = light.versionChecksums.firstIndex(of: checksum),
                index < light.versionChecksums.count - 1, let last = light.versionChecksums.last
            {
                let source = try model(checksum: checksum, metadata: metadata, finalModel: finalModel)
                let destination = try model(checksum: last, metadata: nil, finalModel: finalModel)
                return Step(source: source, destination: destination, stage: nil)
            }
        }
        return nil
    }

    private func model(_ reference: NSManagedObjectModelReference) throws -> NSManagedObjectModel {
        guard let model = reference.model() else { throw Self.missing(reference.versionChecksum) }
        return model
    }

    /// The model of a checksum: a custom stage's reference, the final model, or a model found
    /// where lightweight migration finds source models (the store's metadata for the store's
    /// own version).
    private func model(
        checksum: String, metadata: [String: Any]?, finalModel: NSManagedObjectModel
    ) throws
        -> NSManagedObjectModel
    {
        if finalModel.versionChecksum == checksum { return finalModel }
        for case let custom as NSCustomMigrationStage in stages {
            for reference in [custom.currentModel, custom.nextModel] where reference.versionChecksum == checksum {
                if let model = reference.model() { return model }
            }
        }
        if let metadata, let model = MigrationSourceModels.model(forStoreMetadata: metadata, destination: finalModel) {
            return model
        }
        let candidates =
            KnownModels.all()
            + MigrationSourceModels.siblingVersionURLs(of: finalModel.fileURL).compactMap { NSManagedObjectModel(contentsOf: $0) }
        if let model = candidates.first(where: { $0.versionChecksum == checksum }) { return model }
        throw Self.missing(checksum)
    }

    private func run(_ step: Step, at url: URL, type: String, options: [AnyHashable: Any]) throws {
        if let stage = step.stage, let handler = stage.willMigrateHandler {
            try withContainer(step.source, url: url, type: type, options: options) { try handler(self, stage) }
        }
        var migrating = options
        migrating[NSMigratePersistentStoresAutomaticallyOption] = true
        migrating[NSInferMappingModelAutomaticallyOption] = true
        migrating[StagedMigrationSourceModelKey] = step.source
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: step.destination)
        _ = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: migrating)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        if let stage = step.stage, let handler = stage.didMigrateHandler {
            try withContainer(step.destination, url: url, type: type, options: options) { try handler(self, stage) }
        }
    }

    /// Opens the store with the model in a container for a handler, and closes it after.
    private func withContainer(
        _ model: NSManagedObjectModel, url: URL, type: String, options: [AnyHashable: Any], _ body: () throws -> Void
    ) throws {
        let container = NSPersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.type = type
        description.shouldMigrateStoreAutomatically = false
        for (key, value) in options { if let key = key as? String { description.setOption(value as? NSObject, forKey: key) } }
        container.persistentStoreDescriptions = [description]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        self.container = container
        defer {
            self.container = nil
            for store in container.persistentStoreCoordinator.persistentStores {
                try? container.persistentStoreCoordinator.remove(store)
            }
        }
        try body()
    }

    /// The checksum of the version a store's metadata records: Apple's key when present, else
    /// computed from the entity version hashes as `versionChecksum` is.
    static func checksum(of metadata: [String: Any]) -> String {
        if let recorded = metadata["NSStoreModelVersionChecksumKey"] as? String { return recorded }
        let hashes = (metadata[NSStoreModelVersionHashesKey] as? [String: Any]) ?? [:]
        var hasher = SHA256()
        for (_, hash) in hashes.sorted(by: { VersionHash.codeUnitOrder($0.key, $1.key) }) {
            if let data = hash as? Data { hasher.update(data) }
        }
        return Data(hasher.finalize()).base64EncodedString()
    }

    private static func missing(_ checksum: String) -> NSError {
        CoreDataError.make(
            NSMigrationMissingSourceModelError,
            "No model with the version checksum \(checksum) is available to the staged migration.",
            userInfo: ["versionChecksum": checksum])
    }
}

/// An internal store option: the model a migration starts from, given by a staged
/// migration, which knows it, rather than looked for.
let StagedMigrationSourceModelKey = "StrataStagedMigrationSourceModel"

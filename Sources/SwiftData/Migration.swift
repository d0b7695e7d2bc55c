import Foundation
import Strata

/// A version of an app's models: its classes (nested in the enum, as Apple's examples do)
/// and its version.
public protocol VersionedSchema {
    static var versionIdentifier: Schema.Version { get }
    static var models: [any PersistentModel.Type] { get }
}

/// The versions of an app's schema, oldest first, and the stages that migrate a store from
/// each to the next.
public protocol SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { get }
    static var stages: [MigrationStage] { get }
}

/// One step of a migration plan.
public enum MigrationStage: @unchecked Sendable {
    /// Core Data's lightweight migration (inferred: attributes added, removed, renamed by
    /// `originalName`, types widened…).
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// Work of the app's on a context of the old schema (`willMigrate`), a lightweight
    /// migration, then work on a context of the new one (`didMigrate`).
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: ((ModelContext) throws -> Void)?, didMigrate: ((ModelContext) throws -> Void)?)

    var versions: (from: any VersionedSchema.Type, to: any VersionedSchema.Type) {
        switch self {
        case .lightweight(let from, let to), .custom(let from, let to, _, _): (from, to)
        }
    }
}

/// Runs a migration plan on a store: from the plan's schema the store was written with, stage
/// by stage, to the last. A store of no schema of the plan (nor of the container's) is refused
/// (134100) and left as it is, as Apple's staged migration refuses an unknown model version.
enum SchemaMigration {
    static func migrate(storeAt url: URL, plan: any SchemaMigrationPlan.Type, to target: Schema) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
            ofType: NSSQLiteStoreType, at: url, options: nil)
        let versions = plan.schemas
        let schemas = versions.map { Schema(versionedSchema: $0) }
        guard
            var index = schemas.lastIndex(where: {
                $0.managedObjectModel.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata)
            })
        else {
            if target.managedObjectModel.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { return }
            throw NSError(
                domain: NSCocoaErrorDomain, code: NSPersistentStoreIncompatibleVersionHashError,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "Cannot use staged migration with an unknown model version: the store at \(url.path) was written with "
                        + "a schema that is none of \(plan)'s (\(versions.map { "\($0.versionIdentifier)" }.joined(separator: ", ")))."
                ])
        }
        while index < versions.count - 1 {
            let from = versions[index].versionIdentifier
            let stage = plan.stages.first { $0.versions.from.versionIdentifier == from }
            let destination =
                stage.flatMap { stage in
                    versions.firstIndex { $0.versionIdentifier == stage.versions.to.versionIdentifier }
                } ?? index + 1
            guard destination > index else { break }
            let configuration = ModelConfiguration(url: url)
            if case .custom(_, _, let willMigrate?, _) = stage {
                let container = try ModelContainer(for: schemas[index], configurations: [configuration])
                let context = ModelContext(container)
                try willMigrate(context)
                try context.save()
            }
            let container = try ModelContainer(for: schemas[destination], configurations: [configuration])
            if case .custom(_, _, _, let didMigrate?) = stage {
                let context = ModelContext(container)
                try didMigrate(context)
                try context.save()
            }
            index = destination
        }
    }
}
